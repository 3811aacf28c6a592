import Foundation
import XCFleetModel

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
    /// Its build (key and costs); nil: the scheduler ignores builds for this job.
    public var build: Build?

    public init(id: String, suite: String, requires: [String] = [], expectedSeconds: Double? = nil,
                infraRetries: Int = 2, testRetries: Int = 0, build: Build? = nil) {
        self.build = build
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

extension SchedulerJob {
    /// What a job must build before its tests run, and what that costs where (seconds).
    /// Jobs with the same `key` on one host share one build.
    public struct Build: Equatable, Sendable {
        /// The build key (hash of everything that determines the build).
        public var key: String
        /// Keys an incremental build can start from (a mutant's gate build), nearest first.
        public var bases: [String]
        /// From nothing.
        public var coldSeconds: Double
        /// From a cached build of one of `bases`.
        public var incrementalSeconds: Double
        /// A complete build with this key is already on the host (0 or a few seconds to set up).
        public var cachedSeconds: Double

        public init(key: String, bases: [String] = [], coldSeconds: Double = 0, incrementalSeconds: Double? = nil,
                    cachedSeconds: Double = 0) {
            self.key = key
            self.bases = bases
            self.coldSeconds = Self.clean(coldSeconds)
            self.incrementalSeconds = Self.clean(incrementalSeconds ?? coldSeconds)
            self.cachedSeconds = Self.clean(cachedSeconds)
        }

        /// Seconds for a build from `source`.
        public func seconds(_ source: BuildSource) -> Double {
            switch source {
            case .cold: return coldSeconds
            case .incremental: return incrementalSeconds
            case .cached: return cachedSeconds
            }
        }

        private static func clean(_ s: Double) -> Double { s.isFinite && s >= 0 ? s : 0 }
    }
}

/// Where a job's build comes from on a host.
public enum BuildSource: Equatable, Sendable {
    case cold
    case incremental(from: String)
    case cached
}
