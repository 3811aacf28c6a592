import Foundation

/// A validated test plan (see README "Plan format"). Produced by `PlanLoader`.
public struct TestPlan: Equatable, Codable, Sendable {
    public var name: String
    public var description: String?
    public var suites: [SuiteSpec]
    /// The file it was read from, as given on the command line.
    public var sourcePath: String

    public init(name: String, description: String? = nil, suites: [SuiteSpec], sourcePath: String) {
        self.name = name
        self.description = description
        self.suites = suites
        self.sourcePath = sourcePath
    }

    /// Every parameter value marked secret, as text (they are redacted from events, logs and reports).
    public var secretValues: [String] {
        Array(Set(suites.flatMap { suite in (suite.secretParameters ?? []).compactMap { suite.parameters[$0]?.text } })).sorted()
    }
}

/// Gates decide the exit code; probes only record diagnostics.
public enum SuiteKind: String, Codable, Sendable, CaseIterable {
    case gate, probe
}

/// A plan parameter value (what reaches the generated settings file).
public enum PlanValue: Equatable, Codable, Sendable {
    case string(String)
    case int(Int)
    case double(Double)
    case bool(Bool)

    public init(from decoder: Decoder) throws {
        let c = try decoder.singleValueContainer()
        if let b = try? c.decode(Bool.self) { self = .bool(b) }
        else if let i = try? c.decode(Int.self) { self = .int(i) }
        else if let d = try? c.decode(Double.self) { self = .double(d) }
        else { self = .string(try c.decode(String.self)) }
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.singleValueContainer()
        switch self {
        case .string(let s): try c.encode(s)
        case .int(let i): try c.encode(i)
        case .double(let d): try c.encode(d)
        case .bool(let b): try c.encode(b)
        }
    }
}

extension PlanValue {
    /// The value as text (what a secret looks like in output).
    public var text: String {
        switch self {
        case .string(let s): return s
        case .int(let i): return String(i)
        case .double(let d): return String(d)
        case .bool(let b): return String(b)
        }
    }
}

extension SuiteSpec {
    /// This suite with every secret parameter's value replaced by `[redacted]` (for events and reports).
    public var redactingSecrets: SuiteSpec {
        guard let names = secretParameters, !names.isEmpty else { return self }
        var copy = self
        for name in names where copy.parameters[name] != nil { copy.parameters[name] = .string("[redacted]") }
        return copy
    }
}

/// Deadlines per phase, in seconds. Enforced on the orchestrator's side (DESIGN decision 5).
public struct PhaseTimeouts: Equatable, Codable, Sendable {
    public var connect: Double
    public var push: Double
    public var build: Double
    public var test: Double
    /// Longest allowed stretch without any output from a running command.
    public var silence: Double
    public var cleanup: Double

    public init(connect: Double = 20, push: Double = 120, build: Double = 900, test: Double = 900, silence: Double = 300, cleanup: Double = 60) {
        self.connect = connect
        self.push = push
        self.build = build
        self.test = test
        self.silence = silence
        self.cleanup = cleanup
    }

    public static let defaults = PhaseTimeouts()
}

/// How often a job may run again.
public struct RetryPolicy: Equatable, Codable, Sendable {
    /// Reruns after an infrastructure failure, each on another host.
    public var infrastructure: Int
    /// Reruns after a test failure (0: never). A test that fails then passes is flaky.
    public var testFailures: Int

    public init(infrastructure: Int = 2, testFailures: Int = 0) {
        self.infrastructure = infrastructure
        self.testFailures = testFailures
    }
}

/// One suite of a plan.
public struct SuiteSpec: Equatable, Codable, Sendable {
    public var name: String
    /// A folder under `Templates/` (`cache-contract`, `pressure-probes`, `combine-lifetime`); "" for
    /// a suite that names a `package` instead.
    public var template: String
    public var kind: SuiteKind
    /// Values written to the rendered package's generated settings file.
    public var parameters: [String: PlanValue]
    /// Names of parameters marked `"secret": true`: their values reach the test process only,
    /// never events, logs or reports (nil: none; optional so older events.jsonl still decode).
    public var secretParameters: [String]?
    /// Capabilities a host must have (`combine`, `platform:macos`, `xcode:16.4`, …).
    public var requires: [String]
    /// Split into this many jobs of about equal duration.
    public var shards: Int
    /// Run the suite this many times (probes: to show the spread).
    public var repetitions: Int
    public var retries: RetryPolicy
    /// A gate with a test that failed then passed is red unless this is true.
    public var allowFlaky: Bool
    /// Also run the suite against every mutant of its template; each must be killed.
    public var mutants: Bool
    public var timeouts: PhaseTimeouts
    /// Apple destination for xcodebuild (`platform=iOS Simulator,name=iPhone 16,OS=18.4`); nil runs `swift test`.
    public var destination: String?
    /// Xcode version to pin on Apple hosts (`16.4`).
    public var xcode: String?
    /// A team's implementation under the contract (nil: xcfleet's own reference `CacheContract`).
    public var subject: SubjectSpec? = nil
    /// A team's own package run as it is, instead of a template (`template` is then ""; nil in
    /// older events).
    public var package: PackageSuite? = nil
    /// A team's own Xcode workspace or project run as it is, instead of a template (`template` is
    /// then ""; nil in older events).
    public var xcodeProject: XcodeProjectSuite? = nil

    public init(name: String, template: String, kind: SuiteKind = .gate, parameters: [String: PlanValue] = [:],
                requires: [String] = [], shards: Int = 1, repetitions: Int = 1, retries: RetryPolicy = RetryPolicy(),
                allowFlaky: Bool = false, mutants: Bool = false, timeouts: PhaseTimeouts = .defaults,
                destination: String? = nil, xcode: String? = nil, secretParameters: [String]? = nil, subject: SubjectSpec? = nil) {
        self.name = name
        self.subject = subject
        self.secretParameters = secretParameters
        self.template = template
        self.kind = kind
        self.parameters = parameters
        self.requires = requires
        self.shards = shards
        self.repetitions = repetitions
        self.retries = retries
        self.allowFlaky = allowFlaky
        self.mutants = mutants
        self.timeouts = timeouts
        self.destination = destination
        self.xcode = xcode
    }
}
