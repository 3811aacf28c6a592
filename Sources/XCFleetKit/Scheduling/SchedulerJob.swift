import Foundation

/// One unit of scheduling: a suite × shard × repetition (× mutant), as the runner built it.
public struct SchedulerJob: Equatable, Sendable {
    /// Unique within a run (the runner's job id, also in `JobPlanned.jobID`).
    public var id: String
    public var suite: String
    /// Capabilities a host must carry, each matched literally against the host's labels:
    /// the requirement `x` is met by a host label `x` (`platform:macos`, `combine`, `xcode:16.4`).
    public var requires: [String]
    /// From an earlier run (`DurationHistory`); nil: the suite's median, else `Scheduler.Options.defaultExpectedSeconds`.
    public var expectedSeconds: Double?
    /// Reruns after an infrastructure failure, each on another host where one exists.
    public var infraRetries: Int
    /// Reruns after a test failure or a timeout (0: never).
    public var testRetries: Int

    public init(id: String, suite: String, requires: [String] = [], expectedSeconds: Double? = nil,
                infraRetries: Int = 2, testRetries: Int = 0) {
        self.id = id
        self.suite = suite
        self.requires = requires
        self.expectedSeconds = expectedSeconds
        self.infraRetries = infraRetries
        self.testRetries = testRetries
    }

    /// A job of `spec`: its `requires`, plus `xcode:<version>` when the suite pins Xcode, and its retry policy.
    public init(id: String, spec: SuiteSpec, expectedSeconds: Double? = nil) {
        var requires = spec.requires
        if let xcode = spec.xcode, !xcode.isEmpty, !requires.contains("xcode:\(xcode)") { requires.append("xcode:\(xcode)") }
        self.init(id: id, suite: spec.name, requires: requires, expectedSeconds: expectedSeconds,
                  infraRetries: spec.retries.infrastructure, testRetries: spec.retries.testFailures)
    }
}

/// A host as the scheduler sees it: a name, its capability labels and how many jobs it runs at once.
public struct SchedulerHost: Equatable, Sendable {
    public var name: String
    public var labels: [String]
    /// Jobs at once; slots are numbered `0..<slots`. A host with no slots takes nothing.
    public var slots: Int

    public init(name: String, labels: [String] = [], slots: Int = 1) {
        self.name = name
        self.labels = labels
        self.slots = slots
    }

    /// The scheduler's view of a fleet host.
    public init(_ spec: HostSpec) {
        self.init(name: spec.name, labels: spec.labels, slots: spec.slots)
    }

    /// True when every requirement is one of this host's labels.
    public func satisfies(_ requires: [String]) -> Bool {
        let have = Set(labels)
        return requires.allSatisfy { have.contains($0) }
    }
}
