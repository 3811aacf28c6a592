import Foundation
import XCFleetBasics

/// Run ids name the run directory (`RUNS/ID/`), so they are validated like any name from input.
public enum RunID {
    public static let maxLength = 64

    /// Why `id` cannot be a run id, or nil: 1 to 64 ASCII letters, digits, '.', '_' or '-',
    /// not starting with '.' or '-' (so never `.`, `..`, a hidden folder or an option).
    public static func problem(_ id: String) -> String? {
        if id.isEmpty || id.utf8.count > maxLength { return "must be 1 to \(maxLength) characters" }
        guard id.unicodeScalars.allSatisfy({ $0.isASCII && (CharacterSet.alphanumerics.contains($0) || "._-".unicodeScalars.contains($0)) }) else {
            return "may contain only ASCII letters, digits, '.', '_' and '-'"
        }
        if id.hasPrefix(".") || id.hasPrefix("-") { return "must not start with '.' or '-'" }
        return SafePath.componentProblem(id)
    }

    /// `20261129-144233-3fa2c91b07`: sortable by time, with 40 random bits (collisions within
    /// the same second are negligible; a taken directory still makes the runner pick another).
    public static func make(now: Date = Date()) -> String {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = TimeZone(identifier: "UTC")
        f.dateFormat = "yyyyMMdd-HHmmss"
        var rng = SystemRandomNumberGenerator()
        let random = UInt64.random(in: 0..<(1 << 40), using: &rng)
        let hex = String(random, radix: 16)
        return f.string(from: now) + "-" + String(repeating: "0", count: 10 - hex.count) + hex
    }
}
