import CLibPQ
import Foundation
import XCFleetModel

/// The team backend: a PostgreSQL server through libpq, chosen with a URL
/// (`postgresql://user:password@host:port/db`). The same SQL as SQLite; `?` placeholders are
/// numbered `$1…` here. A connect timeout and a statement timeout bound every call, so a slow
/// or dead server never stalls a run. Messages never carry the URL's credentials.
public final class PostgresConnection: SQLConnection {
    public let dialect = SQLDialect.postgresql
    private var conn: OpaquePointer?
    private let redacted: String
    private let secrets: [String]

    /// `connectTimeout` in whole seconds (libpq's minimum is 2); `statementTimeout` in seconds.
    /// `passfile` names a libpq password file (else libpq reads `PGPASSFILE` or `~/.pgpass`).
    public init(url: String, connectTimeout: Int = 5, statementTimeout: Double = 15, passfile: String? = nil) throws {
        redacted = HistoryLocation.redact(url)
        secrets = HistoryLocation.secrets(in: url)
        var keys = ["dbname", "connect_timeout", "application_name", "options"]
        var values = [url, String(max(2, connectTimeout)), "xcfleet", "-c statement_timeout=\(Int(statementTimeout * 1000)) -c client_min_messages=warning"]
        if let passfile { keys.append("passfile"); values.append(passfile) }
        let cKeys = keys.map { strdup($0) }
        let cValues = values.map { strdup($0) }
        defer { cKeys.forEach { free($0) }; cValues.forEach { free($0) } }
        var kp: [UnsafePointer<CChar>?] = cKeys.map { UnsafePointer($0) } + [nil]
        var vp: [UnsafePointer<CChar>?] = cValues.map { UnsafePointer($0) } + [nil]
        let handle = kp.withUnsafeMutableBufferPointer { k in
            vp.withUnsafeMutableBufferPointer { v in PQconnectdbParams(k.baseAddress, v.baseAddress, 1) }
        }
        guard let handle, PQstatus(handle) == CONNECTION_OK else {
            let message = handle.map { String(cString: PQerrorMessage($0)) } ?? "out of memory"
            PQfinish(handle)
            let clean = Self.clean(message, secrets: HistoryLocation.secrets(in: url))
            let timedOut = clean.contains("timeout") || clean.contains("timed out")
            throw SQLError(timedOut ? .timeout : .connect, "\(HistoryLocation.redact(url)): \(clean)")
        }
        conn = handle
    }

    deinit { close() }

    public func close() {
        if let conn { PQfinish(conn) }
        conn = nil
    }

    public func execute(_ sql: String, _ parameters: [SQLValue]) throws {
        let result = try run(sql, parameters)
        PQclear(result)
    }

    public func query(_ sql: String, _ parameters: [SQLValue]) throws -> [[SQLValue]] {
        let result = try run(sql, parameters)
        defer { PQclear(result) }
        let rowCount = PQntuples(result), columnCount = PQnfields(result)
        var rows: [[SQLValue]] = []
        rows.reserveCapacity(Int(rowCount))
        let types = (0..<columnCount).map { PQftype(result, $0) }
        for r in 0..<rowCount {
            var row: [SQLValue] = []
            row.reserveCapacity(Int(columnCount))
            for c in 0..<columnCount {
                if PQgetisnull(result, r, c) == 1 { row.append(.null); continue }
                let text = String(cString: PQgetvalue(result, r, c))
                switch types[Int(c)] {
                case 20, 21, 23: row.append(Int64(text).map { .integer($0) } ?? .text(text))
                case 700, 701, 1700: row.append(Double(text).map { .real($0) } ?? .text(text))
                default: row.append(.text(text))
                }
            }
            rows.append(row)
        }
        return rows
    }

    /// Tables without a primary key, written with `COPY … FROM STDIN` (no conflict can arise, and
    /// a run's rows are deleted before they are written again): the bulk of a run's rows.
    static let copyTables: Set<String> = ["tests", "metrics"]

    public func insertMany(table: String, columns: [String], rows: [[SQLValue]]) throws {
        if Self.copyTables.contains(table), !rows.isEmpty { return try copy(table: table, columns: columns, rows: rows) }
        // Multi-row VALUES, at most ~30,000 parameters per statement (the protocol allows 65,535).
        let perStatement = max(1, 30_000 / max(1, columns.count))
        var start = 0
        while start < rows.count {
            let chunk = rows[start..<min(rows.count, start + perStatement)]
            let one = "(" + Array(repeating: "?", count: columns.count).joined(separator: ",") + ")"
            let sql = "INSERT INTO \(table) (\(columns.joined(separator: ","))) VALUES "
                + Array(repeating: one, count: chunk.count).joined(separator: ",") + " ON CONFLICT DO NOTHING"
            try execute(sql, chunk.flatMap { $0 })
            start += chunk.count
        }
    }

