import Foundation
import XCFleetBasics
import XCFleetModel

/// The steps of one attempt of one job on one host slot, as a pure state machine: no I/O, no clock.
///
/// Every job source (`JobSource`: a rendered template, a team's package, an Xcode project) runs
/// the same steps — push, build or reuse, test, collect, clean up — and is judged the same way.
/// The source only decides which steps there are (`JobSource.steps`) and which commands perform
/// them. A thin loop (`AttemptExecutor` in the kit) performs the actions in the order returned and
/// reports what each step did:
/// ```
/// var machine = AttemptMachine(Plan(source: job.source, host: "mac-1", cleanupSeconds: 60))
/// var actions = machine.start()
/// // .perform(step): run it, then actions = machine.stepEnded(result)
/// // .cleanUp(...):  remove the job directory, then actions = machine.cleanedUp()
/// // .finish(ended): log it; machine.outcome(testsPassed:) is what the scheduler gets
/// ```
/// Judgement (the same for every driver): a step that ends `exited(0)` goes on to the next; a
/// build that exits non-zero with no compiler error in its output gets a build error naming the
/// tool (red, not retried); a deadline is a timeout of that step's phase; a lost connection, a
/// SIGKILL from the host, a wedged simulator or an unusable build cache are infrastructure
/// failures (`AttemptFailure`, rerun elsewhere); a discover step that finds nothing to run (the
/// listing failed, no test is enabled, the filter selects none) is `discoveryFailed`: deterministic
/// for the build, red and never retried; a cancellation ends the attempt `cancelled`.
/// Collect runs after any test run that ended on its own (exit, signal, deadline), not after a
/// lost connection or a cancellation. Cleanup follows whenever a job directory was made, with a
/// short deadline after a lost connection (the host may be gone). With `Plan.cleanupAfterVerdict`
/// (the runner's choice) an attempt whose last command exited on its own on a fine host finishes
/// first and cleans up after its verdict.
public struct AttemptMachine: Sendable {
    /// What the attempt is: the job's source (its steps) and the host, plus deadlines.
    public struct Plan: Equatable, Sendable {
        public var steps: [AttemptStep]
        /// Names the build tool in a build error ("swift build exited with status 1").
        public var buildToolName: String
        /// The host's name, for the texts of failures.
        public var host: String
        /// Seconds the cleanup may take.
        public var cleanupSeconds: Double
        /// Seconds the cleanup may take after the connection was lost (then the directory is left).
        public var cleanupAfterLostConnectionSeconds: Double
        /// The verdict before the cleanup: an attempt whose host is fine ends (`.finish`) as soon as
        /// its tests are collected, and its cleanup follows, off the critical path (the runner keeps
        /// the slot and the lease until it is done). An attempt that lost its host, failed on it or
        /// was cancelled, was killed by a signal or overran a deadline still cleans up first: what it
        /// left may still be running.
        public var cleanupAfterVerdict: Bool

        public init(steps: [AttemptStep], buildToolName: String, host: String, cleanupSeconds: Double,
                    cleanupAfterLostConnectionSeconds: Double = 3, cleanupAfterVerdict: Bool = false) {
            self.steps = steps
            self.buildToolName = buildToolName
            self.host = host
            self.cleanupSeconds = cleanupSeconds
            self.cleanupAfterLostConnectionSeconds = cleanupAfterLostConnectionSeconds
            self.cleanupAfterVerdict = cleanupAfterVerdict
        }

        public init(source: JobSource, host: String, cleanupSeconds: Double, cleanupAfterLostConnectionSeconds: Double = 3,
                    cleanupAfterVerdict: Bool = false) {
            self.init(steps: source.steps, buildToolName: source.buildToolName, host: host, cleanupSeconds: cleanupSeconds,
                      cleanupAfterLostConnectionSeconds: cleanupAfterLostConnectionSeconds, cleanupAfterVerdict: cleanupAfterVerdict)
        }
    }

    /// What the runner must do, in the order returned.
    public enum Action: Equatable, Sendable {
        case phaseStarted(Phase)
        case phaseFinished(Phase)
        /// Run the step; report its end with `stepEnded(_:)`.
        case perform(AttemptStep)
        /// The job directory the attempt's output may name (logged so reports can shorten paths).
        case recordHostPath(String)
        /// Record a build error the runner concluded (not parsed from output).
        case recordBuildError(String)
        /// A simulator wedged: shut every simulator down before anything else runs there.
        case resetSimulators
        /// Remove the job directory (and what the attempt left running) within `seconds`; then
        /// `cleanedUp()`. After a `.finish` (`Plan.cleanupAfterVerdict`) it is the attempt's last action.
        case cleanUp(directory: String?, seconds: Double)
        /// The attempt ended: log `ended`. `outcome(testsPassed:)` says what the scheduler gets.
        case finish(AttemptEnded)
    }

