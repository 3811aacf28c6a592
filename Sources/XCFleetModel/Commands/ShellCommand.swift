import Foundation
import XCFleetBasics

/// Which stream a chunk of command output came from.
public enum OutputStreamKind: String, Codable, Sendable {
    case stdout, stderr
}

/// Bytes a running command wrote, as they arrived (chunk boundaries are arbitrary:
/// a line or a UTF-8 character may be split across chunks).
public struct OutputChunk: Sendable {
    public var stream: OutputStreamKind
    public var bytes: [UInt8]

    public init(stream: OutputStreamKind, bytes: [UInt8]) {
        self.stream = stream
        self.bytes = bytes
    }
}

/// A command: an argument vector (quoted by the shell implementation, never joined by callers),
/// the working directory and extra environment.
public struct ShellCommand: Equatable, Sendable {
    public var arguments: [String]
    public var environment: [String: String]
    /// Bytes the command reads on its standard input (nil: none, the input is empty). What may be
    /// too long for a command line travels here: an SSH exec request carries about 32 KB, and Linux
    /// takes at most 128 KiB per argument.
    public var input: [UInt8]?

    public init(_ arguments: [String], environment: [String: String] = [:], input: [UInt8]? = nil) {
        self.arguments = arguments
        self.environment = environment
        self.input = input
    }
}

/// Deadlines for one command, enforced by the orchestrator.
public struct CommandDeadlines: Equatable, Sendable {
    /// Wall-clock limit for the whole command.
    public var total: Double
    /// Longest stretch without output.
    public var silence: Double

    public init(total: Double, silence: Double) {
        self.total = total
        self.silence = silence
    }
}

/// How a command ended. Only `.exited` and `.signaled` come from the command itself; the others
/// are the orchestrator's findings (the exit status is then unknown, never a fake 0).
public enum CommandTermination: Equatable, Codable, Sendable {
    case exited(Int32)
    case signaled(String)
    /// The deadline named (`total` or `silence`) expired; the process group was killed.
    case timedOut(String)
    /// The connection to the host broke before a clean close: the status is unknown.
    case connectionLost(String)
    /// The caller cancelled; the process group was killed.
    case cancelled

    public var isCleanSuccess: Bool { self == .exited(0) }
}

/// The result of pushing a workspace.
public enum PushOutcome: Equatable, Sendable {
    /// Sent the contents of `files` files the host lacked: `bytes` bytes in all (the file list and
    /// the blob stream).
    case pushed(bytes: Int, files: Int)
    /// The host already held every file; only the file list was sent.
    case unchanged
}

/// Infrastructure problems with a host. Any of these makes a job infra-failed (retried elsewhere),
/// never a test failure.
public struct RemoteShellError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Kind: String, Equatable, Sendable, Codable {
        case connect, hostKey, authentication, push, command, fetch, cleanup, toolchain, timeout
    }

    public var kind: Kind
    public var host: String
    public var message: String

    public init(_ kind: Kind, host: String, _ message: String) {
        self.kind = kind
        self.host = host
        self.message = message
    }

    public var description: String { "\(host): \(kind.rawValue): \(message)" }
}

extension RemoteShellError: UserFacingError {
    public var userMessage: String { description }
    public var exitCode: Int32 { UserFacingErrors.ExitCode.infrastructure }
}
