import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import XCFleetModel

/// Streaming parser from raw test-runner output (`swift test`, `xcodebuild`) to `TestEvent`s.
///
/// Feed bytes in chunks of any size as they arrive; each call returns the events of the lines
/// the chunk completed, in order, so the same bytes give the same events however they are
/// chunked. Lines end at LF, CR or CRLF. ANSI escape codes are removed before matching; invalid
/// UTF-8 is decoded with replacement characters; a line keeps at most `maxLineBytes` bytes (the
/// rest is dropped, its end still found), so memory stays bounded on a runaway line.
///
/// The recognised lines are the table in `LineKind` (see docs/parser.md). Count test results
/// from `.testFinished` only: a skip can also produce a `.testSkipped` carrying the reason.
public struct OutputParser: Sendable {
    /// Bytes kept of one line; the rest of a longer line is discarded.
    public static let maxLineBytes = 64 * 1024

    /// Bytes of the current, not yet terminated line (at most `maxLineBytes`).
    private var pending: [UInt8] = []
    /// The current line went past `maxLineBytes`; drop bytes until its end.
    private var overflowed = false
    /// Line number and multi-line block state (xcodebuild's `Failing tests:` block).
    private var state = LineState()

    /// What one line's meaning depends on from the lines before it.
    package struct LineState {
        /// 1-based number of the current line (LF-terminated lines).
        package var number = 1
        /// Inside xcodebuild's `Failing tests:` block: indented lines name failed tests.
        package var inFailingTests = false
    }

    public init() {}

    /// Bytes held for the current unterminated line (never more than `maxLineBytes`).
    package var bufferedByteCount: Int { pending.count }

    /// Feed bytes as they arrive (any chunking); returns the events completed by these bytes, in order.
    public mutating func consume<C: Collection>(_ bytes: C) -> [TestEvent] where C.Element == UInt8 {
        var events: [TestEvent] = []
        let done: Void? = bytes.withContiguousStorageIfAvailable { consume(buffer: $0, into: &events) }
        if done == nil {
            Array(bytes).withUnsafeBufferPointer { consume(buffer: $0, into: &events) }
        }
        return events
    }

    /// End of stream: parses a last unterminated line, if any, and resets the parser.
    public mutating func finish() -> [TestEvent] {
        var events: [TestEvent] = []
        var state = self.state
        if !pending.isEmpty {
            pending.withUnsafeBufferPointer { OutputParser.parseLine($0, &state, into: &events) }
        }
        pending.removeAll(keepingCapacity: false)
        overflowed = false
        self.state = LineState()
        return events
    }

    /// Convenience: the events of a whole output at once.
    public static func parse(_ data: Data) -> [TestEvent] {
        var parser = OutputParser()
        var events = parser.consume(data)
        events += parser.finish()
        return events
    }

    /// Convenience: the events of a whole output given as text.
    public static func parse(_ text: String) -> [TestEvent] {
        parse(Data(text.utf8))
    }

    // MARK: - Line splitting

    private mutating func consume(buffer: UnsafeBufferPointer<UInt8>, into events: inout [TestEvent]) {
        guard let base = buffer.baseAddress else { return }
        let n = buffer.count
        var start = 0
        while start < n {
            // The next LF (memchr is SIMD-fast), then any CRs before it: each ends a line too.
            let nl: Int
            if let hit = memchr(base + start, 10, n - start) {
                nl = base.distance(to: hit.assumingMemoryBound(to: UInt8.self))
            } else {
                nl = n
            }
            var segment = start
            while segment < nl, let hit = memchr(base + segment, 13, nl - segment) {
                let cr = base.distance(to: hit.assumingMemoryBound(to: UInt8.self))
                endLine(base, segment, cr, into: &events)
                segment = cr + 1
            }
            if nl < n {
                endLine(base, segment, nl, into: &events)
                state.number += 1
                start = nl + 1
            } else {
                append(base, segment, n)
                start = n
            }
        }
    }

    /// Keeps `lo..<hi` of an unterminated line, up to the cap.
    private mutating func append(_ base: UnsafePointer<UInt8>, _ lo: Int, _ hi: Int) {
        guard hi > lo, !overflowed else { return }
        let room = OutputParser.maxLineBytes - pending.count
        let take = min(room, hi - lo)
        if take > 0 {
            pending.append(contentsOf: UnsafeBufferPointer(start: base + lo, count: take))
        }
        if take < hi - lo { overflowed = true }
    }