    /// How a step ended, as the runner saw it.
    public enum StepResult: Equatable, Sendable {
        /// The push put the workspace into `directory` (or found it there already).
        case pushed(directory: String)
        /// The step's command ended. `sawBuildError`: its output held a compiler error.
        case ended(CommandTermination, sawBuildError: Bool = false)
        /// A host problem. `termination`: how the step's command ended, when it ran; `timedOut`:
        /// the step's own deadline expired (its phase is recorded as timed out).
        case failed(AttemptFailure, termination: CommandTermination? = nil, timedOut: Bool = false)
        /// The plan asks for what cannot be built here (a destination the plan got wrong, a build
        /// without a test run for it): a build error, red, not retried.
        case planError(String)
        /// The step was cancelled.
        case cancelled
        /// Collect read what it could (what it found went to the event log itself).
        case collected
        /// Discover listed the built tests (logged by the runner as `testsDiscovered`); `problem`: why
        /// there is nothing to run (the list failed or is empty), which ends the attempt red.
        case discovered(problem: String?)
    }

    private enum State: Equatable, Sendable {
        case idle
        case running(step: Int)
        case cleaningUp
        /// Finished (the verdict was given), its cleanup still running.
        case cleaningUpAfterVerdict
        case finished
    }

    public let plan: Plan
    private var state: State = .idle
    private var directory: String?
    private var endedSoFar = AttemptEnded()
    private var failure: AttemptFailure?
    /// Why the discover step found nothing to run (`StepResult.discovered`).
    private var discoveryProblem: String?

    public init(_ plan: Plan) {
        self.plan = plan
    }

    /// True once `.finish` was returned.
    public var isFinished: Bool { state == .finished || state == .cleaningUpAfterVerdict }

    /// How the attempt ended (complete once finished).
    public var ended: AttemptEnded { endedSoFar }

    /// The job directory, once the push (or the step creating it) reported one.
    public var jobDirectory: String? { directory }

    /// The first step (or, with no steps, the end).
    public mutating func start() -> [Action] {
        switch state {
        case .idle:
            return begin(0)
        case .running, .cleaningUp, .cleaningUpAfterVerdict, .finished:
            return []
        }
    }

    /// A job directory exists on the host (even when the push then failed): cleanup will remove it.
    public mutating func directoryCreated(_ path: String) {
        directory = path
    }

    /// The running step ended. Stale reports (no step running) return no actions.
    public mutating func stepEnded(_ result: StepResult) -> [Action] {
        guard case .running(let index) = state else { return [] }
        let step = plan.steps[index]
        var actions: [Action] = [.phaseFinished(step.phase)]
        let goOn: Bool
        switch result {
        case .pushed(let dir):
            directory = dir
            actions.append(.recordHostPath(dir))
            goOn = true
        case .collected:
            goOn = true
        case .discovered(let problem):
            discoveryProblem = problem
            goOn = problem == nil
        case .cancelled:
            endedSoFar.termination = .cancelled
            goOn = false
        case .planError(let message):
            actions.append(.recordBuildError(message))
            goOn = false
        case .failed(let why, let termination, let timedOut):
            if let termination { endedSoFar.termination = termination }
            if timedOut { endedSoFar.timedOutPhase = step.phase }
            fail(why)
            if case .simulatorWedged = why { actions.append(.resetSimulators) }
            goOn = false
        case .ended(let termination, let sawBuildError):
            endedSoFar.termination = termination
            goOn = judge(termination, step: step, sawBuildError: sawBuildError, into: &actions)
        }
        if goOn, index + 1 < plan.steps.count {
            return actions + begin(index + 1)
        }
        // Collect still reads what a test run left when it ended on its own.
        if let collect = plan.steps.firstIndex(of: .collect), collect > index, step == .test, collectable(result) {
            return actions + begin(collect)
        }
        return actions + cleanUp()
    }

    /// The cleanup ended (whether it removed everything or not: what failed is the runner's note).
    public mutating func cleanedUp() -> [Action] {
        switch state {
        case .cleaningUp:
            return [.phaseFinished(.cleanup)] + end()
        case .cleaningUpAfterVerdict:
            state = .finished
            return []
        case .idle, .running, .finished:
            return []
        }
    }

