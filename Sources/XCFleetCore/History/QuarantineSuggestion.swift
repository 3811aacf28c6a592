import Foundation
import XCFleetModel

/// `xcfleet flaky --suggest`: quarantine entries for the flakiest tests, ready to paste into
/// `Plans/quarantine.json` (expiry two weeks out). The owner is `--owner`; without it the entries
/// carry an empty owner, which the loader rejects until a person or team is named.
public enum QuarantineSuggestion {
    /// `quarantined`: entries already in force (`flaky --suggest --quarantine FILE`); their tests
    /// are left out, and a comment says how many.
    public static func json(for tests: [FlakyTest], minimumRate: Double, now: Date, quarantined: [QuarantineEntry] = [], owner: String? = nil) -> String {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = TimeZone(identifier: "UTC")
        f.dateFormat = "yyyy-MM-dd"
        let expires = f.string(from: now.addingTimeInterval(14 * 86_400))
        let candidates = tests.filter { $0.rate >= minimumRate }
        let fresh = candidates.filter { t in !quarantined.contains { $0.suite == t.suite && $0.key == QuarantineEntry.key(t.test) } }
        let entries = fresh.map { t -> String in
            let reason = String(format: "flaky: %d of %d executions (%.0f%%), last seen %@", t.flakes, t.executions, t.rate * 100,
                                f.string(from: Date(timeIntervalSince1970: t.lastSeen)))
            return """
                {"suite": \(quote(t.suite)), "test": \(quote(t.test)), "reason": \(quote(reason)), "owner": \(quote(owner ?? "")), "expires": "\(expires)"}
            """
        }
        // Valid as the value of "tests" ({"tests": <this>}), and its entries paste into an existing array.
        var head = (owner == nil ? "// quarantine entries (fill in each \"owner\": the person or team who will fix the test; or pass --owner): the value" : "// quarantine entries: the value")
        head += " of \"tests\" in Plans/quarantine.json, {\"tests\": [ … ]}\n"
        let left = candidates.count - fresh.count
        if left > 0 { head += "// \(left) flaky test\(left == 1 ? " is" : "s are") already quarantined and left out\n" }
        return head + (entries.isEmpty ? "[]" : "[\n" + entries.joined(separator: ",\n") + ",\n]")
    }

    package static func quote(_ s: String) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes] // `Class/test` reads as it is written in the quarantine file
        let data = (try? encoder.encode(s)) ?? Data("\"\"".utf8)
        return String(decoding: data, as: UTF8.self)
    }
}
