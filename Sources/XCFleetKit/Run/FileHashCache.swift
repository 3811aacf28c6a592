import Foundation
import XCFleetBasics
import XCFleetModel
import XCFleetHostScripts

/// The SHA-256 of a repository's files as they were when last hashed, so that reading a team's
/// repository for a push hashes only the files that changed since (the push, the build key and the
/// build cache's manifest all name a file by its SHA-256). A file's hash is reused only when its
/// size, modification time, change time and inode are what they were when it was hashed, the
/// same before and after it is read now, and it was last changed more than `racyWindow` seconds
/// before it was hashed (a file written again within the clock's resolution could keep its times).
/// A changed file cannot keep its change time unless the clock is moved back.
///
/// One file per repository under `$XDG_CACHE_HOME/xcfleet-file-hashes/` (else
/// `~/.cache/xcfleet-file-hashes/`), named by the SHA-256 of the repository's path; the folder must
/// be the user's own and private, else the cache is not used. Lines: `SHA256 SIZE MTIME CTIME INODE
/// PATH` (times in nanoseconds). A damaged or foreign cache is ignored and written anew.
package struct FileHashCache: Sendable {
    package struct Stamp: Equatable, Sendable {
        package var size: Int64
        package var modified: Int64
        package var changed: Int64
        package var inode: UInt64
        /// Executable by its owner.
        package var executable: Bool
    }

    /// Changes closer than this to the moment of hashing are not trusted to show in the times.
    static let racyWindow: Int64 = 2_000_000_000

    private let file: String?
    private var entries: [String: (hash: String, stamp: Stamp)] = [:]
    private var dirty = false

    /// The cache of `root` (absolute repository folder); `folder` overrides the cache's folder.
    package init(root: String, folder: String? = nil) {
        let base = folder ?? Self.defaultFolder()
        guard let base, Self.privateFolder(base) else { file = nil; return }
        var h = SHA256()
        h.update(Array(root.utf8))
        file = base + "/" + h.finalizeHex()
        load()
    }

    static func defaultFolder() -> String? { userCacheFolder("xcfleet-file-hashes") }

    /// `$XDG_CACHE_HOME/NAME`, else `~/.cache/NAME`; nil when neither is an absolute path.
    static func userCacheFolder(_ name: String) -> String? {
        let env = ProcessInfo.processInfo.environment
        if let xdg = env["XDG_CACHE_HOME"], xdg.hasPrefix("/") { return xdg + "/" + name }
        if let home = env["HOME"], home.hasPrefix("/") { return home + "/.cache/" + name }
        return nil
    }

    /// Makes `path` (mode 700) when missing; true when it is a directory of ours that no one else may write.
    static func privateFolder(_ path: String) -> Bool {
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        var info = stat()
        guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR, info.st_uid == geteuid() else { return false }
        return info.st_mode & 0o022 == 0
    }

    private mutating func load() {
        guard let file, let data = try? InputFile.read(file, limit: 256 << 20) else { return }
        for line in data.split(separator: UInt8(ascii: "\n")) {
            let fields = line.split(separator: UInt8(ascii: " "), maxSplits: 5, omittingEmptySubsequences: false)
            guard fields.count == 6, fields[0].count == 64 else { continue }
            let hash = String(decoding: fields[0], as: UTF8.self)
            guard BuildCacheScript.isDigest(hash),
                  let size = Int64(String(decoding: fields[1], as: UTF8.self)),
                  let modified = Int64(String(decoding: fields[2], as: UTF8.self)),
                  let changed = Int64(String(decoding: fields[3], as: UTF8.self)),
                  let inode = UInt64(String(decoding: fields[4], as: UTF8.self)) else { continue }
            entries[String(decoding: fields[5], as: UTF8.self)] = (hash, Stamp(size: size, modified: modified, changed: changed, inode: inode, executable: false))
        }
    }

    /// The stamp of the file at `path` (following links, as reading it does), nil when it cannot be read.
    package static func stamp(_ path: String) -> Stamp? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return Stamp(size: Int64(info.st_size),
                     modified: Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec),
                     changed: Int64(info.st_ctim.tv_sec) * 1_000_000_000 + Int64(info.st_ctim.tv_nsec),
                     inode: UInt64(info.st_ino), executable: info.st_mode & 0o100 != 0)
    }

    /// The file `name` read now: `before` and `after` are its stamps around the read. Returns the
    /// file with its hash known when the cache holds it for this stamp; records a new hash otherwise.
    package mutating func file(_ name: String, contents: Data, before: Stamp, after: Stamp?) -> WorkspaceFile {
        let steady = after == before
        if steady, let known = entries[name], Self.same(known.stamp, before) {
            return WorkspaceFile(path: name, contents: contents, executable: before.executable, sha256: known.hash)
        }
        let made = WorkspaceFile(path: name, contents: contents, executable: before.executable)
        let now = Int64(Date().timeIntervalSince1970 * 1e9)
        if steady, file != nil, now - max(before.modified, before.changed) > Self.racyWindow {
            entries[name] = (made.sha256, before)
            dirty = true
        } else if entries.removeValue(forKey: name) != nil {
            dirty = true
        }
        return made
    }

    private static func same(_ a: Stamp, _ b: Stamp) -> Bool {
        a.size == b.size && a.modified == b.modified && a.changed == b.changed && a.inode == b.inode
    }

    /// Writes the cache when it changed, keeping only `names` (the files the repository has now).
    package mutating func save(keeping names: Set<String>) {
        guard let file else { return }
        let before = entries.count
        entries = entries.filter { names.contains($0.key) }
        guard dirty || entries.count != before else { return }
        var text = ""
        for (name, e) in entries.sorted(by: { $0.key < $1.key }) where !name.contains("\n") {
            text += "\(e.hash) \(e.stamp.size) \(e.stamp.modified) \(e.stamp.changed) \(e.stamp.inode) \(name)\n"
        }
        let temporary = file + ".\(getpid()).tmp"
        guard FileManager.default.createFile(atPath: temporary, contents: Data(text.utf8), attributes: [.posixPermissions: 0o600]) else { return }
        if rename(temporary, file) != 0 { unlink(temporary) }
        dirty = false
    }
}
