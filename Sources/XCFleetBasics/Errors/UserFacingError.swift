import Foundation

/// An error that says, in words for the person at the terminal, what went wrong and what to fix,
/// and which documented exit code it ends the command with (README "Exit codes"). Every public
/// error type of the library adopts it; the executable turns errors into text and exit codes in
/// one place (`UserFacingErrors.report`), so nothing reaches the user as a Swift value dump.
public protocol UserFacingError: Error {
    /// One line saying what to fix. Only an error that lists several problems found together
    /// (a plan's validation) has one line per problem.
    var userMessage: String { get }
    /// `UserFacingErrors.ExitCode.usage` (bad usage or invalid input) or `.infrastructure`.
    var exitCode: Int32 { get }
    /// The command the message is about (`flaky`): the line then starts `xcfleet flaky:`.
    var commandPath: String? { get }
    /// Whether every line already says where it is (`file:line:col: …`) and is printed as is.
    var linesNameTheirPlace: Bool { get }
}

extension UserFacingError {
    public var commandPath: String? { nil }
    public var linesNameTheirPlace: Bool { false }
}

/// Maps any error to the lines printed on stderr and the exit code.
public enum UserFacingErrors {
    /// The documented exit codes an error can end a command with (the same values as `Verdict.ExitCode`).
    public enum ExitCode {
        public static let usage: Int32 = 2
        public static let infrastructure: Int32 = 3
        public static let interrupted: Int32 = 130
    }

    /// The stderr text (without a trailing newline) and exit code for `error`.
    public static func report(_ error: any Error) -> (message: String, exitCode: Int32) {
        if let known = error as? any UserFacingError {
            if known.linesNameTheirPlace { return (known.userMessage, known.exitCode) }
            let head = known.commandPath.map { "xcfleet \($0): " } ?? "xcfleet: "
            return (head + oneLine(known.userMessage), known.exitCode)
        }
        if error is CancellationError { return ("xcfleet: interrupted", ExitCode.interrupted) }
        // An error type the library does not declare (Foundation's, a system call's): xcfleet
        // did not expect it where it happened, so it is reported as an infrastructure failure
        // (exit 3) in one line, never as a dump of the Swift value.
        let text = oneLine((error as? LocalizedError)?.errorDescription ?? error.localizedDescription)
        return ("xcfleet: unexpected error (\(type(of: error))): \(text); if it persists, report it with the command line", ExitCode.infrastructure)
    }

    /// Only `report`'s message text (for notes about one item of many, such as one run directory of an import).
    public static func message(_ error: any Error) -> String {
        if let known = error as? any UserFacingError { return oneLine(known.userMessage) }
        return oneLine((error as? LocalizedError)?.errorDescription ?? error.localizedDescription)
    }

    /// The first line of `text`: a message is never more than one line.
    static func oneLine(_ text: String) -> String {
        text.split(whereSeparator: \.isNewline).first.map(String.init) ?? text
    }
}
