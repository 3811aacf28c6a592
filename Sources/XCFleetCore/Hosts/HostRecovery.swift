import Foundation

/// Probation, backoff, set-aside and rejoin of one host, as a pure state machine: no I/O, no clock
/// (`now` is the caller's seconds on any monotonic scale).
///
/// A host whose attempt failed for a host reason (`suspected`) goes on probation: the scheduler
/// places nothing there, and it is probed at once after `firstDelay`, then with the delay doubled
/// after each failed probe up to `maxDelay`. A probe that passes (health check, leases, orphans
/// reaped) rejoins it. Still failing after `probationSeconds`, it is set aside (the scheduler stops
/// counting on it) and probed on with the same backoff, but only while jobs are queued; a pass
/// then rejoins it as a new host. A host unreachable at admission starts set aside. The runner:
/// ```
/// var recovery = HostRecovery()
/// perform(recovery.suspected(reason: why, now: t))  // .markUnreachable, .wait(0.5)
/// // after the wait:  perform(recovery.waited(now: t, workQueued: q))   // .probe or .wait(…)
/// // after a probe:   perform(recovery.probeFailed(problem, now: t)) or recovery.probePassed()
/// ```
public struct HostRecovery: Equatable, Sendable {
    public struct Timing: Equatable, Sendable {
        /// Seconds on probation before a host that stays unreachable is set aside.
        public var probationSeconds: Double
        /// The first wait before a probe; doubled after each failed probe up to `maxDelay`.
        public var firstDelay: Double
        public var maxDelay: Double

        public init(probationSeconds: Double = 15, firstDelay: Double = 0.5, maxDelay: Double = 8) {
            self.probationSeconds = probationSeconds
            self.firstDelay = firstDelay
            self.maxDelay = maxDelay
        }
    }

    public enum Action: Equatable, Sendable {
        /// Tell the scheduler: no new attempts on the host (`Scheduler.hostUnreachable`).
        case markUnreachable(reason: String)
        /// Wait this many seconds, then call `waited(now:workQueued:)`.
        case wait(seconds: Double)
        /// Probe the host now; report with `probePassed()` or `probeFailed(_:now:)`.
        case probe
        /// Tell the scheduler the host is gone for now (`Scheduler.hostLost`), with the reason.
        case setAside(reason: String)
        /// The host is back: lift the probation (`hostRecovered`) or, when it was set aside, join it again (`hostJoined`).
        case rejoin(wasSetAside: Bool)
    }

    private enum State: Equatable, Sendable {
        case healthy
        /// Unreachable since `since`; the next wait is `delay`.
        case probation(since: Double, delay: Double, probing: Bool)
        case setAside(delay: Double, probing: Bool)
        /// The run ended or was interrupted: nothing more.
        case stopped
    }

    public let timing: Timing
    private var state: State = .healthy

    public init(timing: Timing = Timing()) {
        self.timing = timing
    }

    public var isOnProbation: Bool {
        if case .probation = state { return true }
        return false
    }

    public var isSetAside: Bool {
        if case .setAside = state { return true }
        return false
    }

    /// Whether probes are going on (a wait or a probe is outstanding).
    public var isRecovering: Bool {
        switch state {
        case .probation, .setAside: return true
        case .healthy, .stopped: return false
        }
    }

    /// An attempt on the host failed for a host reason. Ignored unless the host is healthy.
    public mutating func suspected(reason: String, now: Double) -> [Action] {
        switch state {
        case .healthy:
            state = .probation(since: now, delay: next(timing.firstDelay), probing: false)
            return [.markUnreachable(reason: reason), .wait(seconds: timing.firstDelay)]
        case .probation, .setAside, .stopped:
            return []
        }
    }

    /// The host could not be reached at admission (or was set aside by someone else while healthy):
    /// it is probed with backoff while jobs are queued.
    public mutating func unreachable() -> [Action] {
        switch state {
        case .healthy:
            state = .setAside(delay: next(timing.firstDelay), probing: false)
            return [.wait(seconds: timing.firstDelay)]
        case .probation(_, let delay, let probing):
            state = .setAside(delay: delay, probing: probing)
            return []
        case .setAside, .stopped:
            return []
        }
    }

    /// A wait ended. A host on probation is probed now; a set-aside one only when jobs are queued.
    public mutating func waited(now: Double, workQueued: Bool) -> [Action] {
        switch state {
        case .probation(let since, let delay, false):
            state = .probation(since: since, delay: delay, probing: true)
            return [.probe]
        case .setAside(let delay, false):
            if !workQueued {
                state = .setAside(delay: next(delay), probing: false)
                return [.wait(seconds: delay)]
            }
            state = .setAside(delay: delay, probing: true)
            return [.probe]
        case .probation(_, _, true), .setAside(_, true), .healthy, .stopped:
            return []
        }
    }

    /// The probe passed: the host rejoins.
    public mutating func probePassed() -> [Action] {
        switch state {
        case .probation(_, _, true):
            state = .healthy
            return [.rejoin(wasSetAside: false)]
        case .setAside(_, true):
            state = .healthy
            return [.rejoin(wasSetAside: true)]
        case .probation(_, _, false), .setAside(_, false), .healthy, .stopped:
            return []
        }
    }

    /// The probe failed with `problem`: wait longer (doubling) and probe again; past the probation
    /// time the host is set aside first.
    public mutating func probeFailed(_ problem: String, now: Double) -> [Action] {
        switch state {
        case .probation(let since, let delay, true):
            if now - since > timing.probationSeconds {
                state = .setAside(delay: next(delay), probing: false)
                return [.setAside(reason: "unreachable for \(Int(now - since)) s after a lost connection: \(problem)"), .wait(seconds: delay)]
            }
            state = .probation(since: since, delay: next(delay), probing: false)
            return [.wait(seconds: delay)]
        case .setAside(let delay, true):
            state = .setAside(delay: next(delay), probing: false)
            return [.wait(seconds: delay)]
        case .probation(_, _, false), .setAside(_, false), .healthy, .stopped:
            return []
        }
    }

    /// The run ended or was interrupted: no more probes, whatever is outstanding.
    public mutating func stop() -> [Action] {
        state = .stopped
        return []
    }

    private func next(_ delay: Double) -> Double { min(delay * 2, timing.maxDelay) }
}
