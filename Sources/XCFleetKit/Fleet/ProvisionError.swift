import Foundation
import XCFleetBasics

/// A provisioner command failed for one host, or printed something unusable.
public struct ProvisionError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Stage: String, Equatable, Sendable {
        case create, release
    }

    public var stage: Stage
    /// The host's name (`prov-2`, or the name the provisioner gave it).
    public var host: String
    /// The command, for display (`./create-mac.sh --image sonoma`).
    public var command: String
    public var message: String

    public init(_ stage: Stage, host: String, command: [String], _ message: String) {
        self.stage = stage
        self.host = host
        self.command = Self.display(command)
        self.message = message
    }

    public var description: String {
        "\(host): provisioner \(stage.rawValue) command `\(command)`: \(message)"
    }

    /// Shell-like rendering of an argv for messages (never executed).
    static func display(_ argv: [String]) -> String {
        argv.map { arg in
            arg.isEmpty || arg.contains(where: { " \t\n\"'\\$`".contains($0) })
                ? "'" + arg.replacingOccurrences(of: "'", with: "'\\''") + "'" : arg
        }.joined(separator: " ")
    }
}

extension ProvisionError: UserFacingError {
    public var userMessage: String { description }
    public var exitCode: Int32 { UserFacingErrors.ExitCode.infrastructure }
}
