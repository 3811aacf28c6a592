import Foundation
import XCFleetBasics
import XCFleetModel

/// The host side of a push (`SSHShell`): the push cache check (`push-cache.sh`), which on a warm
/// host copies the cached tree into the job directory and lets a chained command run in the same
/// round trip, and the cold push's double extraction (`push-extract.sh`). Layout:
/// `<workRoot>/.cache/<content hash>/` (one per pushed tree, ours and private), `.claim-<hash>`
/// (who renames a fresh copy into place), `.tmp-<hash>-<pid>` (a copy being made).
public enum PushCacheScript {
    /// The check's first line on stdout: the tree was there and is now in the job directory.
    public static let warmLine = "XCFLEET-PUSH warm"
    /// Lines of a check that found no usable tree (then send the tar stream).
    public static let coldLines: Set<String> = ["XCFLEET-PUSH cold", "XCFLEET-PUSH untrusted"]
    /// The work root or its cache is not private (one `xcfleet: …` line on stderr).
    public static let notPrivateStatus: Int32 = 97
    /// The job directory could not be created (it existed, or the disk is full).
    public static let noDirectoryStatus: Int32 = 96
    /// Not warm, with a chained command: the chain stopped.
    public static let notWarmStatus: Int32 = 3

    public static let checkScript = BuildCacheScript.common + HostScriptSource.pushCache

    /// `sh -c CHECK sh ROOT HASH DIR MANIFEST NEW THEN`. `manifest`: `sha256  path` of every file
    /// (what a cached tree is verified against); `createDirectory`: make `directory` first (it
    /// must not exist); `chained`: a command follows on the same line (exit 3 unless warm).
    public static func check(workRoot: String, hash: String, directory: String, manifest: [String],
                             createDirectory: Bool, chained: Bool) -> ShellCommand {
        ShellCommand(["sh", "-c", checkScript, "sh", workRoot, hash, directory, manifest.joined(separator: "\n"),
                      createDirectory ? "1" : "0", chained ? "1" : "0"])
    }

    /// `sh -c EXTRACT sh ROOT HASH DIR`, reading the tar stream on stdin.
    public static func extract(workRoot: String, hash: String, directory: String) -> ShellCommand {
        ShellCommand(["sh", "-c", HostScriptSource.pushExtract, "sh", workRoot, hash, directory])
    }
}
