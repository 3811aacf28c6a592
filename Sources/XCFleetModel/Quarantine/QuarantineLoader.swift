import Foundation
import XCFleetBasics

/// Reads and validates a quarantine file: JSON with comments and trailing commas, like plans;
/// every problem at once as `file:line:col: tests[2].expires: what to fix` (exit 2).
///
/// ```
/// {"tests": [
///   {"suite": "cache-gate", "test": "CacheTests/testEviction", "reason": "flaky on shared hosts",
///    "owner": "ana", "expires": "2026-12-31"},
/// ]}
/// ```
/// `xcfleet flaky --suggest` prints the array that goes under `"tests"`.
public enum QuarantineLoader {
    public static let fileName = "quarantine.json"
    public static let rootKeys = ["tests", "horizonDays"]
    /// How far ahead an entry may expire, unless the file's `horizonDays` says otherwise (at most `maxHorizonDays`).
    public static let defaultHorizonDays = 90
    package static let maxHorizonDays = 365
    /// Owners that name nobody: placeholders a person must replace (compared case-insensitively).
    package static let placeholderOwners: Set<String> = ["todo", "tbd", "tba", "fixme", "xxx", "owner", "none", "nobody", "noone", "no one",
                                                          "unknown", "unassigned", "n/a", "na", "someone", "anyone", "me", "?", "-", "changeme"]
    public static let entryKeys = ["suite", "test", "reason", "owner", "expires"]
    package static let maxText = 500

    /// The entries in force and warnings (entries for suites the plan does not have, expired
    /// entries). `expired` entries are not in `quarantine`: they forgive nothing, their tests count
    /// normally.
    public struct Loaded: Equatable, Sendable {
        public var quarantine: Quarantine
        public var warnings: [String]
        public var expired: [QuarantineEntry]

        package init(quarantine: Quarantine, warnings: [String], expired: [QuarantineEntry] = []) {
            self.quarantine = quarantine
            self.warnings = warnings
            self.expired = expired
        }
    }

    /// The default file for a plan: `quarantine.json` beside it.
    public static func defaultPath(forPlan planPath: String) -> String {
        let dir = (planPath as NSString).deletingLastPathComponent
        return dir.isEmpty ? fileName : (dir as NSString).appendingPathComponent(fileName)
    }

    /// Reads `path` through `InputFile` and validates it. `suites`: the plan's suite names (nil:
    /// no plan to check against). `today`: the UTC date entries expire against. `strict` (`plan
    /// check`): an expired entry is a problem; otherwise (runs) it is a warning and stops forgiving,
    /// so the day an entry runs out no pipeline stops before touching a host.
    public static func load(path: String, suites: [String]?, today: Date = Date(), strict: Bool = false) throws(ValidationError) -> Loaded {
        var reader = SchemaReader(file: path)
        guard let data = reader.readFile(path, limit: 4 << 20) else { throw ValidationError(problems: reader.sortedProblems) }
        return try parse(data, path: path, suites: suites, today: today, strict: strict)
    }

    public static func parse(_ data: Data, path: String, suites: [String]?, today: Date = Date(), strict: Bool = false) throws(ValidationError) -> Loaded {
        var r = SchemaReader(file: path)
        var entries: [QuarantineEntry] = []
        var expired: [QuarantineEntry] = []
        var warnings: [String] = []
        let todayText = dateFormatter.string(from: today)
        if let document = r.document(data), let root = r.object(SchemaField(node: document.root, path: .root)) {
            r.checkKeys(root, allowed: rootKeys)
            var horizon = defaultHorizonDays
            if let field = root.field("horizonDays") {
                horizon = r.int(field, in: 1...maxHorizonDays) ?? defaultHorizonDays
            }
            let latest = dateFormatter.string(from: today.addingTimeInterval(Double(horizon) * 86_400))
            if let field = r.required(root, "tests", hint: "list the quarantined tests, e.g. \"tests\": [{\"suite\": \"cache-gate\", \"test\": \"Class/testName\", \"reason\": \"…\", \"owner\": \"…\", \"expires\": \"YYYY-MM-DD\"}] (xcfleet flaky --suggest prints entries)") {
                if case .array(let nodes) = field.node.value {
                    var seen: [String: Int] = [:]
                    for (i, node) in nodes.enumerated() {
                        let f = SchemaField(node: node, path: field.path / i)
                        guard let object = r.object(f),
                              let entry = readEntry(object, latest: latest, horizon: horizon, reader: &r) else { continue }
                        let dupKey = entry.suite + "\u{1F}" + entry.key
                        if let line = seen[dupKey] {
                            r.report("duplicate entry for \(entry.suite) \(SchemaReader.excerpt(entry.test)) (also at line \(line)); keep one", at: f.path, f.position)
                            continue
                        }
                        seen[dupKey] = f.position.line
                        if let suites, !suites.contains(entry.suite) {
                            let at = object.field("suite")?.position ?? f.position
                            warnings.append("\(path):\(at): \(f.path.description).suite: no suite '\(SchemaReader.excerpt(entry.suite))' in the plan; the entry has no effect (plan suites: \(suites.joined(separator: ", ")))")
                        }
                        if entry.expires < todayText {
                            let what = "quarantine of \(SchemaReader.excerpt(entry.suite)) \(SchemaReader.excerpt(entry.test)) (owner \(SchemaReader.excerpt(entry.owner))) expired on \(entry.expires)"
                            if strict {
                                r.report("\(what); renew it with a later \"expires\" date (at most \(horizon) days ahead) or remove the entry (and fix the test)",
                                         at: object.path, object.position)
                            } else {
                                warnings.append("\(path):\(object.position): \(f.path.description): \(what): it no longer forgives, the test counts normally; renew it or remove the entry (xcfleet plan check fails on it)")
                                expired.append(entry)
                            }
                            continue
                        }
                        entries.append(entry)
                    }
                } else {
                    r.report("expected an array of entries, got \(field.node.value.kindDescription)", field)
                }
            }
        }
        guard r.problems.isEmpty else { throw ValidationError(problems: r.sortedProblems) }
        return Loaded(quarantine: Quarantine(entries: entries), warnings: warnings, expired: expired)
    }

