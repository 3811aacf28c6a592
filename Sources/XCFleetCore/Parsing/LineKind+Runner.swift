import XCFleetModel
// xcodebuild's own statements, crash lines of every runtime, UI-test activity assertions,
// and the recovery of result lines that another process spliced into.

extension LineKind {
    /// `** TEST SUCCEEDED **`, `** TEST FAILED **`, `** BUILD FAILED **`, `** TEST BUILD FAILED **`,
    /// `** TEST EXECUTE FAILED **`: xcodebuild's closing banner. `** BUILD SUCCEEDED **` says nothing
    /// about tests and gives no event.
    package static func banner(_ l: ByteLine, _ events: inout [TestEvent]) -> Bool {
        guard l.has("** ", at: 0), l.count >= 8, l.has(" **", at: l.count - 3) else { return false }
        let inner = l.string(3, l.count - 3)
        if inner.hasSuffix("FAILED") {
            events.append(.runnerStatement(failed: true, message: "** \(inner) **"))
        } else if inner == "TEST SUCCEEDED" || inner == "TEST EXECUTE SUCCEEDED" {
            events.append(.runnerStatement(failed: false, message: "** \(inner) **"))
        }
        return true
    }

    /// `Testing failed:` (xcodebuild's recap header).
    package static func testingFailed(_ l: ByteLine, _ events: inout [TestEvent]) -> Bool {
        guard l.count == 15, l.has("Testing failed:", at: 0) else { return false }
        events.append(.runnerStatement(failed: true, message: "Testing failed"))
        return true
    }

    /// `Failed to install or launch the test runner …` (xcodebuild).
    package static func failedTo(_ l: ByteLine, _ events: inout [TestEvent]) -> Bool {
        if l.has("Failed to install or launch the test runner", at: 0) {
            events.append(.runnerStatement(failed: true, message: l.string(from: 0)))
            return true
        }
        return false
    }

    /// Crash lines that start a line: the Swift runtime's `Precondition failed…` / `Assertion
    /// failed…` (`Fatal error:` has its own kind), a shell's signal report (`Illegal instruction`,
    /// `Segmentation fault`, `Bus error`, `Aborted`, `Trace/breakpoint trap`, `Floating point
    /// exception`, `Killed`, alone or with ` (core dumped)`; a `bash:` job report holding
    /// `(core dumped)`; zsh's `zsh: segmentation fault …`), the Linux backtracer's `Got backtrace:`
    /// / `Received signal N`, and an Apple crash report's `Exception Type:`.
    package static func crashLine(_ l: ByteLine, _ events: inout [TestEvent]) -> Bool {
        switch l[0] {
        case UInt8(ascii: "P"):
            guard l.has("Precondition failed", at: 0) else { return false }
        case UInt8(ascii: "A"):
            guard l.has("Assertion failed", at: 0) || signalWords(l, "Aborted") else { return false }
        case UInt8(ascii: "I"):
            guard signalWords(l, "Illegal instruction") else { return false }
        case UInt8(ascii: "S"):
            guard signalWords(l, "Segmentation fault") else { return false }
        case UInt8(ascii: "B"):
            guard signalWords(l, "Bus error") else { return false }
        case UInt8(ascii: "T"):
            guard signalWords(l, "Trace/breakpoint trap") else { return false }
        case UInt8(ascii: "K"):
            guard signalWords(l, "Killed") else { return false }
        case UInt8(ascii: "F"):
            guard signalWords(l, "Floating point exception") else { return false }
        case UInt8(ascii: "G"):
            guard l.has("Got backtrace:", at: 0) else { return false }
        case UInt8(ascii: "R"):
            guard l.has("Received signal ", at: 0) else { return false }
        case UInt8(ascii: "E"):
            guard l.has("Exception Type:", at: 0) else { return false }
        case UInt8(ascii: "b"):
            // A shell's job report: `bash: line 1:  4242 Bus error  (core dumped) swift test`.
            guard l.has("bash: ", at: 0), l.find("(core dumped)", anchor: 5) != nil else { return false }
        case UInt8(ascii: "z"):
            // zsh's: `zsh: segmentation fault  swift test`, `zsh: abort …`, `zsh: illegal hardware instruction …`.
            guard l.has("zsh: segmentation fault", at: 0) || l.has("zsh: abort", at: 0) || l.has("zsh: illegal hardware instruction", at: 0)
                || l.has("zsh: bus error", at: 0) || l.has("zsh: trace trap", at: 0) else { return false }
        default:
            return false
        }
        events.append(.crash(message: l.string(from: 0)))
        return true
    }

