import Foundation
import XCFleetHostScripts
import XCFleetModel

/// Reads the host's answers to a push (`PushCacheScript`), the same for every transport.
enum BlobPush {
    /// What a check answered.
    enum CheckAnswer: Equatable {
        /// Every file is in the job directory (and the tree the host recorded, if any).
        case warm(PushCacheScript.Tree?)
        /// The diff's base is not the manifest named: the whole list is needed.
        case resend
        /// The hashes to send.
        case missing([String])
    }

    /// One check as sent: what went on stdin and how many files' contents were in it.
    struct Sent {
        var bytes = 0
        var filesAhead = 0
    }

    /// The check, naming the host's trees xcfleet remembers and sending a diff against the newest
    /// (`PushTreeMemory`); when the host asks for the whole list, a second check sends it. `run`
    /// performs one check with its input (`whole`: the second one, into the directory the first made)
    /// and returns its status, first line, the lines after it and stderr.
    static func check(_ plan: PushCacheScript.Plan, host: HostSpec, limit: Double,
                      run: ([[UInt8]], _ whole: Bool) async throws -> (CommandTermination, String?, [String], [UInt8])) async throws -> (CheckAnswer, Sent) {
        let memory = try await offPool { PushTreeMemory.load(host) }
        var input = plan.checkInput(trees: memory.trees, base: memory.base)
        var sent = Sent(bytes: input.bytes, filesAhead: input.filesAhead)
        var (status, first, rest, stderr) = try await run(input.chunks, false)
        var answer = try Self.answer(plan, status: status, first: first, rest: rest, stderr: stderr, host: host.name, workRoot: host.workRoot, limit: limit)
        if answer == .resend {
            input = plan.checkInput(trees: memory.trees, base: nil)
            sent.bytes += input.bytes
            (status, first, rest, stderr) = try await run(input.chunks, true)
            answer = try Self.answer(plan, status: status, first: first, rest: rest, stderr: stderr, host: host.name, workRoot: host.workRoot, limit: limit)
            if answer == .resend { throw RemoteShellError(.push, host: host.name, "the push check asked for the whole file list twice") }
        }
        if case .warm(let tree?) = answer { try await offPool { PushTreeMemory.remember(tree, plan: plan, host: host) } }
        return (answer, sent)
    }

    /// A fill's last line named the job tree the host recorded: remember it.
    static func filled(_ line: String?, plan: PushCacheScript.Plan, host: HostSpec) async throws {
        guard let line, let tree = PushCacheScript.Tree(line: line) else { return }
        try await offPool { PushTreeMemory.remember(tree, plan: plan, host: host) }
    }

    /// What a push sent when the check ended it: nothing but the list, or the contents sent ahead.
    static func outcome(_ sent: Sent) -> PushOutcome {
        sent.filesAhead == 0 ? .unchanged : .pushed(bytes: sent.bytes, files: sent.filesAhead)
    }

    /// What the host answered a check.
    static func answer(_ plan: PushCacheScript.Plan, status: CommandTermination, first: String?, rest: [String], stderr: [UInt8],
                       host: String, workRoot: String, limit: Double) throws -> CheckAnswer {
        if status == .exited(0), let first, PushCacheScript.starts(first, with: PushCacheScript.warmLine) { return .warm(PushCacheScript.Tree(line: first)) }
        if status == .exited(0), first == PushCacheScript.resendLine { return .resend }
        if status == .exited(0), let first, PushCacheScript.coldLines.contains(first) {
            guard let missing = plan.missing(in: rest), !missing.isEmpty else {
                throw RemoteShellError(.push, host: host, "the push check's list of missing files is malformed")
            }
            return .missing(missing)
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

    /// The fill's first stdout line when it says the job directory is complete.
    static func filledLine(_ stdout: [UInt8]) -> String? {
        let first = String(decoding: stdout, as: UTF8.self).split(separator: "\n").first.map(String.init)
        return PushCacheScript.starts(first, with: PushCacheScript.filledLine) ? first : nil
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
