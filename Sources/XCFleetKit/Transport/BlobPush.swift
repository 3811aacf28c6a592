import Foundation
import XCFleetHostScripts
import XCFleetModel

/// Reads the host's answers to a push (`PushCacheScript`), the same for every transport.
enum BlobPush {
    /// nil: the check found every file (the job directory is complete); otherwise the hashes to send.
    static func answer(_ plan: PushCacheScript.Plan, status: CommandTermination, first: String?, rest: [String], stderr: [UInt8],
                       host: String, workRoot: String, limit: Double) throws -> [String]? {
        if status == .exited(0), first == PushCacheScript.warmLine { return nil }
        if status == .exited(0), let first, PushCacheScript.coldLines.contains(first) {
            guard let missing = plan.missing(in: rest), !missing.isEmpty else {
                throw RemoteShellError(.push, host: host, "the push check's list of missing files is malformed")
            }
            return missing
        }
        let said = message(stderr)
        switch status {
        case .exited(PushCacheScript.notPrivateStatus):
            throw RemoteShellError(.push, host: host, said.isEmpty ? "work root \(workRoot) is not private" : said)
        case .exited(PushCacheScript.noDirectoryStatus):
            throw RemoteShellError(.command, host: host, "cannot create a job directory under \(workRoot): \(said); check workRoot and free disk")
        case .exited(PushCacheScript.badInputStatus): throw RemoteShellError(.push, host: host, said)
        case .connectionLost(let why): throw RemoteShellError(.push, host: host, "connection lost: \(why)")
        case .timedOut: throw RemoteShellError(.timeout, host: host, "push did not finish within \(limit) s")
        case .cancelled: throw CancellationError()
        case .exited, .signaled:
            throw RemoteShellError(.push, host: host, "the push check ended with \(status): \(said); check that perl and its Digest::SHA exist on the host")
        }
    }

    /// The fill's stdout says the job directory is complete.
    static func filled(_ stdout: [UInt8]) -> Bool {
        String(decoding: stdout, as: UTF8.self).split(separator: "\n").first.map(String.init) == PushCacheScript.filledLine
    }

    /// Throws unless the fill completed the job directory (`filled`: its line was seen; a command
    /// chained after it then ran, and `status` is that command's).
    static func checkFill(status: CommandTermination, filled: Bool, stderr: [UInt8], host: String, directory: String) throws {
        if filled { return }
        switch status {
        case .connectionLost(let why): throw RemoteShellError(.push, host: host, "connection lost while sending the missing files: \(why)")
        case .timedOut: throw RemoteShellError(.timeout, host: host, "sending the missing files to \(directory) did not finish in time")
        case .cancelled: throw CancellationError()
        case .exited, .signaled:
            throw RemoteShellError(.push, host: host, "sending the missing files to \(directory) failed (\(status)): \(message(stderr))")
        }
    }

    /// The host's `xcfleet: …` line (without the prefix), else the tail of stderr.
    static func message(_ stderr: [UInt8]) -> String {
        let text = String(decoding: stderr.suffix(4096), as: UTF8.self)
        if let line = text.split(separator: "\n").first(where: { $0.hasPrefix("xcfleet: ") }) { return String(line.dropFirst(9)) }
        return String(text.suffix(500)).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
