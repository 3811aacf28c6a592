import Foundation
import XCFleetModel
import XCFleetCore
import XCFleetHostScripts

extension XcodebuildJob {
    /// After the result bundles were read, when a test failed: the failing tests' attachments
    /// exported on the Mac (`XCResultAttachments`, Xcode 16+) into the job directory — one folder
    /// per result bundle (a selection that ran in parts has several) — and what each manifest says
    /// of each file. Empty when nothing is to be fetched (no failure, an older Xcode, the export
    /// failed: then a note says why). Not run on a Mac by this project's tests.
    func exportFailureAttachments(_ session: Session, progress: @Sendable (Progress) -> Void) async
        -> [(folder: String, hints: [String: AttachmentFetcher.Hint])] {
        let failed = session.watcher.events().contains { e in
            switch e {
            case .testFailure, .crash: return true
            default: return false
            }
        }
        guard failed, XCResultAttachments.available(session.outcome.xcode) else { return [] }
        var exported: [(folder: String, hints: [String: AttachmentFetcher.Hint])] = []
        for (n, bundle) in resultBundles(session.outcome).enumerated() {
            let folder = XcodebuildDriver.join(directory, XCResultAttachments.folderName + (n == 0 ? "" : "-\(n + 1)"))
            if let one = await exportAttachments(bundle, to: folder, session, progress: progress) { exported.append(one) }
        }
        return exported
    }

    private func exportAttachments(_ bundle: String, to folder: String, _ session: Session, progress: @Sendable (Progress) -> Void) async
        -> (folder: String, hints: [String: AttachmentFetcher.Hint])? {
        do {
            let made = try await capture(ShellCommand(["mkdir", "-p", "-m", "700", "--", folder]), deadlines.query)
            let r = made.termination == .exited(0)
                ? try await capture(XCResultAttachments.exportCommand(bundle: bundle, output: folder, developerDir: session.outcome.developerDir), deadlines.query)
                : made
            guard r.termination == .exited(0) else {
                progress(.note("\(hostName): the result bundle's attachments were not exported (\(r.termination)): \(r.stderr.prefix(300))"))
                return nil
            }
            let manifest = try await shell.fetch(XcodebuildDriver.join(folder, "manifest.json"), in: directory)
            guard manifest.count <= 8 << 20 else { throw XCResultError(what: "xcresulttool export attachments", detail: "manifest.json is over 8 MiB") }
            var hints: [String: AttachmentFetcher.Hint] = [:]
            for e in try XCResultAttachments.parseManifest(manifest) { hints[e.file] = AttachmentFetcher.Hint(test: e.test, name: e.name) }
            return hints.isEmpty ? nil : (folder, hints)
        } catch is CancellationError {
            return nil
        } catch {
            progress(.note("\(hostName): the result bundle's attachments were not exported: \(error)"))
            return nil
        }
    }
}
