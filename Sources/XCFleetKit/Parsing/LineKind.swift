/// One kind of output line the parser recognises: which first bytes can start it, and how it
/// turns such a line into typed events. `parse` returns false when the line is not of this kind,
/// and then the next kind is tried. Every kind scans its line forward a bounded number of times
/// (no backtracking), so a 64 KiB line costs linear time.
struct LineKind: Sendable {
    /// For reports and docs.
    let name: String
    /// First bytes (after leading blanks) a line of this kind can start with; nil for any byte.
    let leads: [UInt8]?
    let parse: @Sendable (ByteLine, inout [TestEvent]) -> Bool

    /// The table, most frequent first. Kinds with `leads == nil` are tried last for every line.
    static let table: [LineKind] = [
        LineKind(name: "xctest-case", leads: ascii("T"), parse: xctestCase),
        LineKind(name: "swift-testing", leads: Array(0xC0...0xF7), parse: swiftTesting),
        LineKind(name: "xctest-suite", leads: ascii("T"), parse: xctestSuite),
        LineKind(name: "xctest-summary", leads: ascii("E"), parse: xctestSummary),
        LineKind(name: "metric", leads: ascii("X"), parse: metric),
        LineKind(name: "restarting", leads: ascii("R"), parse: restarting),
        LineKind(name: "could-not-cast", leads: ascii("C"), parse: couldNotCast),
        LineKind(name: "fatal-error", leads: ascii("F"), parse: fatalError),
        LineKind(name: "program-crashed", leads: ascii("*"), parse: programCrashed),
        LineKind(name: "bare-error", leads: ascii("e"), parse: bareError),
        LineKind(name: "located", leads: nil, parse: located),
        LineKind(name: "signal-exit", leads: nil, parse: signalExit),
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

    /// Runs the kinds for this line's first byte until one matches.
    static func classify(_ line: ByteLine, into events: inout [TestEvent]) {
        for k in dispatch[Int(line[0])] where table[k].parse(line, &events) { return }
    }
}

// MARK: - XCTest

extension LineKind {
    /// `Test Case 'ID' started|passed|failed|skipped (0.001 seconds)` (Linux and Apple), and the
    /// parallel `Test case 'ID' passed on 'Clone 1 of …' (0.5 seconds)`.
    static func xctestCase(_ l: ByteLine, _ events: inout [TestEvent]) -> Bool {
        guard l.has("Test Case '", at: 0) || l.has("Test case '", at: 0),
              let close = l.index(of: UInt8(ascii: "'"), from: 11), l[close + 1] == 32 else { return false }
        let id = xctestIdentifier(l, 11, close)
        var p = close + 2
        let status: TestStatus
        if l.has("started", at: p) {
            events.append(.testStarted(id, framework: .xctest))
            return true
        } else if l.has("passed", at: p) {
            status = .passed; p += 6
        } else if l.has("failed", at: p) {
            status = .failed; p += 6
        } else if l.has("skipped", at: p) {
            status = .skipped; p += 7
        } else {
            return false
        }
        var clone: String?
        if l.has(" on '", at: p), let end = l.index(of: UInt8(ascii: "'"), from: p + 5) {
            clone = l.string(p + 5, end)
            p = end + 1
        }
        var seconds: Double?
        if l.has(" (", at: p) {
            p += 2
            seconds = l.double(at: &p)
        }
        events.append(.testFinished(id, status: status, seconds: seconds, framework: .xctest, clone: clone))
        return true
    }

    /// `Test Suite 'X' started|passed|failed at …` (and `Test suite 'X' started on 'Clone …'`).
    static func xctestSuite(_ l: ByteLine, _ events: inout [TestEvent]) -> Bool {
        guard l.has("Test Suite '", at: 0) || l.has("Test suite '", at: 0),
              let close = l.index(of: UInt8(ascii: "'"), from: 12), l[close + 1] == 32 else { return false }
        let name = l.string(12, close)
        let p = close + 2
        if l.has("started", at: p) {
            events.append(.suiteStarted(name: name))
        } else if l.has("passed", at: p) {
            events.append(.suiteFinished(name: name, passed: true))
        } else if l.has("failed", at: p) {
            events.append(.suiteFinished(name: name, passed: false))
        } else {
            return false
        }
        return true
    }