    /// `words` alone on the line, or followed by ` (core dumped)` / `: 9`.
    private static func signalWords(_ l: ByteLine, _ words: StaticString) -> Bool {
        let n = words.utf8CodeUnitCount
        guard l.has(words, at: 0) else { return false }
        return l.count == n || l.has(" (core dumped)", at: n) || l.has(": ", at: n)
    }

    /// XCUITest activity log: `t =     4.13s Assertion Failure: File.swift:63: XCTAssertTrue failed - msg`.
    /// The message may be empty (`XCTAssertTrue failed -`): the assertion is the message then.
    package static func activityAssertion(_ l: ByteLine, _ events: inout [TestEvent]) -> Bool {
        guard l.has("t =", at: 0), let at = l.find("s Assertion Failure: ", from: 3) else { return false }
        var p = at + 21
        // `File.swift:63: message`: the path ends at the first `:digits:`.
        var q = p
        while q < l.count, l[q] != UInt8(ascii: ":") { q += 1 }
        var file: String?
        var line: Int?
        if q < l.count {
            var r = q + 1
            if let n = l.int(at: &r), l[r] == UInt8(ascii: ":") {
                file = l.string(p, q)
                line = n
                p = r + 1
            }
        }
        while l[p] == 32 { p += 1 }
        var end = l.count
        while end > p, l[end - 1] == UInt8(ascii: "-") || l[end - 1] == 32 { end -= 1 }
        let message = l.string(p, end)
        events.append(.testFailure(nil, file: file, line: line, message: message.isEmpty ? "Assertion Failure" : message))
        return true
    }

    /// Anywhere in a line: `… exited with unexpected signal code N` (SwiftPM; crash) and
    /// xcodebuild's `<target> encountered an error (Early unexpected exit, …)` (the attempt is red).
    package static func anywhere(_ l: ByteLine, _ events: inout [TestEvent]) -> Bool {
        if signalExit(l, &events) { return true }
        // The statement ends with its parenthesis, and not as a build step's `(in target 'X' from
        // project 'Y')` does: an O(1) test spares other lines a second scan.
        if l[l.count - 1] == UInt8(ascii: ")"), l[l.count - 2] != UInt8(ascii: "'"),
           l.find("encountered an error (", anchor: 21) != nil {
            events.append(.runnerStatement(failed: true, message: l.string(from: 0)))
            return true
        }
        return false
    }

    /// One indented line of the `Failing tests:` block: `Class.test()`, `Module.Class.test()`,
    /// `-[Class test]`, `Module/Class/test()`, optionally followed by ` (…)` or ` on 'Device'`.
    package static func failingTestEntry(_ l: ByteLine, _ events: inout [TestEvent]) {
        var end = l.count
        if let on = l.find(" on '") { end = on }   // `Class.test() on 'iPhone 16'`
        if l[0] != UInt8(ascii: "-"), l[end - 1] == UInt8(ascii: ")"), let open = l.find(" ("), open < end { end = open }
        guard end > 0 else { return }
        var id = xctestIdentifier(l, 0, end)
        if let slash = id.suite.lastIndex(of: "/") { id.suite = String(id.suite[id.suite.index(after: slash)...]) }
        events.append(.failingTestListed(id))
    }

    /// A line no kind read. When it starts like a test result it is reported as unreadable; when
    /// another process printed in front of a result line (`bannerTest Case '…' passed …`), the
    /// result is read from where it starts.
    package static func unmatched(_ l: ByteLine, _ events: inout [TestEvent]) {
        if l[0] == UInt8(ascii: "T"), l.has("Test Case '", at: 0) || l.has("Test case '", at: 0) {
            events.append(.unreadableResult(line: l.number, text: l.string(from: 0)))
        }
        // Only a line that ends like a result line can hold one (an O(1) test keeps the common
        // case, a line of other output, from a second scan).
        let n = l.count
        switch l[n - 1] {
        case UInt8(ascii: ")"): guard l.has("seconds)", at: n - 8) else { return }
        case UInt8(ascii: "."): guard l.has("seconds).", at: n - 9) || l.has("started.", at: n - 8) else { return }
        default: return
        }
        var from = 1
        while let quote = l.index(of: UInt8(ascii: "'"), from: from) {
            let start = quote - 10
            if start > 0, l.has("Test ", at: start), l[start + 5] | 0x20 == UInt8(ascii: "c"), l.has("ase ", at: start + 6) {
                classify(l.suffix(from: start), into: &events)
                return
            }
            from = quote + 1
        }
    }
}

