import Foundation
import XCFleetBasics

/// One value bound to or read from a statement. The history schema only uses these four.
public enum SQLValue: Equatable, Sendable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)

    public var int: Int? {
        switch self {
        case .integer(let v): return Int(v)
        case .real(let v): return Int(v)
        case .text(let s): return Int(s)
        case .null: return nil
        }
    }
    public var double: Double? {
        switch self {
        case .integer(let v): return Double(v)
        case .real(let v): return v
        case .text(let s): return Double(s)
        case .null: return nil
        }
    }
    public var string: String? {
        switch self {
        case .text(let s): return s
        case .integer(let v): return String(v)
        case .real(let v): return String(v)
        case .null: return nil
        }
    }
}

extension SQLValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral {
    public init(stringLiteral value: String) { self = .text(value) }
    public init(integerLiteral value: Int) { self = .integer(Int64(value)) }
    public init(floatLiteral value: Double) { self = .real(value) }
    public init(_ value: String?) { self = value.map { .text($0) } ?? .null }
    public init(_ value: Int?) { self = value.map { .integer(Int64($0)) } ?? .null }
    public init(_ value: Double?) { self = value.flatMap { $0.isFinite ? .real($0) : nil } ?? .null }
    public init(_ value: Bool) { self = .integer(value ? 1 : 0) }
}

/// A blocking connection to one database. Statements use `?` placeholders (the PostgreSQL
/// backend numbers them); the SQL text is shared by both backends. Not thread-safe: a
/// `HistoryDatabase` owns one and calls it only from its own serial queue, never from the
/// Swift concurrency pool.
public protocol SQLConnection: AnyObject {
    /// `sqlite` or `postgresql` (for messages and the few type differences).
    var dialect: SQLDialect { get }
    /// Runs one statement (no result rows). Returns rows changed where the backend says.
    func execute(_ sql: String, _ parameters: [SQLValue]) throws
    /// Runs a query and returns every row.
    func query(_ sql: String, _ parameters: [SQLValue]) throws -> [[SQLValue]]
    /// Inserts many rows into `table` (fast path per backend: one prepared statement reused, or
    /// multi-row VALUES). Rows that collide with an existing key are skipped.
    func insertMany(table: String, columns: [String], rows: [[SQLValue]]) throws
    /// Names of the tables present (for the foreign-database check).
    func tableNames() throws -> [String]
    func close()
}

public enum SQLDialect: String, Sendable {
    case sqlite, postgresql
}

extension SQLConnection {
    public func execute(_ sql: String) throws { try execute(sql, []) }

    /// `body` inside BEGIN … COMMIT; rolled back when it throws.
    public func transaction<T>(_ body: () throws -> T) throws -> T {
        try execute(dialect == .sqlite ? "BEGIN IMMEDIATE" : "BEGIN")
        do {
            let value = try body()
            try execute("COMMIT")
            return value
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }
}

/// What went wrong in the database layer; `description` is one line, with no credentials.
public struct SQLError: Error, CustomStringConvertible, Equatable {
    public enum Kind: Equatable, Sendable { case busy, notADatabase, full, readOnly, connect, timeout, other }
    public var kind: Kind
    public var message: String
    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message.split(whereSeparator: \.isNewline).first.map(String.init) ?? message
    }
    public var description: String { message }
}

extension SQLError: UserFacingError {
    public var userMessage: String { "history database: \(message)" }
    public var exitCode: Int32 { UserFacingErrors.ExitCode.infrastructure }
}
