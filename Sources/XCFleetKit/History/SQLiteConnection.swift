import CSQLite3
import Foundation

/// The embedded backend: one SQLite file, WAL mode (readers never wait for the writer), a busy
/// timeout so that two xcfleet processes writing at once both land.
public final class SQLiteConnection: SQLConnection {
    public let dialect = SQLDialect.sqlite
    public let path: String
    private var db: OpaquePointer?
    private var cache: [String: OpaquePointer] = [:]

    /// Opens (creating when missing) `path`; a symbolic link is refused. `busyTimeout` is how long
    /// a writer waits for another one. `journalMode: nil` leaves the file as it is (nothing written)
    /// until `useWriteAheadLog()`: the caller first checks that the database is its own.
    public init(path: String, busyTimeout: Double = 10, journalMode: String? = "WAL") throws {
        self.path = path
        var handle: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_NOFOLLOW
        let rc = sqlite3_open_v2(path, &handle, flags, nil)
        guard rc == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open"
            sqlite3_close(handle)
            throw SQLError(Self.kind(rc), "\(path): \(message)")
        }
        db = handle
        sqlite3_busy_timeout(handle, Int32(busyTimeout * 1000))
        do {
            if journalMode != nil {
                // Setting the mode also proves the file is a database (a foreign file fails here).
                try useWriteAheadLog()
            } else {
                _ = try tableNames() // proves the file is a database without writing to it
            }
            try execute("PRAGMA synchronous=NORMAL")
            try execute("PRAGMA foreign_keys=OFF")
        } catch {
            close()
            throw error
        }
    }

    deinit { close() }

    /// Switches the database to WAL mode (readers never wait for the writer); writes its header.
    public func useWriteAheadLog() throws {
        _ = try query("PRAGMA journal_mode=WAL", [])
    }

    public func close() {
        for (_, stmt) in cache { sqlite3_finalize(stmt) }
        cache = [:]
        if let db { sqlite3_close_v2(db) }
        db = nil
    }

    public func execute(_ sql: String, _ parameters: [SQLValue]) throws {
        let stmt = try prepare(sql)
        defer { sqlite3_reset(stmt); sqlite3_clear_bindings(stmt) }
        try bind(stmt, parameters)
        var rc = sqlite3_step(stmt)
        while rc == SQLITE_ROW { rc = sqlite3_step(stmt) }
        guard rc == SQLITE_DONE else { throw error(rc) }
    }

    public func query(_ sql: String, _ parameters: [SQLValue]) throws -> [[SQLValue]] {
        let stmt = try prepare(sql)
        defer { sqlite3_reset(stmt); sqlite3_clear_bindings(stmt) }
        try bind(stmt, parameters)
        var rows: [[SQLValue]] = []
        let columns = sqlite3_column_count(stmt)
        while true {
            let rc = sqlite3_step(stmt)
            if rc == SQLITE_DONE { break }
            guard rc == SQLITE_ROW else { throw error(rc) }
            var row: [SQLValue] = []
            row.reserveCapacity(Int(columns))
            for i in 0..<columns {
                switch sqlite3_column_type(stmt, i) {
                case SQLITE_INTEGER: row.append(.integer(sqlite3_column_int64(stmt, i)))
                case SQLITE_FLOAT: row.append(.real(sqlite3_column_double(stmt, i)))
                case SQLITE_NULL: row.append(.null)
                default:
                    if let text = sqlite3_column_text(stmt, i) { row.append(.text(String(cString: text))) } else { row.append(.null) }
                }
            }
            rows.append(row)
        }
        return rows
    }

    public func insertMany(table: String, columns: [String], rows: [[SQLValue]]) throws {
        let marks = Array(repeating: "?", count: columns.count).joined(separator: ",")
        let sql = "INSERT INTO \(table) (\(columns.joined(separator: ","))) VALUES (\(marks)) ON CONFLICT DO NOTHING"
        for row in rows { try execute(sql, row) }
    }

    public func tableNames() throws -> [String] {
        try query("SELECT name FROM sqlite_master WHERE type='table'", []).compactMap { $0.first?.string }
    }

    // MARK: Internals

    private func prepare(_ sql: String) throws -> OpaquePointer {
        if let stmt = cache[sql] { return stmt }
        guard let db else { throw SQLError(.other, "\(path): database is closed") }
        var stmt: OpaquePointer?
        let rc = sqlite3_prepare_v2(db, sql, -1, &stmt, nil)
        guard rc == SQLITE_OK, let stmt else { throw error(rc) }
        cache[sql] = stmt
        return stmt
    }

    private func bind(_ stmt: OpaquePointer, _ parameters: [SQLValue]) throws {
        for (index, value) in parameters.enumerated() {
            let i = Int32(index + 1)
            let rc: Int32
            switch value {
            case .null: rc = sqlite3_bind_null(stmt, i)
            case .integer(let v): rc = sqlite3_bind_int64(stmt, i, v)
            case .real(let v): rc = sqlite3_bind_double(stmt, i, v)
            case .text(let s): rc = sqlite3_bind_text(stmt, i, s, -1, xcf_sqlite_transient())
            }
            guard rc == SQLITE_OK else { throw error(rc) }
        }
    }

    private func error(_ rc: Int32) -> SQLError {
        let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "error \(rc)"
        return SQLError(Self.kind(rc), "\(path): \(message)")
    }

    static func kind(_ rc: Int32) -> SQLError.Kind {
        switch rc & 0xFF {
        case SQLITE_BUSY, SQLITE_LOCKED: return .busy
        case SQLITE_NOTADB, SQLITE_CORRUPT: return .notADatabase
        case SQLITE_FULL: return .full
        case SQLITE_READONLY, SQLITE_CANTOPEN, SQLITE_PERM: return .readOnly
        default: return .other
        }
    }
}
