import Foundation

/// `xcfleet flaky --suggest`: quarantine entries for the flakiest tests, ready to paste into
/// `Plans/quarantine.json` (owner to fill in; expiry two weeks out).
public enum QuarantineSuggestion {
    public static func json(for tests: [FlakyTest], minimumRate: Double, now: Date = Date()) -> String {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = TimeZone(identifier: "UTC")
        f.dateFormat = "yyyy-MM-dd"
        let expires = f.string(from: now.addingTimeInterval(14 * 86_400))
        let entries = tests.filter { $0.rate >= minimumRate }.map { t -> String in
            let reason = String(format: "flaky: %d of %d executions (%.0f%%), last seen %@", t.flakes, t.executions, t.rate * 100,
                                f.string(from: Date(timeIntervalSince1970: t.lastSeen)))
            return """
                {"suite": \(quote(t.suite)), "test": \(quote(t.test)), "reason": \(quote(reason)), "owner": "TODO", "expires": "\(expires)"}
            """
        }
        // Valid as the value of "tests" ({"tests": <this>}), and its entries paste into an existing array.
        let head = "// quarantine entries (owner to fill in): the value of \"tests\" in Plans/quarantine.json, {\"tests\": [ … ]}\n"
        return head + (entries.isEmpty ? "[]" : "[\n" + entries.joined(separator: ",\n") + ",\n]")
    }

    static func quote(_ s: String) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes] // `Class/test` reads as it is written in the quarantine file
        let data = (try? encoder.encode(s)) ?? Data("\"\"".utf8)
        return String(decoding: data, as: UTF8.self)
    }
}
