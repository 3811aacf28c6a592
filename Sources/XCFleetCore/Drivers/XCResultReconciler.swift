import Foundation
import XCFleetModel

/// Reconciles the events parsed from xcodebuild's streamed output with those read from the result
/// bundle: two witnesses of one run, which must agree (docs/verdict.md, "Two witnesses").
///
/// Tests are matched by class name (module prefix ignored) and test name (`()` ignored). The
/// returned events are the streamed ones unchanged, followed by the bundle's events for every test
/// the stream never showed, and one `.witnessDisagreement` per difference (a test's outcome differs,
/// or a test is in one witness only). Any disagreement makes the attempt red; the streamed results
/// are kept as they were (an append-only event log stays append-only, and every execution the
/// output printed is still counted once).
public enum XCResultReconciler {
    public static func reconcile(streamed: [TestEvent], bundle: [TestEvent]) -> (events: [TestEvent], disagreements: [String]) {

        struct Seen { var id: TestIdentifier; var status: TestStatus; var failed: Bool }
        var stream: [String: Seen] = [:]
        var streamOrder: [String] = []
        var running: TestIdentifier?
        for e in streamed {
            switch e {
            case .testStarted(let id, _):
                running = id
            case .testFinished(let id, let status, _, _, _):
                let k = key(id)
                if stream[k] == nil { streamOrder.append(k) }
                stream[k] = Seen(id: id, status: status, failed: status == .failed)
                if running == id { running = nil }
            case .crash(let message):
                // A crash fails the test that was running (or the one xcodebuild restarted after),
                // as the Collator counts it: the output did show that test, as failed.
                if let id = CrashText.restartedTest(message) ?? running, stream[key(id)] == nil {
                    streamOrder.append(key(id))
                    stream[key(id)] = Seen(id: id, status: .failed, failed: true)
                }
                running = nil
            default:
                break
            }
        }

        // The bundle's events grouped per test, in bundle order.
        var groups: [(key: String, id: TestIdentifier, status: TestStatus, events: [TestEvent])] = []
        var pending: [TestEvent] = []
        for e in bundle {
            switch e {
            case .testFinished(let id, let status, _, _, _):
                groups.append((key(id), id, status, pending + [e]))
                pending = []
            case .testFailure, .testSkipped:
                pending.append(e)
            default:
                break
            }
        }

        var extra: [TestEvent] = []
        var notes: [String] = []
        var inBundle: Set<String> = []
        for g in groups {
            inBundle.insert(g.key)
            if let seen = stream[g.key] {
                guard seen.status != g.status else { continue }
                notes.append("\(label(seen.id)): the output said \(seen.status.rawValue), the result bundle says \(g.status.rawValue)")
            } else {
                notes.append("\(label(g.id)): \(g.status.rawValue) in the result bundle, missing from the output")
                extra += g.events
            }
        }
        if groups.isEmpty, !stream.isEmpty {
            notes.append("the result bundle lists no tests, the output showed \(stream.count)")
        } else {
            for k in streamOrder where !inBundle.contains(k) {
                if let seen = stream[k] { notes.append("\(label(seen.id)): \(seen.status.rawValue) in the output, missing from the result bundle") }
            }
        }
        return (streamed + extra + notes.map { TestEvent.witnessDisagreement($0) }, notes)
    }

    /// `class/name` with module prefix and `()` removed.
    package static func key(_ id: TestIdentifier) -> String {
        var name = id.name
        if name.hasSuffix("()") { name.removeLast(2) }
        return id.className + "/" + name
    }

    private static func label(_ id: TestIdentifier) -> String {
        key(id)
    }
}