    /// `Executed N tests, with [S tests skipped and ]F failures (U unexpected) in T (W) seconds`.
    static func xctestSummary(_ l: ByteLine, _ events: inout [TestEvent]) -> Bool {
        guard l.has("Executed ", at: 0) else { return false }
        var p = 9
        guard let executed = l.int(at: &p), l.has(" test", at: p) else { return false }
        var skipped = 0
        var failures = 0
        var unexpected = 0
        var seconds: Double?
        if let with = l.find(", with ", from: p) {
            p = with + 7
            if let first = l.int(at: &p) {
                if l.has(" test skipped and ", at: p) || l.has(" tests skipped and ", at: p) {
                    skipped = first
                    p += l[p + 5] == UInt8(ascii: "s") ? 19 : 18
                    failures = l.int(at: &p) ?? 0
                } else {
                    failures = first
                }
            }
        }
        if let open = l.find(" (", from: p) {
            var q = open + 2
            if let u = l.int(at: &q), l.has(" unexpected)", at: q) {
                unexpected = u
                p = q
            }
        }
        if let inAt = l.find(" in ", from: p) {
            var q = inAt + 4
            seconds = l.double(at: &q)
        }
        events.append(.xctestSummary(executed: executed, skipped: skipped, failures: failures,
                                     unexpected: unexpected, seconds: seconds))
        return true
    }

    /// `-[Module.Class testX]` → (`Module.Class`, `testX`); `Suite.test` / `Class.test()` →
    /// (`Suite`, `test`): the `()` of the parallel form is dropped so both forms name a test alike.
    static func xctestIdentifier(_ l: ByteLine, _ lo: Int, _ hi: Int) -> TestIdentifier {
        if l.has("-[", at: lo), l[hi - 1] == UInt8(ascii: "]"),
           let space = l.index(of: 32, from: lo + 2), space < hi - 1 {
            return TestIdentifier(suite: l.string(lo + 2, space), name: l.string(space + 1, hi - 1))
        }
        var end = hi
        if end - lo > 2, l[end - 2] == UInt8(ascii: "("), l[end - 1] == UInt8(ascii: ")") { end -= 2 }
        var dot = end - 1
        while dot >= lo, l[dot] != UInt8(ascii: ".") { dot -= 1 }
        guard dot >= lo else { return TestIdentifier(suite: "", name: l.string(lo, end)) }
        return TestIdentifier(suite: l.string(lo, dot), name: l.string(dot + 1, end))
    }
}

// MARK: - Swift Testing

extension LineKind {
    /// A line that starts with a symbol glyph: Linux (◇ ✔ ✘ ➜ ↳ ⚠ …) or the macOS SF Symbols
    /// private-use characters (U+10xxxx), optionally followed by a variation selector, then blanks.
    /// The glyph only says "Swift Testing"; the words after it say what happened.
    static func swiftTesting(_ l: ByteLine, _ events: inout [TestEvent]) -> Bool {
        var p = ByteLine.scalarLength(lead: l[0])
        if l[p] == 0xEF, l[p + 1] == 0xB8, l[p + 2] == 0x8E || l[p + 2] == 0x8F { p += 3 }
        guard l[p] == 32 else { return false }
        while l[p] == 32 { p += 1 }

        if l.has("Test run with ", at: p) { return runSummary(l, p + 14, &events) }
        if l.has("Test run started", at: p) { return true }
        if l.has("Test ", at: p) { return testLine(l, p + 5, &events) }
        if l.has("Suite ", at: p) { return suiteLine(l, p + 6, &events) }
        if l.has("Program crashed:", at: p) {
            events.append(.crash(message: l.string(from: p)))
            return true
        }
        return false
    }

    /// A test or suite name at `p`: `name()` up to the next blank, or a `"display name"`.
    /// Returns the name and the index after it.
    private static func swiftTestingName(_ l: ByteLine, _ p: Int) -> (String, Int)? {
        if l[p] == UInt8(ascii: "\"") {
            var q = p + 1
            while let quote = l.index(of: UInt8(ascii: "\""), from: q) {
                if l[quote + 1] == 32 || quote + 1 == l.count { return (l.string(p + 1, quote), quote + 1) }
                q = quote + 1
            }
            return nil
        }
        let end = l.index(of: 32, from: p) ?? l.count
        guard end > p else { return nil }
        return (l.string(p, end), end)
    }

