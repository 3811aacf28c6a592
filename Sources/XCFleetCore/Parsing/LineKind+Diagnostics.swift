import XCFleetModel
// Crash, build-error, skip-with-location and probe metric line kinds.

extension LineKind {
    /// `XCFLEET-METRIC name=value unit=U key=value …` (METRIC.md). A value that is not a number
    /// makes the line unrecognised rather than a metric of 0.
    package static func metric(_ l: ByteLine, _ events: inout [TestEvent]) -> Bool {
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
    package static func restarting(_ l: ByteLine, _ events: inout [TestEvent]) -> Bool {
        guard l.has("Restarting after unexpected exit", at: 0) else { return false }
        events.append(.crash(message: l.string(from: 0)))
        return true
    }

    /// `Could not cast value of type '…' … to '…'` (a Swift runtime abort; Linux XCTest on a
    /// synchronous `@MainActor` test).
    package static func couldNotCast(_ l: ByteLine, _ events: inout [TestEvent]) -> Bool {
        guard l.has("Could not cast value of type", at: 0) else { return false }
        events.append(.crash(message: l.string(from: 0)))
        return true
    }

    /// `Fatal error: …` at the start of a line (with a file prefix it is a `located` line).
    package static func fatalErrorMessage(_ l: ByteLine, _ events: inout [TestEvent]) -> Bool {
        guard l.has("Fatal error:", at: 0) else { return false }
        events.append(.crash(message: l.string(from: 0)))
        return true
    }

    /// `*** Program crashed: Aborted at 0x… ***` (the Swift backtracer on Linux).
    package static func programCrashed(_ l: ByteLine, _ events: inout [TestEvent]) -> Bool {
        guard l.has("*** Program crashed:", at: 0) else { return false }
        var end = l.count
        while end > 4, l[end - 1] == UInt8(ascii: "*") || l[end - 1] == 32 { end -= 1 }
        events.append(.crash(message: l.string(4, end)))
        return true
    }

    /// `error: message` with no location: a build error, except SwiftPM's
    /// `error: … exited with unexpected signal code N`, which is a crash.
    package static func bareError(_ l: ByteLine, _ events: inout [TestEvent]) -> Bool {
        guard l.has("error: ", at: 0) else { return false }
        if signalExit(l, &events) { return true }
        events.append(.buildError(file: nil, line: nil, message: l.string(from: 7)))
        return true
    }

    /// `… exited with unexpected signal code N` anywhere in a line.
    package static func signalExit(_ l: ByteLine, _ events: inout [TestEvent]) -> Bool {
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
    package static func located(_ l: ByteLine, _ events: inout [TestEvent]) -> Bool {
        var from = 0
        while let colon = l.index(of: UInt8(ascii: ":"), from: from) {
            if l.has(": error: ", at: colon) {
                return locatedError(l, colon, &events)
            }
            if l.has(": Fatal error:", at: colon) || l.has(": Precondition failed", at: colon)
                || l.has(": Assertion failed", at: colon) {
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

    /// The tools whose `tool: error: …` lines are build errors.
    package static let buildTools: Set<String> = [
        "xcodebuild", "xcrun", "clang", "clang++", "cc", "c++", "gcc", "g++", "ld", "ld64", "ld64.lld", "ld.lld",
        "ld.gold", "lld", "swift", "swiftc", "swift-frontend", "swift-build", "swift-driver", "swift-package",
        "libtool", "lipo", "ar", "codesign", "actool", "ibtool", "xcstringstool", "momc", "mapc", "xcdatamodel",
        "error",
    ]

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
            // `tool: error: message` from a compiler, linker or build tool. Anything else
            // (`CoreData: error: …`, an app's own log line) is output, not a build error.
            guard colon > 0, colon <= 40, buildTools.contains(l.string(0, colon)) else { return false }
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
        // The name may hold blanks and commas (BDD frameworks): it ends at the first ` : `.
        guard let space = l.find(" : ", from: p),
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
