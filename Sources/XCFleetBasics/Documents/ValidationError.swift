import Foundation

/// One thing wrong with an input file, rendered as one line:
/// `Plans/x.json:12:5: suites[1].timeoutSeconds: must be between 1 and 86400 (got 0)`.
public struct ValidationProblem: Equatable, Hashable, Sendable, CustomStringConvertible {
    /// The file as the user named it.
    public var file: String
    /// JSON path of the offending value (`suites[1].timeouts.test`); empty for the whole file.
    public var path: String
    public var line: Int?
    public var column: Int?
    /// What is wrong and what to do about it.
    public var message: String

    public init(file: String, path: String, line: Int? = nil, column: Int? = nil, message: String) {
        self.file = file
        self.path = path
        self.line = line
        self.column = column
        self.message = message
    }

    public var description: String {
        var out = file
        if let line {
            out += ":\(line)"
            if let column { out += ":\(column)" }
        }
        out += ": "
        if !path.isEmpty { out += path + ": " }
        return out + message
    }
}

/// Every problem found in a plan or fleet file, reported together.
/// `description` is one line per problem, in document order.
public struct ValidationError: Error, Equatable, Sendable, CustomStringConvertible, LocalizedError {
    public var problems: [ValidationProblem]

    public init(problems: [ValidationProblem]) { self.problems = problems }

    public var description: String { problems.map(\.description).joined(separator: "\n") }
    public var errorDescription: String? { description }
}

/// Plan loading reports through the shared validation types.
public typealias PlanProblem = ValidationProblem
public typealias PlanValidationError = ValidationError
/// Fleet loading reports through the shared validation types.
public typealias FleetProblem = ValidationProblem
public typealias FleetValidationError = ValidationError

extension ValidationError: UserFacingError {
    /// Every problem, one `file:line:col: path: what to fix` line each (printed as is).
    public var userMessage: String { description }
    public var linesNameTheirPlace: Bool { true }
    public var exitCode: Int32 { UserFacingErrors.ExitCode.usage }
}