    private static func testLine(_ l: ByteLine, _ p: Int, _ events: inout [TestEvent]) -> Bool {
        guard let (name, after) = swiftTestingName(l, p) else { return false }
        let id = TestIdentifier(suite: "", name: name)
        var q = after
        // A parameterised test ends with `Test f(x:) with 2 test cases passed|failed after …`.
        if l.has(" with ", at: q) {
            if let at = l.find(" passed after ", from: q) ?? l.find(" failed after ", from: q) { q = at }
        }
        if l.has(" started", at: q) {
            events.append(.testStarted(id, framework: .swiftTesting))
        } else if l.has(" passed after ", at: q) {
            q += 14
            events.append(.testFinished(id, status: .passed, seconds: l.double(at: &q), framework: .swiftTesting, clone: nil))
        } else if l.has(" failed after ", at: q) {
            q += 14
            events.append(.testFinished(id, status: .failed, seconds: l.double(at: &q), framework: .swiftTesting, clone: nil))
        } else if l.has(" skipped", at: q) {
            q += 8
            var reason: String?
            if l.has(": \"", at: q) {
                var end = l.count
                if l[end - 1] == UInt8(ascii: ".") { end -= 1 }
                if l[end - 1] == UInt8(ascii: "\"") { end -= 1 }
                reason = l.string(q + 3, end)
            } else if l.has(": ", at: q) {
                reason = l.string(from: q + 2)
            }
            events.append(.testSkipped(id, reason: reason))
            events.append(.testFinished(id, status: .skipped, seconds: nil, framework: .swiftTesting, clone: nil))
        } else if l.has(" recorded an issue", at: q) {
            q += 18
            events.append(issue(l, id, q))
        } else {
            return false
        }
        return true
    }

    /// After `recorded an issue`: `[ with N arguments …] at File.swift:12:5: message`. The first
    /// ` at ` followed by `path:line:col: ` wins; without one the rest is the message.
    private static func issue(_ l: ByteLine, _ id: TestIdentifier, _ from: Int) -> TestEvent {
        var search = from
        while let at = l.find(" at ", from: search, anchor: 1) {
            if let (file, line, message) = location(l, at + 4) {
                return .testFailure(id, file: file, line: line, message: message)
            }
            search = at + 1
        }
        var q = from
        if l[q] == UInt8(ascii: ":") { q += 1 }
        while l[q] == 32 { q += 1 }
        return .testFailure(id, file: nil, line: nil, message: l.string(from: q))
    }

    /// `path:line:col: message` at `p`, where the path has no blank or colon. Bounded by the
    /// path's length, so repeated tries stay linear.
    private static func location(_ l: ByteLine, _ p: Int) -> (String, Int, String)? {
        var q = p
        while q < l.count, l[q] != UInt8(ascii: ":"), l[q] != 32 { q += 1 }
        guard q > p, l[q] == UInt8(ascii: ":") else { return nil }
        let file = l.string(p, q)
        q += 1
        guard let line = l.int(at: &q), l[q] == UInt8(ascii: ":") else { return nil }
        q += 1
        if l.int(at: &q) != nil {
            guard l[q] == UInt8(ascii: ":") else { return nil }
            q += 1
        }
        while l[q] == 32 { q += 1 }
        return (file, line, l.string(from: q))
    }

    private static func suiteLine(_ l: ByteLine, _ p: Int, _ events: inout [TestEvent]) -> Bool {
        guard let (name, q) = swiftTestingName(l, p) else { return false }
        if l.has(" started", at: q) {
            events.append(.suiteStarted(name: name))
        } else if l.has(" passed after ", at: q) {
            events.append(.suiteFinished(name: name, passed: true))
        } else if l.has(" failed after ", at: q) {
            events.append(.suiteFinished(name: name, passed: false))
        } else {
            return false
        }
        return true
    }

