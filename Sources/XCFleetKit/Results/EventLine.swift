import Foundation
import XCFleetModel

/// Reads the lines that make up almost all of an `events.jsonl` without `JSONDecoder`: a `test`
/// event whose test event is `testStarted`, `testFinished`, `suiteStarted` or `suiteFinished`,
/// written exactly as `EventLog.append` writes it (keys sorted, no spaces, strings without
/// escapes or control characters, valid UTF-8). A line of any other form gives nil and is
/// decoded by `JSONDecoder` as before, so what a line means never depends on which of the two
/// read it (`EventLineTests` compares them on every kind).
package enum EventLine {
    package static func decode(_ line: UnsafeRawBufferPointer) -> RunEvent? {
        var r = Reader(bytes: line)
        return r.event()
    }

    private struct Reader {
        let bytes: UnsafeRawBufferPointer
        var at = 0

        init(bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

        // {"body":{"test":{"_0":{"attempt":1,"jobID":"log"},"event":{…}}},"seq":7,"t":0.003}
        mutating func event() -> RunEvent? {
            guard take(#"{"body":{"test":{"_0":{"attempt":"#), let attempt = int(), take(#","jobID":"#), let jobID = string(),
                  take(#"},"event":{"#), let event = testEvent(), take(#"}}},"seq":"#), let seq = int(), take(#","t":"#),
                  let t = double(), take("}"), at == bytes.count
            else { return nil }
            return RunEvent(seq: seq, t: t, body: .test(AttemptRef(jobID: jobID, attempt: attempt), event: event))
        }

        mutating func testEvent() -> TestEvent? {
            if take(#""testFinished":{"_0":"#) {
                guard let id = identifier() else { return nil }
                var clone: String?
                if take(#","clone":"#) {
                    guard let c = string() else { return nil }
                    clone = c
                }
                guard take(#","framework":"#), let framework = framework() else { return nil }
                var seconds: Double?
                if take(#","seconds":"#) {
                    guard let s = double() else { return nil }
                    seconds = s
                }
                guard take(#","status":"#), let status = status(), take("}") else { return nil }
                return .testFinished(id, status: status, seconds: seconds, framework: framework, clone: clone)
            }
            if take(#""testStarted":{"_0":"#) {
                guard let id = identifier(), take(#","framework":"#), let framework = framework(), take("}") else { return nil }
                return .testStarted(id, framework: framework)
            }
            if take(#""suiteStarted":{"name":"#) {
                guard let name = string(), take("}") else { return nil }
                return .suiteStarted(name: name)
            }
            if take(#""suiteFinished":{"name":"#) {
                guard let name = string(), take(#","passed":"#), let passed = bool(), take("}") else { return nil }
                return .suiteFinished(name: name, passed: passed)
            }
            return nil
        }

        mutating func identifier() -> TestIdentifier? {
            guard take(#"{"name":"#), let name = string(), take(#","suite":"#), let suite = string(), take("}") else { return nil }
            return TestIdentifier(suite: suite, name: name)
        }

        mutating func framework() -> TestFramework? {
            if take(#""xctest""#) { return .xctest }
            if take(#""swiftTesting""#) { return .swiftTesting }
            return nil
        }

        mutating func status() -> TestStatus? {
            if take(#""passed""#) { return .passed }
            if take(#""failed""#) { return .failed }
            if take(#""skipped""#) { return .skipped }
            return nil
        }

        mutating func bool() -> Bool? {
            if take("true") { return true }
            if take("false") { return false }
            return nil
        }

        /// The literal's bytes next: consumed.
        mutating func take(_ literal: StaticString) -> Bool {
            let n = literal.utf8CodeUnitCount
            guard bytes.count - at >= n else { return false }
            let p = literal.utf8Start
            for i in 0..<n where bytes[at + i] != p[i] { return false }
            at += n
            return true
        }

        /// A string without `\` or control characters, valid UTF-8.
        mutating func string() -> String? {
            guard at < bytes.count, bytes[at] == UInt8(ascii: "\"") else { return nil }
            let start = at + 1
            var i = start
            var ascii = true
            while i < bytes.count {
                let b = bytes[i]
                if b == UInt8(ascii: "\"") { break }
                if b == UInt8(ascii: "\\") || b < 0x20 { return nil }
                if b >= 0x80 { ascii = false }
                i += 1
            }
            guard i < bytes.count else { return nil }
            at = i + 1
            let text = UnsafeRawBufferPointer(rebasing: bytes[start..<i])
            if ascii { return String(decoding: text, as: UTF8.self) }
            return String(validating: text, as: UTF8.self)
        }

        /// A non-negative integer of at most 18 digits, without leading zeros.
        mutating func int() -> Int? {
            var i = at
            var value = 0
            while i < bytes.count, bytes[i] >= UInt8(ascii: "0"), bytes[i] <= UInt8(ascii: "9"), i - at < 18 {
                value = value * 10 + Int(bytes[i] - UInt8(ascii: "0"))
                i += 1
            }
            let digits = i - at
            guard digits > 0, !(digits > 1 && bytes[at] == UInt8(ascii: "0")) else { return nil }
            // A 19th digit (or a fraction, an exponent) is not this form.
            if i < bytes.count, bytes[i] >= UInt8(ascii: "0") && bytes[i] <= UInt8(ascii: "9") || bytes[i] == UInt8(ascii: ".")
                || bytes[i] == UInt8(ascii: "e") || bytes[i] == UInt8(ascii: "E") { return nil }
            at = i
            return value
        }

        /// A non-negative JSON number (`(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?`) that is a finite `Double`.
        mutating func double() -> Double? {
            var i = at
            func digits() -> Int {
                let from = i
                while i < bytes.count, bytes[i] >= UInt8(ascii: "0"), bytes[i] <= UInt8(ascii: "9") { i += 1 }
                return i - from
            }
            let intStart = i
            let whole = digits()
            guard whole > 0, !(whole > 1 && bytes[intStart] == UInt8(ascii: "0")) else { return nil }
            if i < bytes.count, bytes[i] == UInt8(ascii: ".") {
                i += 1
                guard digits() > 0 else { return nil }
            }
            if i < bytes.count, bytes[i] == UInt8(ascii: "e") || bytes[i] == UInt8(ascii: "E") {
                i += 1
                if i < bytes.count, bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") { i += 1 }
                guard digits() > 0 else { return nil }
            }
            guard i - at <= 64, let value = Double(String(decoding: UnsafeRawBufferPointer(rebasing: bytes[at..<i]), as: UTF8.self)),
                  value.isFinite else { return nil }
            at = i
            return value
        }
    }
}