    /// `COPY table (columns) FROM STDIN` in text format, sent in chunks of about 1 MiB.
    private func copy(table: String, columns: [String], rows: [[SQLValue]]) throws {
        guard let conn else { throw SQLError(.other, "\(redacted): connection is closed") }
        guard let start = PQexec(conn, "COPY \(table) (\(columns.joined(separator: ","))) FROM STDIN") else { throw failure() }
        let status = PQresultStatus(start)
        PQclear(start)
        guard status == PGRES_COPY_IN else { throw failure() }
        var buffer: [UInt8] = []
        buffer.reserveCapacity(1 << 20)
        var sendFailed = false
        func flush() {
            guard !buffer.isEmpty, !sendFailed else { return }
            let sent = buffer.withUnsafeBufferPointer { b in
                b.baseAddress!.withMemoryRebound(to: CChar.self, capacity: b.count) { PQputCopyData(conn, $0, Int32(b.count)) }
            }
            if sent != 1 { sendFailed = true }
            buffer.removeAll(keepingCapacity: true)
        }
        for row in rows {
            for (i, value) in row.enumerated() {
                if i > 0 { buffer.append(0x09) }
                Self.appendCopyField(value, to: &buffer)
            }
            buffer.append(0x0A)
            if buffer.count >= 1 << 20 { flush() }
        }
        flush()
        let ended = PQputCopyEnd(conn, sendFailed ? "xcfleet: sending rows failed" : nil)
        // Drain every result: the COPY's own, then nil.
        var problem: SQLError?
        while let result = PQgetResult(conn) {
            if PQresultStatus(result) != PGRES_COMMAND_OK && problem == nil {
                let message = String(cString: PQresultErrorMessage(result))
                let state = PQresultErrorField(result, Int32(UInt8(ascii: "C"))).map { String(cString: $0) } ?? ""
                problem = SQLError(state == "57014" ? .timeout : state == "53100" ? .full : .other,
                                   "\(redacted): \(Self.clean(message, secrets: secrets))")
            }
            PQclear(result)
        }
        if let problem { throw problem }
        if ended != 1 || sendFailed { throw failure() }
    }

    /// One field in COPY's text format: `\N` for NULL; backslash, tab, newline and carriage
    /// return escaped; NUL bytes (which PostgreSQL text cannot hold) dropped.
    static func appendCopyField(_ value: SQLValue, to buffer: inout [UInt8]) {
        switch value {
        case .null: buffer.append(contentsOf: [0x5C, 0x4E])
        case .integer(let v): buffer.append(contentsOf: String(v).utf8)
        case .real(let v): buffer.append(contentsOf: String(v).utf8)
        case .text(let s):
            for byte in s.utf8 {
                switch byte {
                case 0x00: continue
                case 0x5C: buffer.append(contentsOf: [0x5C, 0x5C])
                case 0x09: buffer.append(contentsOf: [0x5C, 0x74])
                case 0x0A: buffer.append(contentsOf: [0x5C, 0x6E])
                case 0x0D: buffer.append(contentsOf: [0x5C, 0x72])
                default: buffer.append(byte)
                }
            }
        }
    }

    public func tableNames() throws -> [String] {
        try query("SELECT tablename FROM pg_tables WHERE schemaname = current_schema()", []).compactMap { $0.first?.string }
    }

    // MARK: Internals

    /// `?` → `$1, $2, …` (the history's SQL has no `?` inside string literals).
    static func numbered(_ sql: String) -> String {
        var out = ""
        out.reserveCapacity(sql.utf8.count + 16)
        var n = 0
        for ch in sql {
            if ch == "?" { n += 1; out += "$\(n)" } else { out.append(ch) }
        }
        return out
    }

    private func run(_ sql: String, _ parameters: [SQLValue]) throws -> OpaquePointer {
        guard let conn else { throw SQLError(.other, "\(redacted): connection is closed") }
        let text = parameters.isEmpty ? sql : Self.numbered(sql)
        let values: [UnsafeMutablePointer<CChar>?] = parameters.map { value in
            switch value {
            case .null: return nil
            case .integer(let v): return strdup(String(v))
            case .real(let v): return strdup(String(v))
            case .text(let s): return strdup(s)
            }
        }
        defer { values.forEach { free($0) } }
        var pointers: [UnsafePointer<CChar>?] = values.map { $0.map { UnsafePointer($0) } }
        let result = pointers.withUnsafeMutableBufferPointer { buffer in
            PQexecParams(conn, text, Int32(parameters.count), nil, buffer.baseAddress, nil, nil, 0)
        }
        guard let result else { throw failure() }
        let status = PQresultStatus(result)
        guard status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK else {
            let message = String(cString: PQresultErrorMessage(result))
            let state = PQresultErrorField(result, Int32(UInt8(ascii: "C"))).map { String(cString: $0) } ?? ""
            PQclear(result)
            let kind: SQLError.Kind = state == "57014" ? .timeout : state == "53100" ? .full
                : (state == "40001" || state == "40P01" || state == "55P03") ? .busy : .other
            throw SQLError(kind, "\(redacted): \(Self.clean(message, secrets: secrets))")
        }
        return result
    }

    private func failure() -> SQLError {
        let message = conn.map { String(cString: PQerrorMessage($0)) } ?? "no connection"
        return SQLError(PQstatus(conn) == CONNECTION_BAD ? .connect : .other, "\(redacted): \(Self.clean(message, secrets: secrets))")
    }

    static func clean(_ message: String, secrets: [String]) -> String {
        var line = message.split(whereSeparator: \.isNewline).first.map(String.init) ?? message
        for secret in secrets where !secret.isEmpty { line = line.replacingOccurrences(of: secret, with: "***") }
        return line.trimmingCharacters(in: .whitespaces)
    }
}