    /// After `Test run with `: `N tests [in M suites] passed|failed after T seconds[ with K issues].`
    private static func runSummary(_ l: ByteLine, _ from: Int, _ events: inout [TestEvent]) -> Bool {
        var p = from
        guard let tests = l.int(at: &p), l.has(" test", at: p) else { return false }
        var suites: Int?
        if let inAt = l.find(" in ", from: p), inAt <= p + 6 {
            var q = inAt + 4
            suites = l.int(at: &q)
            if suites != nil { p = q }
        }
        let passed: Bool
        if let at = l.find(" passed after ", from: p) {
            passed = true; p = at + 14
        } else if let at = l.find(" failed after ", from: p) {
            passed = false; p = at + 14
        } else {
            return false
        }
        let seconds = l.double(at: &p)
        var issues: Int?
        if let with = l.find(" with ", from: p) {
            var q = with + 6
            issues = l.int(at: &q)
        }
        events.append(.swiftTestingSummary(tests: tests, suites: suites, passed: passed, issues: issues, seconds: seconds))
        return true
    }
}

// MARK: - Crashes, build errors, metrics

extension LineKind {
    /// `XCFLEET-METRIC name=value unit=U key=value …` (METRIC.md). A value that is not a number
    /// makes the line unrecognised rather than a metric of 0.
    static func metric(_ l: ByteLine, _ events: inout [TestEvent]) -> Bool {
        guard l.has("XCFLEET-METRIC ", at: 0) else { return false }
        let words = l.string(from: 15).split(whereSeparator: { $0 == " " || $0 == "\t" })
        var name: String?
        var value: Double?
        var unit = ""
        var labels: [String: String] = [:]
        for word in words {
            guard let eq = word.firstIndex(of: "="), eq != word.startIndex else { continue }
            let key = String(word[..<eq])
            let val = String(word[word.index(after: eq)...])
            if name == nil {
                guard let number = Double(val), number.isFinite else { return false }
                name = key
                value = number
            } else if key == "unit" {
                unit = val
            } else {
                labels[key] = val
            }
        }
        guard let name, let value else { return false }
        events.append(.metric(Metric(name: name, value: value, unit: unit, labels: labels)))
        return true
    }

    /// `Restarting after unexpected exit, crash, or test timeout in …` (xcodebuild).
    static func restarting(_ l: ByteLine, _ events: inout [TestEvent]) -> Bool {
        guard l.has("Restarting after unexpected exit", at: 0) else { return false }
        events.append(.crash(message: l.string(from: 0)))
        return true
    }

    /// `Could not cast value of type '…' … to '…'` (a Swift runtime abort; Linux XCTest on a
    /// synchronous `@MainActor` test).
    static func couldNotCast(_ l: ByteLine, _ events: inout [TestEvent]) -> Bool {
        guard l.has("Could not cast value of type", at: 0) else { return false }
        events.append(.crash(message: l.string(from: 0)))
        return true
    }

    /// `Fatal error: …` at the start of a line (with a file prefix it is a `located` line).
    static func fatalError(_ l: ByteLine, _ events: inout [TestEvent]) -> Bool {
        guard l.has("Fatal error:", at: 0) else { return false }
        events.append(.crash(message: l.string(from: 0)))
        return true
    }

    /// `*** Program crashed: Aborted at 0x… ***` (the Swift backtracer on Linux).
    static func programCrashed(_ l: ByteLine, _ events: inout [TestEvent]) -> Bool {
        guard l.has("*** Program crashed:", at: 0) else { return false }
        var end = l.count
        while end > 4, l[end - 1] == UInt8(ascii: "*") || l[end - 1] == 32 { end -= 1 }
        events.append(.crash(message: l.string(4, end)))
        return true
    }

    /// `error: message` with no location: a build error, except SwiftPM's
    /// `error: … exited with unexpected signal code N`, which is a crash.
    static func bareError(_ l: ByteLine, _ events: inout [TestEvent]) -> Bool {
        guard l.has("error: ", at: 0) else { return false }
        if signalExit(l, &events) { return true }
        events.append(.buildError(file: nil, line: nil, message: l.string(from: 7)))
        return true
    }

    /// `… exited with unexpected signal code N` anywhere in a line.
    static func signalExit(_ l: ByteLine, _ events: inout [TestEvent]) -> Bool {
        guard l.find("xited with unexpected signal code", anchor: 6) != nil else { return false }
        events.append(.crash(message: l.string(from: 0)))
        return true
    }

