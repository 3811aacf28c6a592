import Foundation
import XCFleetBasics
import XCFleetModel

/// The host side of a push (`push-cache.sh` around `push-blobs.pl`; docs/builds.md, "Push"): a
/// per-host content-addressed store of file contents, `<workRoot>/.cache/blobs/<sha256>`, and the
/// job trees of finished attempts kept for reuse, `<workRoot>/.cache/trees/<id>/` with a manifest
/// of each file's SHA-256 and stamp as the push left it. The check takes a free tree, keeps every
/// file its manifest vouches for (or whose contents hash to the list's), removes everything else
/// and copies every other file the store holds (each blob hashed as it is read: a damaged one is
/// removed and asked for), naming the missing ones; on a warm host nothing is missing and a chained
/// command runs in the same round trip. The fill receives only the missing blobs, stores them,
/// completes the job directory and bounds the store (least recently used first). Cleanup keeps the
/// job directory as a free tree (`keep`).
public enum PushCacheScript {
    /// The check's first line on stdout: every file was there and is now in the job directory
    /// (followed by the job tree's id, its manifest's SHA-256 and the tree it was made from, or `-`).
    public static let warmLine = "XCFLEET-PUSH warm"
    /// The check's only line when the diff's base is not the manifest xcfleet named: send the whole list.
    public static let resendLine = "XCFLEET-PUSH resend"
    /// First lines of a check that found files missing (their hashes follow, one per line).
    public static let coldLines: Set<String> = ["XCFLEET-PUSH cold", "XCFLEET-PUSH untrusted"]
    /// The fill's last line on stdout: the job directory is complete (followed by its tree, as `warmLine`).
    public static let filledLine = "XCFLEET-PUSH filled"

    /// `line` is `marker`, alone or followed by the job tree.
    public static func starts(_ line: String?, with marker: String) -> Bool {
        guard let line else { return false }
        return line == marker || line.hasPrefix(marker + " ")
    }

    /// The job tree a warm check or a fill recorded: its id (the job directory's name), the SHA-256
    /// of its manifest, and the kept tree it was made from.
    public struct Tree: Equatable, Sendable {
        public var id: String
        public var digest: String
        public var taken: String?

        public init(id: String, digest: String, taken: String?) {
            self.id = id
            self.digest = digest
            self.taken = taken
        }

        /// From `XCFLEET-PUSH warm|filled ID DIGEST TAKEN`; nil when the host recorded none.
        public init?(line: String) {
            let f = line.split(separator: " ").map(String.init)
            guard f.count == 5, Self.isID(f[2]), BuildCacheScript.isDigest(f[3]), f[4] == "-" || Self.isID(f[4]) else { return nil }
            self.init(id: f[2], digest: f[3], taken: f[4] == "-" ? nil : f[4])
        }

