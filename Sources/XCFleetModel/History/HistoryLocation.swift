import Foundation
import XCFleetBasics

/// Where the history lives: the embedded SQLite file (default `.xcfleet/history.sqlite`, next to
/// the runs directory), a PostgreSQL server (`--history-url` / `XCFLEET_HISTORY_URL`), or nowhere
/// (`--no-history` / `XCFLEET_NO_HISTORY=1`).
public enum HistoryLocation: Equatable, Sendable, CustomStringConvertible {
    case sqlite(path: String)
    case postgres(url: String)

    /// Decides from the options and the environment; nil means history is off.
    /// `runsDirectory` is the parent of run directories (the SQLite file goes beside it).
    /// A URL (`--history-url`, `XCFLEET_HISTORY_URL`) must be `postgresql://` or `postgres://`:
    /// anything else throws `HistoryLocationError` (it is never taken for a file name — a file is
    /// named with `--history-db` only).
    public static func resolve(noHistory: Bool, url: String?, database: String?, runsDirectory: URL,
                               environment: [String: String] = ProcessInfo.processInfo.environment) throws -> HistoryLocation? {
        if noHistory || ["1", "true", "yes"].contains(environment["XCFLEET_NO_HISTORY"]?.lowercased() ?? "") { return nil }
        let fromEnvironment = url == nil
        if let url = url ?? environment["XCFLEET_HISTORY_URL"].flatMap({ $0.isEmpty ? nil : $0 }) {
            if let problem = urlProblem(url) {
                throw HistoryLocationError("\(fromEnvironment ? "XCFLEET_HISTORY_URL" : "--history-url") \(problem)")
            }
            return .postgres(url: url)
        }
        if let database = database ?? environment["XCFLEET_HISTORY_DB"].flatMap({ $0.isEmpty ? nil : $0 }) { return .sqlite(path: database) }
        return .sqlite(path: runsDirectory.standardizedFileURL.deletingLastPathComponent().appendingPathComponent("history.sqlite").path)
    }

    public static func isPostgres(_ url: String) -> Bool {
        url.hasPrefix("postgresql://") || url.hasPrefix("postgres://")
    }

    /// Why `url` is not a history URL (nil: it is one), safe to print: of the value it shows at
    /// most the scheme (the rest, or a libpq `key=value` string, may hold a password).
    public static func urlProblem(_ url: String) -> String? {
        if isPostgres(url) { return nil }
        let fix = "give postgresql://USER@HOST:5432/DB (the password in XCFLEET_HISTORY_URL or a passfile), or name a SQLite file with --history-db FILE"
        if let scheme = url.range(of: "://"), case let name = url[..<scheme.lowerBound], (1...20).contains(name.count),
           let first = name.first, first.isASCII, first.isLetter, name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+.-".contains($0)) }) {
            return "'\(name)://…' is not a PostgreSQL URL (the scheme must be postgresql or postgres; the rest is not shown: it may hold a password); \(fix)"
        }
        return "is not a postgresql:// URL (\(url.count) characters, not shown: it may hold a password); \(fix)"
    }

    /// Whether a URL carries a password (in its user info or as `password=`).
    public static func hasPassword(_ url: String) -> Bool {
        if let schemeEnd = url.range(of: "://") {
            let rest = url[schemeEnd.upperBound...]
            let hostEnd = rest.firstIndex(where: { $0 == "/" || $0 == "?" }) ?? rest.endIndex
            if let at = rest[..<hostEnd].lastIndex(of: "@"), rest[..<at].contains(":") { return true }
        }
        if let q = url.firstIndex(of: "?") {
            for pair in url[url.index(after: q)...].split(separator: "&") where pair.lowercased().hasPrefix("password=") { return true }
        }
        return false
    }

    /// Safe to print: a URL's user, password and `password=` parameter are replaced by `***`.
    public var description: String {
        switch self {
        case .sqlite(let path): return path
        case .postgres(let url): return Self.redact(url)
        }
    }

    /// Where writes that could not reach a server wait to be replayed (beside the runs directory).
    public static func pendingFile(runsDirectory: URL) -> URL {
        runsDirectory.standardizedFileURL.deletingLastPathComponent().appendingPathComponent("history-pending.txt")
    }

    /// `postgresql://user:pw@host/db?password=x` → `postgresql://***@host/db?password=***`.
    public static func redact(_ url: String) -> String {
        guard let schemeEnd = url.range(of: "://") else { return url }
        var rest = String(url[schemeEnd.upperBound...])
        let hostEnd = rest.firstIndex(where: { $0 == "/" || $0 == "?" }) ?? rest.endIndex
        if let at = rest[..<hostEnd].lastIndex(of: "@") {
            rest = "***" + rest[at...]
        }
        var out = String(url[..<schemeEnd.upperBound]) + rest
        if let q = out.firstIndex(of: "?") {
            let params = out[out.index(after: q)...].split(separator: "&").map { pair -> String in
                let parts = pair.split(separator: "=", maxSplits: 1)
                let key = parts.first.map(String.init) ?? ""
                return ["password", "user", "sslpassword"].contains(key.lowercased()) ? "\(key)=***" : String(pair)
            }
            out = String(out[..<q]) + "?" + params.joined(separator: "&")
        }
        return out
    }

    /// The credential strings of a URL (user, password, `password=` values), percent-decoded too,
    /// to scrub from server messages.
    public static func secrets(in url: String) -> [String] {
        var found: [String] = []
        if let schemeEnd = url.range(of: "://") {
            let rest = url[schemeEnd.upperBound...]
            let hostEnd = rest.firstIndex(where: { $0 == "/" || $0 == "?" }) ?? rest.endIndex
            if let at = rest[..<hostEnd].lastIndex(of: "@") {
                let info = rest[..<at]
                for part in info.split(separator: ":", maxSplits: 1) { found.append(String(part)) }
            }
        }
        if let q = url.firstIndex(of: "?") {
            for pair in url[url.index(after: q)...].split(separator: "&") {
                let parts = pair.split(separator: "=", maxSplits: 1)
                if parts.count == 2, ["password", "user", "sslpassword"].contains(parts[0].lowercased()) { found.append(String(parts[1])) }
            }
        }
        found += found.compactMap { $0.removingPercentEncoding }
        return Array(Set(found.filter { $0.count >= 2 })).sorted { $0.count > $1.count }
    }
}

/// A history URL or password file that cannot be used: bad input (exit 2), one line, no credentials.
public struct HistoryLocationError: Error, CustomStringConvertible, Equatable {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

extension HistoryLocationError: UserFacingError {
    public var userMessage: String { "history: " + message }
    public var exitCode: Int32 { UserFacingErrors.ExitCode.usage }
}
