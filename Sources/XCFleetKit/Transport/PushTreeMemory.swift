import Foundation
import XCFleetBasics
import XCFleetModel
import XCFleetHostScripts

/// What xcfleet last pushed into a host's kept job trees (docs/builds.md, "Push"): the trees' ids
/// and the SHA-256 of each manifest as the host recorded it, newest first, and the files of the
/// newest. A check names these trees (the host keeps a file unread only when its tree's manifest is
/// one named here) and sends only what differs from the newest, with the contents it lacks; a host
/// whose tree does not match asks for the whole list. One file per host and work root under
/// `$XDG_CACHE_HOME/xcfleet-push-trees/` (else `~/.cache/…`), with the ownership rules of
/// `FileHashCache`; a damaged or foreign file is ignored (a push then sends the whole list).
struct PushTreeMemory: Sendable {
    var trees: [PushCacheScript.Tree] = []
    /// The files in `trees[0]`.
    var base: [String: (hash: String, executable: Bool)]?

    /// Trees named per host: more than a host keeps (one per slot) is harmless, a few bytes each.
    static let namedTrees = 8
    private static let header = "xcfleet-push-trees 1"
    private static let lock = NSLock()

    static func defaultFolder() -> String? { FileHashCache.userCacheFolder("xcfleet-push-trees") }

    /// The file for `host` (its address, port, user and work root); nil when no private folder can be had.
    static func file(for host: HostSpec, folder: String? = nil) -> String? {
        guard let base = folder ?? defaultFolder(), FileHashCache.privateFolder(base) else { return nil }
        var h = SHA256()
        h.update(Array("\(host.transport) \(host.user)@\(host.address):\(host.port) \(host.workRoot)".utf8))
        return base + "/" + h.finalizeHex()
    }

    static func load(_ host: HostSpec) -> PushTreeMemory {
        lock.lock()
        defer { lock.unlock() }
        return read(file(for: host))
    }

    private static func read(_ file: String?) -> PushTreeMemory {
        guard let file, let data = try? InputFile.read(file, limit: 64 << 20) else { return PushTreeMemory() }
        var memory = PushTreeMemory()
        var lines = String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)[...]
        guard lines.popFirst() == Substring(header) else { return PushTreeMemory() }
        while let l = lines.popFirst(), l != "--" {
            guard let tree = PushCacheScript.Tree(line: "XCFLEET-PUSH tree " + l + " -") else { return PushTreeMemory() }
            memory.trees.append(tree)
        }
        var files: [String: (hash: String, executable: Bool)] = [:]
        for l in lines where !l.isEmpty {
            let f = l.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
            guard f.count == 3, BuildCacheScript.isDigest(String(f[0])), f[1] == "x" || f[1] == "-" else { return PushTreeMemory() }
            files[String(f[2])] = (String(f[0]), f[1] == "x")
        }
        if !memory.trees.isEmpty { memory.base = files }
        return memory
    }

    /// After a push that made `tree` from `plan`'s files: it goes first, the tree it was made from goes.
    static func remember(_ tree: PushCacheScript.Tree, plan: PushCacheScript.Plan, host: HostSpec) {
        lock.lock()
        defer { lock.unlock() }
        guard let file = file(for: host) else { return }
        let old = read(file)
        let trees = [tree] + old.trees.filter { $0.id != tree.id && $0.id != tree.taken }.prefix(namedTrees - 1)
        var text = Self.header + "\n" + trees.map { "\($0.id) \($0.digest)\n" }.joined() + "--\n"
        for e in plan.entries where !e.path.contains("\n") { text += "\(e.hash) \(e.executable ? "x" : "-") \(e.path)\n" }
        let temporary = file + ".\(getpid()).tmp"
        guard FileManager.default.createFile(atPath: temporary, contents: Data(text.utf8), attributes: [.posixPermissions: 0o600]) else { return }
        if rename(temporary, file) != 0 { unlink(temporary) }
    }

    /// Forgets `host`'s trees (a push found they did not match).
    static func forget(_ host: HostSpec) {
        lock.lock()
        defer { lock.unlock() }
        if let file = file(for: host) { unlink(file) }
    }
}
