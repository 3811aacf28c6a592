import Foundation
import XCFleetModel

extension Collator {
    /// A rerun after test failures runs only the tests that did not pass
    /// (`TestsDiscovered.rerun`). So that its decisive attempt still lists every test of the job's
    /// part, the tests that passed or were skipped in the attempt before (and were not run again)
    /// are carried into it, as they ended there. A lost attempt carries nothing.
    static func carryingPassedIntoReruns(_ attempts: [AttemptReport]) -> [AttemptReport] {
        var out = attempts
        for i in out.indices.dropFirst() where out[i].discovery?.rerun == true && !out[i - 1].lost {
            let ranAgain = Set(out[i].tests.map { $0.id.testKey })
            let carried = out[i - 1].tests.filter { $0.status != .failed && !ranAgain.contains($0.id.testKey) }
            out[i].tests = carried + out[i].tests
        }
        return out
    }
}
