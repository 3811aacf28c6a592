import Foundation
import XCFleetModel

/// Runs a local command to its end through `ProcessRunner` (own process group, deadlines,
/// cancellation, never on the concurrency pool) and collects its output, optionally feeding
/// `stdin` from a private temporary file (no pipe to block on, no SIGPIPE).
enum LocalCommand {
    struct Result: Sendable {
        var termination: CommandTermination
        var stdout: [UInt8]
        /// The last lines of stderr, joined with ` | ` (for error messages).
        var stderrTail: String
        /// Whether stdout was cut at the limit.
        var stdoutTruncated: Bool
    }

    static func run(_ arguments: [String], stdin: Data? = nil, directory: String? = nil, environment: [String: String] = [:],
                    deadlines: CommandDeadlines, stdoutLimit: Int = 1 << 20) async throws -> Result {
        let sink = OutputSink(limit: stdoutLimit + 1)
        var argv = arguments
        var inputFile: URL?
        if let stdin {
            let url = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("xcfleet-stdin-\(UUID().uuidString)")
            try await offPool {
                guard FileManager.default.createFile(atPath: url.path, contents: stdin, attributes: [.posixPermissions: 0o600]) else {
                    throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: url.path])
                }
            }
            inputFile = url
            argv = ["sh", "-c", "f=$1; shift; exec \"$@\" < \"$f\"", "sh", url.path] + arguments
        }
        defer { if let inputFile { try? FileManager.default.removeItem(at: inputFile) } }
        let termination = try await ProcessRunner.run(argv, directory: directory, environment: environment, deadlines: deadlines) { sink.add($0) }
        let out = sink.stdout
        return Result(termination: termination, stdout: Array(out.prefix(stdoutLimit)), stderrTail: sink.stderrTail,
                      stdoutTruncated: out.count > stdoutLimit)
    }
}
