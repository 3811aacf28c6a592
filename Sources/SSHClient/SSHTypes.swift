import Foundation
import XCFleetBasics

/// Where to connect: a DNS name, IPv4 or IPv6 literal, a port and the login user.
public struct SSHTarget: Sendable, Equatable {
    public var host: String
    public var port: Int
    public var user: String

    public init(host: String, port: Int = 22, user: String) {
        self.host = host
        self.port = port
        self.user = user
    }

    /// The name OpenSSH looks up in known_hosts: `host` on port 22, `[host]:port` otherwise.
    public var knownHostsName: String { port == 22 ? host : "[\(host)]:\(port)" }
}

/// How to authenticate. Only ed25519 (and ECDSA) keys work with libssh2 1.10 against OpenSSH ≥ 8.8.
public enum SSHAuthMethod: Sendable {
    /// A private key file; `passphrase` is the decrypted secret itself (never logged).
    case keyFile(path: String, passphrase: String?)
    /// The ssh-agent at `socketPath` (nil: `SSH_AUTH_SOCK` of this process).
    case agent(socketPath: String?)
}

/// What to do with a host key that is not in the known_hosts file.
public enum SSHHostKeyPolicy: Sendable, Equatable {
    /// Unknown or changed key: refuse before authenticating.
    case strict
    /// Unknown key: accept and append a hashed line; changed key: refuse.
    case acceptNew
}

/// Deadlines (seconds) enforced on this side; none relies on the remote host.
public struct SSHDeadlines: Sendable, Equatable {
    /// TCP connect, per resolved address.
    public var connect: Double
    /// SSH handshake (key exchange) after TCP connect.
    public var handshake: Double
    /// User authentication.
    public var authentication: Double
    /// Opening a channel and starting a command; also the limit for small bookkeeping commands.
    public var operation: Double
    /// Interval of keepalive requests while waiting (0 disables).
    public var keepaliveInterval: Int
    /// Nothing at all received from the server for this long while waiting → connection lost.
    public var deadPeer: Double

    public init(connect: Double = 10, handshake: Double = 15, authentication: Double = 15,
                operation: Double = 30, keepaliveInterval: Int = 5, deadPeer: Double = 20) {
        self.connect = connect
        self.handshake = handshake
        self.authentication = authentication
        self.operation = operation
        self.keepaliveInterval = keepaliveInterval
        self.deadPeer = deadPeer
    }
}

/// The stream a chunk of output came from.
public enum SSHStream: Sendable, Equatable {
    case stdout, stderr
}

/// Standard input for a command: bytes, or a pull source called on the connection's thread
/// until it returns nil (then EOF is sent). Used to stream a tar archive without holding it whole.
public enum SSHInput: Sendable {
    case bytes([UInt8])
    case stream(@Sendable () throws -> [UInt8]?)
}

/// How a remote command ended. Only `.exited` and `.signaled` come from the command; the status
/// is trusted only after the channel closed cleanly (never a fake 0).
public enum SSHExitResult: Sendable, Equatable {
    case exited(Int32)
    /// Signal name without `SIG` (`TERM`, `KILL`).
    case signaled(String)
    case connectionLost(String)
    /// The named deadline (`total`, `silence`) expired; the process group was killed.
    case timedOut(String)
    /// The calling task was cancelled; the process group was killed.
    case cancelled
}

/// An SSH failure, with a message that says what to fix.
public struct SSHError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: String, Sendable, Equatable {
        case resolve, connect, handshake, hostKeyUnknown, hostKeyChanged, hostKeyFile
        case authentication, rsaUnsupported, keyFile, timeout, connectionLost, channel, input, closed
        /// The calling task was cancelled while connecting or opening a channel.
        case cancelled
    }

    public var kind: Kind
    /// `host:port` as given.
    public var host: String
    public var message: String

    public init(_ kind: Kind, host: String, _ message: String) {
        self.kind = kind
        self.host = host
        self.message = message
    }

    public var description: String { "\(host): \(message)" }
}

extension SSHError: UserFacingError {
    public var userMessage: String { description }
    public var exitCode: Int32 { UserFacingErrors.ExitCode.infrastructure }
}
