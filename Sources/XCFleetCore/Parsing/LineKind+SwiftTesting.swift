import XCFleetModel
// Swift Testing line kinds: one symbol glyph, then `Test …`, `Suite …` or `Test run …`.

extension LineKind {
    /// A line that starts with a symbol glyph: Linux (◇ ✔ ✘ ➜ ↳ ⚠ …) or the macOS SF Symbols
    /// private-use characters (U+10xxxx), optionally followed by a variation selector, then blanks.
    /// The glyph only says "Swift Testing"; the words after it say what happened.
    package static func swiftTesting(_ l: ByteLine, _ events: inout [TestEvent]) -> Bool {
        var p = ByteLine.scalarLength(lead: l[0])
        if l[p] == 0xEF, l[p + 1] == 0xB8, l[p + 2] == 0x8E || l[p + 2] == 0x8F { p += 3 }
        // Blanks, with any invisible format characters among them (a zero-width space).
        let glyphEnd = p
        while true {
            if l[p] == 32 { p += 1; continue }
            let n = l.invisibleLength(at: p)
            guard n > 0 else { break }
            p += n
        }
        guard p > glyphEnd else { return false }

        if l.has("Test run with ", at: p) { return runSummary(l, p + 14, &events) }
        if l.has("Test run started", at: p) { return true }
        if l.has("Test ", at: p) {
            if testLine(l, p + 5, &events) { return true }
            // A result that cannot be read is reported, never dropped.
            if l.find(" passed after ", from: p) != nil || l.find(" failed after ", from: p) != nil {
                events.append(.unreadableResult(line: l.number, text: l.string(from: 0)))
                return true
            }
            return false
        }
        if l.has("Suite ", at: p) { return suiteLine(l, p + 6, &events) }
        if l.has("Attached '", at: p) { return attachedLine(l.string(from: p + 10), &events) }
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
            // A display name may hold quotes and blanks: prefer the quote followed by what a
            // test or suite line says next; else the first quote followed by a blank.
            var q = p + 1
            var first: Int?
            while let quote = l.index(of: UInt8(ascii: "\""), from: q) {
                if quote + 1 == l.count { return (l.string(p + 1, quote), quote + 1) }
                if l[quote + 1] == 32 {
                    let w = quote + 2
                    if l.has("started", at: w) || l.has("passed", at: w) || l.has("failed", at: w)
                        || l.has("skipped", at: w) || l.has("recorded", at: w) || l.has("with ", at: w) {
                        return (l.string(p + 1, quote), quote + 1)
                    }
                    if first == nil { first = quote }
                }
                q = quote + 1
            }
            return first.map { (l.string(p + 1, $0), $0 + 1) }
        }
        let end = l.index(of: 32, from: p) ?? l.count
        guard end > p else { return nil }
        return (l.string(p, end), end)
    }

    private static func testLine(_ l: ByteLine, _ start: Int, _ events: inout [TestEvent]) -> Bool {
        var p = start
        while case let n = l.invisibleLength(at: p), n > 0 { p += n }
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

    /// After `Attached '`: `NAME' to TEST.` (the name may hold quotes: the last `' to ` ends it).
    private static func attachedLine(_ rest: String, _ events: inout [TestEvent]) -> Bool {
        guard let to = rest.range(of: "' to ", options: .backwards) else { return false }
        let name = String(rest[..<to.lowerBound])
        var test = Substring(rest[to.upperBound...])
        if test.hasSuffix(".") { test = test.dropLast() }
        if test.count >= 2, test.hasPrefix("\""), test.hasSuffix("\"") { test = test.dropFirst().dropLast() }
        guard !name.isEmpty else { return false }
        events.append(.attachmentRecorded(test.isEmpty ? nil : TestIdentifier(suite: "", name: String(test)), name: name))
        return true
    }
}
