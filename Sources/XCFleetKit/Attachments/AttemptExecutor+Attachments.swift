import Foundation
import XCFleetModel
import XCFleetCore
import XCFleetHostScripts

extension AttemptExecutor {
    /// The run directory (the parent of `logs/`), where `attachments/` goes.
    var runDirectory: URL { logsDirectory.deletingLastPathComponent() }

    /// The attachments folder of the attempt whose job directory is `jobDirectory`.
    static func attachmentsFolder(jobDirectory: String) -> String {
        AttachmentScript.folder(jobDirectory: jobDirectory)
    }

    /// The test command with the attachments folder made and named in its environment.
    func withAttachmentsFolder(_ command: ShellCommand, jobDirectory: String) -> ShellCommand {
        AttachmentScript.wrap(command, folder: Self.attachmentsFolder(jobDirectory: jobDirectory))
    }

    /// The collect step's part for every driver: fetch the folder (and, for Xcode, each `extra`
    /// folder of a result bundle's exported files, `hints` naming them and their tests) and log
    /// what came back.
    func collectAttachments(jobDirectory: String, events: [TestEvent], extra: [(folder: String, hints: [String: AttachmentFetcher.Hint])] = []) async {
        let fetcher = AttachmentFetcher(shell: shell, ref: ref, runDirectory: runDirectory, budget: attachmentBudget,
                                        secrets: log.secrets + shell.host.secrets, seconds: job.spec.timeouts.push)
        var collected = await fetcher.fetch(folder: Self.attachmentsFolder(jobDirectory: jobDirectory), in: jobDirectory, events: events)
        for (n, extra) in extra.enumerated() {
            let more = await fetcher.fetch(folder: extra.folder, in: jobDirectory, events: events, hints: extra.hints,
                                           prefix: n == 0 ? "xcresult" : "xcresult-\(n + 1)")
            collected.files += more.files
            collected.leftOut += more.leftOut
        }
        if !collected.isEmpty { log.append(.attachments(ref, collected)) }
    }
}
