import Foundation
// TEMPORARY stub with the agreed API; replaced by the scheduler branch.
public struct SchedulerJob: Equatable, Sendable {
    public var id: String; public var suite: String; public var requires: [String]; public var expectedSeconds: Double?
    public var infraRetries: Int; public var testRetries: Int
    public init(id: String, suite: String, requires: [String], expectedSeconds: Double?, infraRetries: Int, testRetries: Int) {
        self.id = id; self.suite = suite; self.requires = requires; self.expectedSeconds = expectedSeconds
        self.infraRetries = infraRetries; self.testRetries = testRetries
    }
}
public struct SchedulerHost: Equatable, Sendable {
    public var name: String; public var labels: [String]; public var slots: Int
    public init(name: String, labels: [String], slots: Int) { self.name = name; self.labels = labels; self.slots = slots }
}
public struct Scheduler: Sendable {
    public enum Action: Equatable, Sendable {
        case start(jobID: String, attempt: Int, host: String, slot: Int)
        case cancel(jobID: String, host: String)
        case jobFinished(jobID: String, state: JobFinalState, reason: String?)
        case unschedulable(jobID: String, reason: String)
        case runFinished
    }
    public enum AttemptOutcome: Equatable, Sendable { case passed, testsFailed, timedOut(phase: String), infraFailure(String) }
    var queue: [SchedulerJob]
    var hosts: [SchedulerHost]
    var free: [(String, Int)] = []
    var running: [String: (String, Int, Int)] = [:]
    var attempts: [String: Int] = [:]
    var done = 0
    let total: Int
    var finishedSent = false
    public init(jobs: [SchedulerJob], hosts: [SchedulerHost]) {
        queue = jobs; self.hosts = hosts; total = jobs.count
        for h in hosts { for s in 0..<h.slots { free.append((h.name, s)) } }
    }
    public var isFinished: Bool { done == total }
    public mutating func start() -> [Action] { dispatch() }
    mutating func dispatch() -> [Action] {
        var actions: [Action] = []
        while !queue.isEmpty, !free.isEmpty {
            let job = queue.removeFirst(); let (h, s) = free.removeFirst()
            let n = (attempts[job.id] ?? 0) + 1; attempts[job.id] = n
            running[job.id] = (h, s, n)
            actions.append(.start(jobID: job.id, attempt: n, host: h, slot: s))
        }
        if done == total && !finishedSent { finishedSent = true; actions.append(.runFinished) }
        return actions
    }
    public mutating func attemptFinished(jobID: String, attempt: Int, outcome: AttemptOutcome) -> [Action] {
        guard let (h, s, _) = running.removeValue(forKey: jobID) else { return [] }
        free.append((h, s)); done += 1
        return [.jobFinished(jobID: jobID, state: outcome == .passed ? .passed : .failed, reason: nil)] + dispatch()
    }
    public mutating func hostLost(_ name: String, reason: String) -> [Action] { [] }
    public mutating func interrupt() -> [Action] { [] }
}
