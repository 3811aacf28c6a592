import Foundation

/// Reconciles the events parsed from xcodebuild's streamed output with those read from the result
/// bundle. The bundle wins on conflicts; every difference is described.
///
/// Tests are matched by class name (module prefix ignored) and test name (`()` ignored). The
/// returned events are the streamed ones unchanged, followed by the bundle's events for every test
/// whose status differs or that the stream never showed (re-labelled with the streamed identifier
/// when there is one), so a fold that lets a later `testFinished` replace an earlier one (the
/// `Collator`) ends with the bundle's verdict, and an append-only event log stays append-only.
public enum XCResultReconciler {
    public static func reconcile(streamed: [TestEvent], bundle: [TestEvent]) -> (events: [TestEvent], disagreements: [String]) {
        struct Seen { var id: TestIdentifier; var status: TestStatus; var failed: Bool }
        var stream: [String: Seen] = [:]
        var streamOrder: [String] = []
        var streamFailures: Set<String> = []
        for e in streamed {
            switch e {
            case .testFinished(let id, let status, _, _, _):
                let k = key(id)
                if stream[k] == nil { streamOrder.append(k) }
                stream[k] = Seen(id: id, status: status, failed: status == .failed)
            case .testFailure(let id?, _, _, _):
                streamFailures.insert(key(id))
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
                notes.append("\(label(seen.id)): the output said \(seen.status.rawValue), the result bundle says \(g.status.rawValue); using the bundle")
                // Failure details already streamed for this test are not repeated.
                let events = g.events.filter { if case .testFailure = $0 { return !streamFailures.contains(g.key) } else { return true } }
                extra += events.map { relabel($0, to: seen.id) }
            } else {
                notes.append("\(label(g.id)): \(g.status.rawValue) in the result bundle, missing from the output; using the bundle")
                extra += g.events
            }
        }
        if groups.isEmpty, !stream.isEmpty {
            notes.append("the result bundle lists no tests, the output showed \(stream.count); using the output")
        } else {
            for k in streamOrder where !inBundle.contains(k) {
                if let seen = stream[k] { notes.append("\(label(seen.id)): \(seen.status.rawValue) in the output, missing from the result bundle") }
            }
        }
        return (streamed + extra, notes)
    }

    /// `class/name` with module prefix and `()` removed.
    static func key(_ id: TestIdentifier) -> String {
        var name = id.name
        if name.hasSuffix("()") { name.removeLast(2) }
        return id.className + "/" + name
    }

    private static func label(_ id: TestIdentifier) -> String {
        key(id)
    }

    private static func relabel(_ e: TestEvent, to id: TestIdentifier) -> TestEvent {
        switch e {
        case .testFinished(_, let status, let seconds, let framework, let clone):
            return .testFinished(id, status: status, seconds: seconds, framework: framework, clone: clone)
        case .testFailure(_, let file, let line, let message):
            return .testFailure(id, file: file, line: line, message: message)
        case .testSkipped(_, let reason):
            return .testSkipped(id, reason: reason)
        default:
            return e
        }
    }
}