// MARK: - A banner spliced into a result line

extension LineKind {
    /// xcodebuild's closing banners, as they land inside another line when its stream and the
    /// test runner's interleave (`Test Case '…' pass** TEST SUCCEEDED **ed (0.1 seconds).`).
    private static let knownBanners: [StaticString] = [
        "** TEST SUCCEEDED **", "** TEST FAILED **", "** TEST EXECUTE SUCCEEDED **", "** TEST EXECUTE FAILED **",
        "** TEST BUILD SUCCEEDED **", "** TEST BUILD FAILED **", "** BUILD SUCCEEDED **", "** BUILD FAILED **",
        "** CLEAN SUCCEEDED **", "** ARCHIVE SUCCEEDED **", "** ARCHIVE FAILED **", "** ANALYZE SUCCEEDED **",
        "** ANALYZE FAILED **", "** INSTALL SUCCEEDED **",
    ]

    /// O(1): only a line that starts like a result line (XCTest's `Test Case '`, a Swift Testing
    /// glyph) or with a banner can hold a banner spliced into a result.
    @inline(__always)
    package static func mayHoldBanner(_ l: ByteLine) -> Bool {
        switch l[0] {
        case UInt8(ascii: "T"): return l.has("Test Case '", at: 0) || l.has("Test case '", at: 0)
        case UInt8(ascii: "*"): return l[1] == UInt8(ascii: "*") && l[2] == 32
        case 0xC0...0xF7: return true
        default: return false
        }
    }

    /// The first known banner inside the line, as `from..<to`; nil when there is none or the
    /// banner is the whole line.
    package static func splicedBanner(_ l: ByteLine) -> (Int, Int)? {
        var from = 0
        while let star = l.index(of: UInt8(ascii: "*"), from: from) {
            if l[star + 1] == UInt8(ascii: "*"), l[star + 2] == 32 {
                for banner in knownBanners where l.has(banner, at: star) {
                    let to = star + banner.utf8CodeUnitCount
                    return star == 0 && to == l.count ? nil : (star, to)
                }
            }
            from = star + 1
        }
        return nil
    }

    /// A line holding a banner at `from..<to`: the banner's statement, then the line without it.
    /// A banner in the middle of a line that reads cleanly as it is (a message quoting one) is
    /// left there. What still cannot be read after the cut is reported unreadable as usual.
    package static func rejoin(_ l: ByteLine, cutting from: Int, _ to: Int, into events: inout [TestEvent], depth: Int = 0) {
        if from > 0 && to < l.count {
            var asIs: [TestEvent] = []
            classify(l, into: &asIs)
            if !asIs.isEmpty, asIs.allSatisfy(readsCleanly) {
                events += asIs
                return
            }
        }
        _ = banner(ByteLine(bytes: UnsafeBufferPointer(rebasing: l.bytes[from..<to]), number: l.number), &events)
        var joined = Array(l.bytes[0..<from])
        joined.append(contentsOf: l.bytes[to...])
        // Blanks the banner left at the start (a banner in front of the result).
        while joined.first == 32 || joined.first == 9 { joined.removeFirst() }
        guard !joined.isEmpty else { return }
        joined.withUnsafeBufferPointer { buffer in
            let rest = ByteLine(bytes: buffer, number: l.number)
            if depth < 3, mayHoldBanner(rest), let (f, t) = splicedBanner(rest) {
                rejoin(rest, cutting: f, t, into: &events, depth: depth + 1)
            } else {
                classify(rest, into: &events)
            }
        }
    }

    /// An event read from a line holding a banner that makes sense with the banner left in.
    private static func readsCleanly(_ e: TestEvent) -> Bool {
        switch e {
        case .unreadableResult: return false
        case .testStarted(let id, _), .testFinished(let id, _, _, _, _), .testSkipped(let id?, _), .testFailure(let id?, _, _, _):
            return !id.name.contains("** ") && !id.suite.contains("** ") && !id.name.contains(" **")
        default: return true
        }
    }
}
