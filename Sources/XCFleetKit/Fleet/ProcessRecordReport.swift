import Foundation

/// One line of what the process-record reaper (`ProcessRecordScript.perlSubs`) says it did with a
/// record, read from the host's reply: `reaped TOKEN PGID STATUS` (killed, gone, reused) or
/// `ignored TOKEN WHY` (a record it did not act on). Anything else is not a report. Values come
/// from a host: they are kept to one short line of printable text.
public enum ProcessRecordReport: Equatable, Sendable {
    case reaped(token: String, pgid: String, status: String)
    case ignored(token: String, why: String)

    /// The statuses of a reaped record.
    public static let statuses: Set<String> = ["killed", "gone", "reused"]

    /// A reply line split at tabs; nil when it is not a reaper's report.
    public static func parse(_ fields: [String]) -> ProcessRecordReport? {
        guard let kind = fields.first, fields.count >= 3 else { return nil }
        let token = clean(fields[1], limit: 200)
        guard !token.isEmpty else { return nil }
        switch kind {
        case "reaped":
            guard fields.count == 4, !fields[2].isEmpty, fields[2].utf8.count <= 10, fields[2].utf8.allSatisfy({ (0x30...0x39).contains($0) }),
                  statuses.contains(fields[3]) else { return nil }
            return .reaped(token: token, pgid: fields[2], status: fields[3])
        case "ignored":
            return .ignored(token: token, why: clean(fields.dropFirst(2).joined(separator: " "), limit: 200))
        default:
            return nil
        }
    }

    /// Every report among a reply's lines.
    public static func reports(in lines: [[String]]) -> [ProcessRecordReport] { lines.compactMap(parse) }

    /// `gate-a1 4242 killed` / `gate-a1: the group leader runs as another user`.
    public var text: String {
        switch self {
        case .reaped(let token, let pgid, let status): return "\(token) \(pgid) \(status)"
        case .ignored(let token, let why): return "\(token): \(why.isEmpty ? "unreadable" : why)"
        }
    }

    /// Printable ASCII, others `?`, at most `limit` characters.
    static func clean(_ s: String, limit: Int) -> String {
        String(String(s.unicodeScalars.prefix(limit).map { (0x20...0x7E).contains($0.value) ? Character($0) : "?" }))
    }
}