        /// A tree id as the host script accepts it (a job directory's name).
        public static func isID(_ s: String) -> Bool {
            guard let first = s.unicodeScalars.first, first != ".", (1...100).contains(s.unicodeScalars.count) else { return false }
            return s.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || "._-".unicodeScalars.contains($0) }
        }
    }
    /// The work root or its cache is not private (one `xcfleet: …` line on stderr).
    public static let notPrivateStatus: Int32 = 97
    /// The job directory could not be created (it existed, or the disk is full).
    public static let noDirectoryStatus: Int32 = 96
    /// Bad input (an unsafe path) or a blob damaged in transit (one `xcfleet: …` line on stderr).
    public static let badInputStatus: Int32 = 95
    /// Not warm, with a chained command: the chain stopped.
    public static let notWarmStatus: Int32 = 3

    package static let script = WorkRootSafety.shellFunctions + HostScriptSource.pushCache

    /// What every push command's stdin starts with: `push-blobs.pl` (its size is an argument).
    public static let scriptInput = Array(HostScriptSource.pushBlobsPerl.utf8)
    private static let size = String(scriptInput.count)

    /// `sh -c SCRIPT sh check ROOT DIR NEW MAX THEN SIZE`, reading `scriptInput`, then `checkInput`, on stdin.
    /// `createDirectory`: make `directory` first (it must not exist); `chained`: a command follows
    /// on the same line (exit 3 unless warm); `limits`: bound the store after blobs sent ahead.
    public static func check(workRoot: String, directory: String, createDirectory: Bool, chained: Bool, limits: CacheLimits? = nil) -> ShellCommand {
        ShellCommand(["sh", "-c", script, "sh", "check", workRoot, directory, createDirectory ? "1" : "0",
                      String(limits?.maxBytes ?? 0), chained ? "1" : "0", size])
    }

    /// `sh -c SCRIPT sh fill ROOT DIR 0 MAX 0 SIZE`, reading `scriptInput`, then `fillInput`, on stdin.
    public static func fill(workRoot: String, directory: String, limits: CacheLimits) -> ShellCommand {
        ShellCommand(["sh", "-c", script, "sh", "fill", workRoot, directory, "0", String(limits.maxBytes), "0", size])
    }

    /// `sh -c SCRIPT sh keep ROOT DIR 0 SLOTS 0 SIZE` (cleanup; stdin: `scriptInput`): `directory` becomes a free tree when its
    /// push recorded one; at most `trees` free trees stay. Exit 1: not kept (the caller removes it).
    public static func keep(workRoot: String, directory: String, trees: Int) -> ShellCommand {
        ShellCommand(["sh", "-c", script, "sh", "keep", workRoot, directory, "0", String(max(1, trees)), "0", size])
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

        /// What a check sends: the list (or a diff), the blobs sent ahead and how many files use them.
        public struct CheckInput: Sendable {
            public var chunks: [[UInt8]]
            /// Bytes of the list and contents (the script in front of them is not counted, as a command line is not).
            public var bytes: Int { chunks.reduce(0) { $0 + $1.count } - PushCacheScript.scriptInput.count }
            /// Files whose contents are in the input (a diff sends the contents its base lacks).
            public var filesAhead: Int
            public var isDiff: Bool
        }

        /// The check's stdin. With `trees` (the host's kept trees whose manifests xcfleet knows,
        /// newest first) their ids and digests go first; with `base` (the files in the first of
        /// them) only what differs from it is listed, and the contents the base lacks follow.
        public func checkInput(trees: [Tree], base: [String: (hash: String, executable: Bool)]?) -> CheckInput {
            var head = trees.map { "XCFLEET-TREE \($0.id) \($0.digest)\n" }.joined()
            guard let base, !trees.isEmpty else { return CheckInput(chunks: [PushCacheScript.scriptInput + Array(head.utf8) + manifestInput], filesAhead: 0, isDiff: false) }
            head += "XCFLEET-DIFF\n"
            let known = Set(base.values.map(\.hash))
            var ahead: [String] = []
            var seen = Set<String>()
            var paths = Set<String>()
            for e in entries {
                paths.insert(e.path)
                if let b = base[e.path], b.hash == e.hash, b.executable == e.executable { continue }
                head += Self.line(e)
                if !known.contains(e.hash), seen.insert(e.hash).inserted { ahead.append(e.hash) }
            }
            for p in base.keys.sorted() where !paths.contains(p) { head += "- \(p)\n" }
            var chunks = fillInput(ahead, lines: false)
            chunks.insert(PushCacheScript.scriptInput + Array((head + "\n").utf8), at: 0)
            return CheckInput(chunks: chunks, filesAhead: sent(ahead).files, isDiff: true)
        }

        /// The hashes a cold check named, in order; nil when the answer is not well-formed or names
        /// a hash this push does not hold.
        public func missing(in lines: [String]) -> [String]? {
            let hashes = lines.filter { !$0.isEmpty }
            guard hashes.allSatisfy({ BuildCacheScript.isDigest($0) && contents[$0] != nil }) else { return nil }
            var seen = Set<String>()
            return hashes.filter { seen.insert($0).inserted }
        }

        /// The fill's stdin as chunks of about `chunkBytes` (after `scriptInput`): the lines of the files that use
        /// `missing`, an empty line, then `SHA256 SIZE\n` and the contents of each missing blob.
        /// `lines: false`: the blobs only (what a check sends ahead, after its own list).
        public func fillInput(_ missing: [String], lines: Bool = true, chunkBytes: Int = 256 << 10) -> [[UInt8]] {
            let wanted = Set(missing)
            var chunks: [[UInt8]] = []
            var current = lines ? PushCacheScript.scriptInput + Array((entries.filter { wanted.contains($0.hash) }.map(Self.line).joined() + "\n").utf8) : []
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