    /// Whether `owner` names a person or team: it holds a letter and is not a placeholder (`TODO`, `?`, …).
    package static func ownerLooksReal(_ owner: String) -> Bool {
        let trimmed = owner.trimmingCharacters(in: .whitespaces)
        guard trimmed.unicodeScalars.contains(where: { CharacterSet.letters.contains($0) }) else { return false }
        let lower = trimmed.lowercased()
        if placeholderOwners.contains(lower) { return false }
        // `TODO: ana`, `tbd (cache)`: still a placeholder in front.
        for p in ["todo", "tbd", "fixme", "xxx"] where lower.hasPrefix(p) {
            let rest = lower.dropFirst(p.count)
            if rest.isEmpty || !(rest.first.map { $0.isLetter || $0.isNumber } ?? false) { return false }
        }
        return true
    }

    private static func readEntry(_ object: SchemaObject, latest: String, horizon: Int, reader r: inout SchemaReader) -> QuarantineEntry? {
        r.checkKeys(object, allowed: entryKeys)
        func text(_ key: String, _ hint: String) -> String? {
            guard let field = r.required(object, key, hint: hint), let s = r.nonEmptyString(field, what: hint) else { return nil }
            if s.count > maxText {
                r.report("must be at most \(maxText) characters (got \(s.count))", field)
                return nil
            }
            if s.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
                r.report("must not contain control characters or line breaks", field)
                return nil
            }
            return s
        }
        let suite = text("suite", "the plan suite the test belongs to")
        var test = text("test", "the test as Class/testName (or Module.Class/testName)")
        if let t = test, let field = object.field("test") {
            let name = t.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false).last.map(String.init) ?? ""
            // Swift Testing display names may hold spaces and slashes ("/Loader miss path"): only the name must be there.
            if name.isEmpty || name == "()" {
                r.report("expected Class/testName or Module.Class/testName (got '\(SchemaReader.excerpt(t))')", field)
                test = nil
            }
        }
        let reason = text("reason", "why the test is quarantined")
        var owner = text("owner", "who will fix it (a name or team)")
        if let o = owner, let field = object.field("owner"), !ownerLooksReal(o) {
            r.report("must name the person or team who will fix the test (e.g. \"ana\" or \"@org/cache-team\"), not a placeholder (got '\(SchemaReader.excerpt(o))')", field)
            owner = nil
        }
        var expires: String?
        if let field = r.required(object, "expires", hint: "give the last day as \"YYYY-MM-DD\" (UTC); a quarantine must end"),
           let s = r.string(field) {
            if !isDate(s) {
                r.report("expected a date as YYYY-MM-DD that exists, e.g. \"2026-12-31\" (got '\(SchemaReader.excerpt(s))')", field)
            } else if s > latest {
                r.report("\(s) is more than \(horizon) days ahead; a quarantine must end soon: give \(latest) or earlier and renew it when it runs out (\"horizonDays\" at the top of the file sets the limit, at most \(maxHorizonDays))", field)
            } else {
                expires = s
            }
        }
        guard let suite, let test, let reason, let owner, let expires else { return nil }
        return QuarantineEntry(suite: suite, test: test, reason: reason, owner: owner, expires: expires, line: object.position.line)
    }

    /// `YYYY-MM-DD` naming a real day.
    package static func isDate(_ s: String) -> Bool {
        let parts = s.split(separator: "-", omittingEmptySubsequences: false)
        guard s.utf8.count == 10, parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
              parts.allSatisfy({ $0.allSatisfy { $0.isASCII && $0.isNumber } }),
              let y = Int(parts[0]), let m = Int(parts[1]), let d = Int(parts[2]), (1...12).contains(m), d >= 1 else { return false }
        let days = [31, (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
        return d <= days[m - 1]
    }

    package static var dateFormatter: DateFormatter {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = TimeZone(identifier: "UTC")
        f.dateFormat = "yyyy-MM-dd"
        return f
    }
}
