import Foundation
import XCFleetModel

/// Reading a crash line's text: which test xcodebuild says it restarted after, and where the
/// runtime says it stopped.
package enum CrashText {
    /// `Restarting after unexpected exit, crash, or test timeout in Class.test(); summary will …`
    /// or `… in -[Class test]; …` → the test named.
    package static func restartedTest(_ message: String) -> TestIdentifier? {
        guard message.hasPrefix("Restarting after"), let r = message.range(of: " in ") else { return nil }
        var name = message[r.upperBound...]
        if let semi = name.range(of: "; ") { name = name[..<semi.lowerBound] }
        if name.hasSuffix(".") { name = name.dropLast() }
        guard !name.isEmpty else { return nil }
        let bytes = Array(name.utf8)
        return bytes.withUnsafeBufferPointer { LineKind.xctestIdentifier(ByteLine(bytes: $0), 0, $0.count) }
    }

    /// `path:line: Fatal error: …` (also `Precondition failed`, `Assertion failed`) → (path, line);
    /// the older `Fatal error: message: file X.swift, line 12` → (X.swift, 12).
    package static func location(_ message: String) -> (String?, Int?) {
        for marker in [": Fatal error", ": Precondition failed", ": Assertion failed"] {
            guard let r = message.range(of: marker) else { continue }
            let head = message[..<r.lowerBound]
            if let colon = head.lastIndex(of: ":"), let line = Int(head[head.index(after: colon)...]), colon > head.startIndex {
                return (String(head[..<colon]), line)
            }
        }
        if let f = message.range(of: ": file ", options: .backwards),
           let l = message.range(of: ", line ", range: f.upperBound..<message.endIndex) {
            let digits = message[l.upperBound...].prefix { $0.isNumber }
            if let line = Int(digits) { return (String(message[f.upperBound..<l.lowerBound]), line) }
        }
        return (nil, nil)
    }
}
