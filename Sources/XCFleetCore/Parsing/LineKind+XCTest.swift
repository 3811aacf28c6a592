import XCFleetModel
// XCTest line kinds: test cases, suites, summaries.

extension LineKind {
    /// `Test Case 'ID' started|passed|failed|skipped (0.001 seconds)` (Linux and Apple), and the
    /// parallel `Test case 'ID' passed on 'Clone 1 of …' (0.5 seconds)`.
    package static func xctestCase(_ l: ByteLine, _ events: inout [TestEvent]) -> Bool {
        guard l.has("Test Case '", at: 0) || l.has("Test case '", at: 0),
              let close = closingQuote(l, from: 11) else { return false }
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
        } else if l.has("exceeded execution time allowance", at: p) {
            // A timeout: its failure; the end line (or, when the process is killed, the collator)
            // makes it a failed, timed-out test.
            events.append(.testFailure(id, file: nil, line: nil, message: "Test " + l.string(from: p)))
            return true
        } else {
            return l.has("measured", at: p)   // a performance test's figures; its result line follows
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
    package static func xctestSuite(_ l: ByteLine, _ events: inout [TestEvent]) -> Bool {
        guard l.has("Test Suite '", at: 0) || l.has("Test suite '", at: 0),
              let close = closingQuote(l, from: 12) else { return false }
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
    package static func xctestSummary(_ l: ByteLine, _ events: inout [TestEvent]) -> Bool {
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

    /// The quote that closes a quoted test or suite name starting at `from`: the first `'` followed
    /// by a blank and a status word, so names holding apostrophes (`it doesn't crash`) are read whole.
    /// Falls back to the first `'` followed by a blank.
    package static func closingQuote(_ l: ByteLine, from: Int) -> Int? {
        var q = from
        var first: Int?
        while let quote = l.index(of: UInt8(ascii: "'"), from: q) {
            if l[quote + 1] == 32 {
                let p = quote + 2
                if l.has("started", at: p) || l.has("passed", at: p) || l.has("failed", at: p)
                    || l.has("skipped", at: p) || l.has("measured", at: p) || l.has("exceeded ", at: p) { return quote }
                if first == nil { first = quote }
            }
            q = quote + 1
        }
        return first
    }

    /// `-[Module.Class testX]` → (`Module.Class`, `testX`); `Suite.test` / `Class.test()` →
    /// (`Suite`, `test`): the `()` of the parallel form is dropped so both forms name a test alike;
    /// `Module.Suite/test()` → (`Module.Suite`, `test`).
    package static func xctestIdentifier(_ l: ByteLine, _ lo: Int, _ hi: Int) -> TestIdentifier {
        if l.has("-[", at: lo), l[hi - 1] == UInt8(ascii: "]"),
           let space = l.index(of: 32, from: lo + 2), space < hi - 1 {
            return TestIdentifier(suite: l.string(lo + 2, space), name: l.string(space + 1, hi - 1))
        }
        var end = hi
        if end - lo > 2, l[end - 2] == UInt8(ascii: "("), l[end - 1] == UInt8(ascii: ")") { end -= 2 }
        // `Suite.test`, or xcodebuild's `Module.Suite/test()` for Swift Testing: split at the
        // last `/` if any, else at the last `.` (before the first blank: a BDD name such as
        // `Spec.it rounds 1.5 up` keeps its own dots).
        var dot = end - 1
        while dot >= lo, l[dot] != UInt8(ascii: "/") { dot -= 1 }
        if dot < lo {
            dot = end - 1
            if let blank = l.index(of: 32, from: lo), blank < end { dot = blank - 1 }
            while dot >= lo, l[dot] != UInt8(ascii: ".") { dot -= 1 }
        }
        guard dot >= lo else { return TestIdentifier(suite: "", name: l.string(lo, end)) }
        return TestIdentifier(suite: l.string(lo, dot), name: l.string(dot + 1, end))
    }
}
