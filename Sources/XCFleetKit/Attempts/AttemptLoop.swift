import Foundation
import XCFleetModel
import XCFleetCore

/// The thin loop around an `AttemptMachine`: performs each action in the order the machine returns
/// them and feeds back what happened, until the attempt ended. The callers say how a step is done
/// (`perform`), how the job directory is cleaned up (`cleanUp`) and what the bookkeeping actions do
/// (`note`: phases, host paths, build errors, a simulator reset). `perform` returns the step's
/// result and the job directory it created, if any (even a failed push may leave one to remove).
/// `finished` gets the machine at its `.finish` (its outcome is known then): before the cleanup
/// when the plan puts the cleanup after the verdict. Returns the attempt's end.
func driveAttempt(_ machine: inout AttemptMachine,
                  perform: (AttemptStep) async -> (AttemptMachine.StepResult, createdDirectory: String?),
                  cleanUp: (_ directory: String?, _ seconds: Double) async -> Void,
                  note: (AttemptMachine.Action) async -> Void,
                  finished: (AttemptMachine) async -> Void = { _ in }) async -> AttemptEnded {
    var pending = machine.start()
    var ended = AttemptEnded()
    while !pending.isEmpty {
        let action = pending.removeFirst()
        switch action {
        case .perform(let step):
            let (result, created) = await perform(step)
            if let created { machine.directoryCreated(created) }
            pending += machine.stepEnded(result)
        case .cleanUp(let directory, let seconds):
            await cleanUp(directory, seconds)
            pending += machine.cleanedUp()
        case .finish(let end):
            ended = end
            await note(action)
            await finished(machine)
        case .phaseStarted, .phaseFinished, .recordHostPath, .recordBuildError, .resetSimulators:
            await note(action)
        }
    }
    return ended
}

/// Ends a step early with the result the machine should see (thrown inside a step's own code).
struct StepStop: Error {
    var result: AttemptMachine.StepResult
    init(_ result: AttemptMachine.StepResult) { self.result = result }
}