    /// `lo..<hi` completes a line: parse it straight from the input when nothing is pending.
    private mutating func endLine(_ base: UnsafePointer<UInt8>, _ lo: Int, _ hi: Int, into events: inout [TestEvent]) {
        if pending.isEmpty && !overflowed {
            let kept = min(hi - lo, OutputParser.maxLineBytes)
            if kept > 0 {
                OutputParser.parseLine(UnsafeBufferPointer(start: base + lo, count: kept), &state, into: &events)
            }
            return
        }
        append(base, lo, hi)
        var state = self.state
        if !pending.isEmpty {
            pending.withUnsafeBufferPointer { OutputParser.parseLine($0, &state, into: &events) }
        }
        self.state = state
        pending.removeAll(keepingCapacity: pending.count <= 4096)
        overflowed = false
    }

    // MARK: - One line

    /// Strips ANSI codes, trims blanks and hands the line to the kinds table.
    package static func parseLine(_ raw: UnsafeBufferPointer<UInt8>, _ state: inout LineState, into events: inout [TestEvent]) {
        guard let base = raw.baseAddress, raw.count > 0 else { return }
        if memchr(base, 0x1B, raw.count) != nil {
            let clean = stripANSI(raw)
            clean.withUnsafeBufferPointer { trimmedLine($0, &state, into: &events) }
        } else {
            trimmedLine(raw, &state, into: &events)
        }
    }

    private static func trimmedLine(_ raw: UnsafeBufferPointer<UInt8>, _ state: inout LineState, into events: inout [TestEvent]) {
        var lo = 0
        var hi = raw.count
        // Blanks and invisible format characters (a zero-width space in front of a result line).
        while lo < hi {
            if raw[lo] == 32 || raw[lo] == 9 { lo += 1; continue }
            guard raw[lo] >= 0xC2 else { break }
            let n = ByteLine.invisibleLength(raw[lo], lo + 1 < hi ? raw[lo + 1] : 0, lo + 2 < hi ? raw[lo + 2] : 0)
            guard n > 0 else { break }
            lo += n
        }
        while hi > lo, raw[hi - 1] == 32 || raw[hi - 1] == 9 { hi -= 1 }
        guard hi > lo else { return }
        let line = ByteLine(bytes: UnsafeBufferPointer(rebasing: raw[lo..<hi]), number: state.number)
        if state.inFailingTests {
            // Indented lines under `Failing tests:` name tests (`Class.test()`, `-[Class test]`);
            // a `Target:` header groups them. The first line that is not indented ends the block
            // (blank lines do not: a CR LF line end would otherwise end it at once).
            if lo > 0 {
                if line[line.count - 1] != UInt8(ascii: ":") { LineKind.failingTestEntry(line, &events) }
                return
            }
            state.inFailingTests = false
        }
        if line.count == 14, line.has("Failing tests:", at: 0) {
            state.inFailingTests = true
            return
        }
        if LineKind.mayHoldBanner(line), let (from, to) = LineKind.splicedBanner(line) {
            LineKind.rejoin(line, cutting: from, to, into: &events)
            return
        }
        LineKind.classify(line, into: &events)
    }

    /// Removes CSI (`ESC [ … final`), OSC (`ESC ] … BEL|ESC \`) and two-byte escapes.
    package static func stripANSI(_ raw: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(raw.count)
        var i = 0
        let n = raw.count
        while i < n {
            let b = raw[i]
            guard b == 0x1B else {
                out.append(b)
                i += 1
                continue
            }
            i += 1
            guard i < n else { break }
            switch raw[i] {
            case UInt8(ascii: "["):
                i += 1
                while i < n, !(0x40...0x7E).contains(raw[i]) { i += 1 }
                i += 1
            case UInt8(ascii: "]"):
                i += 1
                while i < n {
                    if raw[i] == 0x07 { i += 1; break }
                    if raw[i] == 0x1B, i + 1 < n, raw[i + 1] == UInt8(ascii: "\\") { i += 2; break }
                    i += 1
                }
            default:
                i += 1
            }
        }
        return out
    }
}
