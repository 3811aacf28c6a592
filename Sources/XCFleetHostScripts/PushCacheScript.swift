import Foundation
import XCFleetBasics
import XCFleetModel

/// The host side of a push (`push-cache.sh` around `push-blobs.pl`; docs/builds.md, "Push"): a
/// per-host content-addressed store of file contents, `<workRoot>/.cache/blobs/<sha256>`. The
/// check copies every file the store holds into the job directory (each blob hashed as it is read:
/// a damaged one is removed and asked for) and names the missing ones; on a warm host nothing is
/// missing and a chained command runs in the same round trip. The fill receives only the missing
/// blobs, stores them, completes the job directory and bounds the store (least recently used first).
public enum PushCacheScript {
    /// The check's first line on stdout: every file was there and is now in the job directory.
    public static let warmLine = "XCFLEET-PUSH warm"
    /// First lines of a check that found files missing (their hashes follow, one per line).
    public static let coldLines: Set<String> = ["XCFLEET-PUSH cold", "XCFLEET-PUSH untrusted"]
    /// The fill's last line on stdout: the job directory is complete.
    public static let filledLine = "XCFLEET-PUSH filled"
    /// The work root or its cache is not private (one `xcfleet: …` line on stderr).
    public static let notPrivateStatus: Int32 = 97
    /// The job directory could not be created (it existed, or the disk is full).
    public static let noDirectoryStatus: Int32 = 96
    /// Bad input (an unsafe path) or a blob damaged in transit (one `xcfleet: …` line on stderr).
    public static let badInputStatus: Int32 = 95
    /// Not warm, with a chained command: the chain stopped.
    public static let notWarmStatus: Int32 = 3

    package static let script = WorkRootSafety.shellFunctions + "xcf_push_perl=" + ShellQuote.quote(HostScriptSource.pushBlobsPerl) + "\n\n"
        + HostScriptSource.pushCache

    /// `sh -c SCRIPT sh check ROOT DIR NEW MAX THEN`, reading `manifestInput` on stdin.
    /// `createDirectory`: make `directory` first (it must not exist); `chained`: a command follows
    /// on the same line (exit 3 unless warm).
    public static func check(workRoot: String, directory: String, createDirectory: Bool, chained: Bool) -> ShellCommand {
        ShellCommand(["sh", "-c", script, "sh", "check", workRoot, directory, createDirectory ? "1" : "0", "0", chained ? "1" : "0"])
    }

    /// `sh -c SCRIPT sh fill ROOT DIR 0 MAX 0`, reading `fillInput` on stdin.
    public static func fill(workRoot: String, directory: String, limits: CacheLimits) -> ShellCommand {
        ShellCommand(["sh", "-c", script, "sh", "fill", workRoot, directory, "0", String(limits.maxBytes), "0"])
    }

    /// One push's file list and what the host answered.
    public struct Plan: Sendable {
        /// `(sha256, executable, path)` of every file, in workspace order.
        public let entries: [(hash: String, executable: Bool, path: String)]
        private let contents: [String: Data]

        public init(_ workspace: Workspace) {
            var entries: [(hash: String, executable: Bool, path: String)] = []
            var contents: [String: Data] = [:]
            for f in workspace.files {
                let hex = f.sha256
                entries.append((hex, f.executable, f.path))
                contents[hex] = f.contents
            }
            self.entries = entries
            self.contents = contents
        }

        private static func line(_ e: (hash: String, executable: Bool, path: String)) -> String {
            "\(e.hash) \(e.executable ? "x" : "-") \(e.path)\n"
        }

        /// The check's stdin: every file's line.
        public var manifestInput: [UInt8] { Array(entries.map(Self.line).joined().utf8) }

        /// The hashes a cold check named, in order; nil when the answer is not well-formed or names
        /// a hash this push does not hold.
        public func missing(in lines: [String]) -> [String]? {
            let hashes = lines.filter { !$0.isEmpty }
            guard hashes.allSatisfy({ BuildCacheScript.isDigest($0) && contents[$0] != nil }) else { return nil }
            var seen = Set<String>()
            return hashes.filter { seen.insert($0).inserted }
        }

        /// The fill's stdin as chunks of about `chunkBytes`: the lines of the files that use
        /// `missing`, an empty line, then `SHA256 SIZE\n` and the contents of each missing blob.
        public func fillInput(_ missing: [String], chunkBytes: Int = 256 << 10) -> [[UInt8]] {
            let wanted = Set(missing)
            var chunks: [[UInt8]] = []
            var current = Array((entries.filter { wanted.contains($0.hash) }.map(Self.line).joined() + "\n").utf8)
            func add(_ bytes: some Collection<UInt8>) {
                current += bytes
                if current.count >= chunkBytes {
                    chunks.append(current)
                    current = []
                    current.reserveCapacity(chunkBytes + (64 << 10))
                }
            }
            for h in missing {
                guard let data = contents[h] else { continue }
                add(Array("\(h) \(data.count)\n".utf8))
                var offset = 0
                while offset < data.count {
                    let end = min(data.count, offset + chunkBytes)
                    add(data[data.startIndex + offset ..< data.startIndex + end])
                    offset = end
                }
            }
            if !current.isEmpty { chunks.append(current) }
            return chunks
        }

        /// Files (and their bytes) of this push whose contents are among `missing`.
        public func sent(_ missing: [String]) -> (files: Int, bytes: Int) {
            let wanted = Set(missing)
            let files = entries.filter { wanted.contains($0.hash) }.count
            return (files, missing.reduce(0) { $0 + (contents[$1]?.count ?? 0) })
        }
    }
}
