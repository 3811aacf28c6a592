import Foundation
import XCFleetBasics
import XCFleetModel
import XCFleetCore

/// The host side of an attempt's attachments (docs/attachments.md): the folder the test process
/// writes into, the listing that is judged before anything is sent (`attachments-list.pl`), and
/// the tar stream of the files chosen. Every command runs through the attempt's `RemoteShell`
/// (`LocalShell` or `SSHShell`), names passed as arguments, never as shell text.
package enum AttachmentScript {
    /// The variable that names the folder in the test process's environment.
    package static let variable = "XCFLEET_ATTACHMENTS_DIR"
    /// The folder, inside the job directory (fresh for every attempt).
    package static let folderName = ".xcfleet-attachments"

    package static func folder(jobDirectory: String) -> String {
        (jobDirectory.hasSuffix("/") ? String(jobDirectory.dropLast()) : jobDirectory) + "/" + folderName
    }

    /// `command`, with the folder made first (mode 700) and named in `XCFLEET_ATTACHMENTS_DIR`
    /// (and `TEST_RUNNER_XCFLEET_ATTACHMENTS_DIR`, which `xcodebuild` hands the test runner).
    package static func wrap(_ command: ShellCommand, folder: String) -> ShellCommand {
        var env = command.environment
        env[variable] = folder
        env["TEST_RUNNER_" + variable] = folder
        return ShellCommand(["sh", "-c", #"mkdir -p -m 700 -- "$1" || exit 125; shift; exec "$@""#, "sh", folder] + command.arguments,
                            environment: env, input: command.input)
    }

    /// `perl -e LIST FOLDER LIMIT DEPTH`.
    package static func list(folder: String) -> ShellCommand {
        ShellCommand(["perl", "-e", HostScriptSource.attachmentsListPerl, folder, String(AttachmentNames.listLimit), "8"])
    }

    /// `tar -c` of exactly `names` (relative to the folder), links archived as links (never
    /// followed), no recursion into folders. GNU tar and macOS bsdtar both read these options.
    package static func pack(folder: String, names: [String]) -> ShellCommand {
        ShellCommand(["tar", "-c", "-f", "-", "--no-recursion", "-C", folder] + names.map { "./" + $0 })
    }
}