    /// Lines that carry a location or a tool prefix before a colon, found by one scan over the
    /// line's colons:
    /// - `path:line: error: -[Module.Class test] : message` (Apple XCTest failure),
    /// - `path:line: error: Suite.test : message` (Linux XCTest failure),
    /// - `path:line[:col]: error: message` (compiler / build error; an XCTest failure never has
    ///   a column), `tool: error: message` (`xcodebuild: error:`, `clang: error:`),
    /// - `path:line: Fatal error: message` (crash),
    /// - `path:line: ID : Test skipped - reason` (XCTest skip).
    static func located(_ l: ByteLine, _ events: inout [TestEvent]) -> Bool {
        var from = 0
        while let colon = l.index(of: UInt8(ascii: ":"), from: from) {
            if l.has(": error: ", at: colon) {
                return locatedError(l, colon, &events)
            }
            if l.has(": Fatal error:", at: colon) {
                events.append(.crash(message: l.string(from: 0)))
                return true
            }
            if l[colon - 1] == 32, l.has(": Test skipped", at: colon) {
                return skipped(l, colon, &events)
            }
            from = colon + 1
        }
        return false
    }

    private static func locatedError(_ l: ByteLine, _ colon: Int, _ events: inout [TestEvent]) -> Bool {
        let messageStart = colon + 9
        // Up to two `:digits` groups right before the colon: `path:line` or `path:line:col`.
        var numbers: [Int] = []
        var end = colon
        while numbers.count < 2 {
            var s = end
            while s > 0, l[s - 1] &- 48 < 10 { s -= 1 }
            guard s < end, end - s <= 18, s > 0, l[s - 1] == UInt8(ascii: ":") else { break }
            var q = s
            guard let n = l.int(at: &q) else { break }
            numbers.insert(n, at: 0)
            end = s - 1
        }
        guard !numbers.isEmpty else {
            // `tool: error: message`: one short word without a path separator or blank.
            guard colon > 0, colon <= 40, l.index(of: 32, from: 0).map({ $0 >= colon }) ?? true,
                  l.index(of: UInt8(ascii: "/"), from: 0).map({ $0 >= colon }) ?? true else { return false }
            events.append(.buildError(file: nil, line: nil, message: l.string(from: messageStart)))
            return true
        }
        guard end > 0 else { return false }
        let file = l.string(0, end)
        let line = numbers[0]
        if numbers.count == 1, let (id, message) = xctestFailure(l, messageStart) {
            events.append(.testFailure(id, file: file, line: line, message: message))
        } else {
            events.append(.buildError(file: file, line: line, message: l.string(from: messageStart)))
        }
        return true
    }

    /// `-[Module.Class test] : message` or `Suite.test : message` at `p`.
    private static func xctestFailure(_ l: ByteLine, _ p: Int) -> (TestIdentifier, String)? {
        if l.has("-[", at: p) {
            guard let close = l.find("] : ", from: p + 2) else { return nil }
            return (xctestIdentifier(l, p, close + 1), l.string(from: close + 4))
        }
        guard let space = l.index(of: 32, from: p), l.has(" : ", at: space),
              let dot = l.index(of: UInt8(ascii: "."), from: p), dot < space else { return nil }
        return (xctestIdentifier(l, p, space), l.string(from: space + 3))
    }

    /// `path:line: ID : Test skipped - reason`, with `colon` at the `:` of ` : Test skipped`.
    private static func skipped(_ l: ByteLine, _ colon: Int, _ events: inout [TestEvent]) -> Bool {
        let idEnd = colon - 1
        var idStart = idEnd
        if l[idEnd - 1] == UInt8(ascii: "]") {
            // Walk back to the `-[` that opens the Apple form.
            while idStart > 1, !(l[idStart - 2] == UInt8(ascii: "-") && l[idStart - 1] == UInt8(ascii: "[")) { idStart -= 1 }
            idStart -= 2
        } else {
            while idStart > 0, l[idStart - 1] != 32 { idStart -= 1 }
        }
        let id: TestIdentifier? = idStart >= 0 && idStart < idEnd ? xctestIdentifier(l, idStart, idEnd) : nil
        var p = colon + 14
        var reason: String?
        if l.has(" - ", at: p) || l.has(": ", at: p) {
            p += l[p] == 32 ? 3 : 2
            reason = l.string(from: p)
        }
        events.append(.testSkipped(id, reason: reason))
        return true
    }
}