    /// What the scheduler gets for this attempt. `testsPassed`: the collated attempt has no problem
    /// (`Verdict.problems` is empty). Only meaningful once finished.
    public func outcome(testsPassed: Bool) -> Scheduler.AttemptOutcome {
        AttemptMachine.outcome(ended: endedSoFar, failure: failure, testsPassed: testsPassed, discoveryProblem: discoveryProblem)
    }

    /// The typed failure, if the attempt had one.
    public var attemptFailure: AttemptFailure? { failure }

    /// The outcome rule on its own: a host problem reruns elsewhere; a deadline in connect or push
    /// means the host is unreachable (rerun elsewhere), elsewhere it counts like a test failure;
    /// a cancellation is `.cancelled`; a discover step that found nothing to run is
    /// `.discoveryFailed` (never retried); otherwise the tests decide.
    public static func outcome(ended: AttemptEnded, failure: AttemptFailure?, testsPassed: Bool,
                               discoveryProblem: String? = nil) -> Scheduler.AttemptOutcome {
        if let failure { return .infraFailure(failure) }
        if let phase = ended.timedOutPhase {
            switch phase {
            case .connect, .push: return .infraFailure(.deadline(phase))
            case .provision, .build, .test, .fetch, .cleanup: return .timedOut(phase: phase)
            }
        }
        if ended.termination == .cancelled { return .infraFailure(.cancelled) }
        if let discoveryProblem { return .discoveryFailed(discoveryProblem) }
        return testsPassed ? .passed : .testsFailed
    }

    // MARK: - Private

    private mutating func begin(_ index: Int) -> [Action] {
        guard index < plan.steps.count else { return cleanUp() }
        state = .running(step: index)
        let step = plan.steps[index]
        return [.phaseStarted(step.phase), .perform(step)]
    }

    private mutating func cleanUp() -> [Action] {
        guard let directory else { return end() }
        state = .cleaningUp
        var lost = false
        if case .connectionLost? = endedSoFar.termination { lost = true }
        let seconds = lost ? min(plan.cleanupSeconds, plan.cleanupAfterLostConnectionSeconds) : plan.cleanupSeconds
        if plan.cleanupAfterVerdict, failure == nil, endedSoFar.timedOutPhase == nil, case .exited? = endedSoFar.termination {
            // The last command exited on its own and the host is fine: the verdict first, then the
            // cleanup (no phase of the attempt: it is no longer on the run's path). After a signal
            // or a deadline the cleanup still comes first: what it left may still be running.
            state = .cleaningUpAfterVerdict
            return [.finish(endedSoFar), .cleanUp(directory: directory, seconds: seconds)]
        }
        return [.phaseStarted(.cleanup), .cleanUp(directory: directory, seconds: seconds)]
    }

    private mutating func end() -> [Action] {
        state = .finished
        return [.finish(endedSoFar)]
    }

    /// The first failure stands (a later one is a consequence).
    private mutating func fail(_ why: AttemptFailure) {
        if failure == nil {
            failure = why
            endedSoFar.infraError = why.description
        }
    }

    /// Whether the attempt goes on after a step's command ended; records what it means.
    private mutating func judge(_ termination: CommandTermination, step: AttemptStep, sawBuildError: Bool,
                                into actions: inout [Action]) -> Bool {
        switch termination {
        case .exited(0):
            return true
        case .timedOut:
            endedSoFar.timedOutPhase = step.phase
        case .connectionLost(let why):
            fail(.hostLost("connection to \(plan.host) lost during \(step.phase.rawValue): \(why)"))
        case .exited(let code):
            if step == .build, !sawBuildError {
                actions.append(.recordBuildError("\(plan.buildToolName) exited with status \(code)"))
            }
        case .signaled("SIGKILL"):
            // Nothing in a test run sends SIGKILL itself: the host did (OOM killer, reboot, an operator).
            fail(.killedByHost("\(step.phase.rawValue) process on \(plan.host) was killed by the host (SIGKILL)"))
        case .signaled, .cancelled:
            break
        }
        return false
    }

    private func collectable(_ result: StepResult) -> Bool {
        let termination: CommandTermination?
        switch result {
        case .ended(let t, _): termination = t
        case .failed(_, let t, _): termination = t
        case .pushed, .planError, .cancelled, .collected, .discovered: termination = nil
        }
        switch termination {
        case .exited?, .signaled?, .timedOut?: return true
        case .connectionLost?, .cancelled?, nil: return false
        }
    }
}
