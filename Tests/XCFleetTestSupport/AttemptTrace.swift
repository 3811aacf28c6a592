import Foundation
import XCFleetModel

/// What events.jsonl says of one attempt's push, listing and tests, in the order logged.
package struct AttemptTrace {
    /// `push`, `discovered` and `test` for each such event of the attempt, in order.
    package var order: [String] = []
    /// The attempt's part of the listed tests (its `testsDiscovered`).
    package var selected: [String] = []
    /// Each finished test's status, by its name as the test printed it.
    package var ran: [String: TestStatus] = [:]

    package init(_ events: [RunEvent], _ ref: AttemptRef) {
        for body in events.map(\.body) {
            switch body {
            case .push(let r, _) where r == ref: order.append("push")
            case .testsDiscovered(let r, let found) where r == ref: order.append("discovered"); selected = found.selected
            case .test(let r, let e) where r == ref:
                order.append("test")
                if case .testFinished(let id, let status, _, _, _) = e { ran[id.name] = status }
            default: break
            }
        }
    }

    /// The attempt's tests ran in its push's exec: the push is logged when that exec ended, after
    /// the listing and the test events.
    package var testsRodeThePush: Bool { order.last == "push" && order.contains("test") }

    /// Every test that ran is one of the attempt's part (names as printed: `test`, `Class/test` or `test()`).
    package var ranOnlyItsPart: Bool {
        ran.keys.allSatisfy { name in selected.contains { $0.hasSuffix("/" + name) || $0.hasSuffix("." + name) } }
    }
}
