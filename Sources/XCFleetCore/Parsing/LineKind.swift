import XCFleetModel
/// One kind of output line the parser recognises: which first bytes can start it, and how it
/// turns such a line into typed events. `parse` returns false when the line is not of this kind,
/// and then the next kind is tried. Every kind scans its line forward a bounded number of times
/// (no backtracking), so a 64 KiB line costs linear time.
package struct LineKind: Sendable {
    /// For reports and docs.
    package let name: String
    /// First bytes (after leading blanks) a line of this kind can start with; nil for any byte.
    package let leads: [UInt8]?
    package let parse: @Sendable (ByteLine, inout [TestEvent]) -> Bool

    /// The table, most frequent first. Kinds with `leads == nil` are tried last for every line.
    package static let table: [LineKind] = [
        LineKind(name: "xctest-case", leads: ascii("T"), parse: xctestCase),
        LineKind(name: "swift-testing", leads: Array(0xC0...0xF7), parse: swiftTesting),
        LineKind(name: "xctest-suite", leads: ascii("T"), parse: xctestSuite),
        LineKind(name: "xctest-summary", leads: ascii("E"), parse: xctestSummary),
        LineKind(name: "activity-assertion", leads: ascii("t"), parse: activityAssertion),
        LineKind(name: "metric", leads: ascii("X"), parse: metric),
        LineKind(name: "restarting", leads: ascii("R"), parse: restarting),
        LineKind(name: "could-not-cast", leads: ascii("C"), parse: couldNotCast),
        LineKind(name: "fatal-error", leads: ascii("F"), parse: fatalErrorMessage),
        LineKind(name: "failed-to-launch", leads: ascii("F"), parse: failedTo),
        LineKind(name: "banner", leads: ascii("*"), parse: banner),
        LineKind(name: "program-crashed", leads: ascii("*"), parse: programCrashed),
        LineKind(name: "testing-failed", leads: ascii("T"), parse: testingFailed),
        LineKind(name: "crash-line", leads: ascii("PAISBTKFGREbz"), parse: crashLine),
        LineKind(name: "bare-error", leads: ascii("e"), parse: bareError),
        LineKind(name: "backtrace-frame", leads: ascii("0123456789"), parse: backtraceFrame),
        LineKind(name: "located", leads: nil, parse: located),
        LineKind(name: "anywhere", leads: nil, parse: anywhere),
    ]

    /// For each first byte, the indices into `table` to try, in table order.
    private static let dispatch: [[Int]] = {
        var lists = Array(repeating: [Int](), count: 256)
        for (k, kind) in table.enumerated() {
            if let leads = kind.leads {
                for b in leads { lists[Int(b)].append(k) }
            } else {
                for b in 0..<256 { lists[b].append(k) }
            }
        }
        return lists
    }()

    private static func ascii(_ s: String) -> [UInt8] { Array(s.utf8) }

    /// Runs the kinds for this line's first byte until one matches; a line none reads goes to
    /// `unmatched` (unreadable result lines, results spliced behind other output).
    package static func classify(_ line: ByteLine, into events: inout [TestEvent]) {
        for k in dispatch[Int(line[0])] where table[k].parse(line, &events) { return }
        unmatched(line, &events)
    }
}
