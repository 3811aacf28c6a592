import Foundation
import XCTest
@testable import XCFleetKit
import XCFleetBasics
import XCFleetHostScripts
import XCFleetTestSupport

/// Kept job trees (`PushCacheScript`, docs/builds.md "Push"): cleanup keeps a job directory, the
/// next push brings it back to the list. Whatever the attempt did to it — a file changed with its
/// mtime put back, deleted, replaced by a link, strays, a hard link, a folder's mode, a rewritten
/// manifest, a tree not the login user's or a link in its place, two jobs at once — the job
/// directory ends exactly as a full push to an empty host makes it. Real sh and perl (the local
/// host) and real loopback sshd hosts.
final class KeptTreePushTests: XCTestCase {
    var hosts: [TestHosts.Host] = []
    var roots: [String] = []
    var specs: [HostSpec] = []

    override func setUpWithError() throws {
        hosts = try TestHosts.hosts()
    }

    override func tearDown() {
        for r in roots { try? FileManager.default.removeItem(atPath: r) }
        for s in specs { if let f = PushTreeMemory.file(for: s) { unlink(f) } }
    }

    private func freshRoot() -> String {
        let r = NSTemporaryDirectory() + "xcfleet-trees-\(UUID().uuidString.prefix(8))"
        roots.append(r)
        return r
    }

    private func ssh(_ index: Int) async throws -> SSHShell {
        var spec = hosts[index].spec
        spec.workRoot = freshRoot()
        specs.append(spec)
        return try await SSHShell.connect(spec, timeouts: PhaseTimeouts(connect: 10, push: 60, cleanup: 10))
    }

    private func local() -> LocalShell {
        var spec = HostSpec.local
        spec.slots = 2 // one kept tree per slot: the tests below count two
        spec.workRoot = freshRoot()
        specs.append(spec)
        return LocalShell(host: spec)
    }

    private static func prepare(_ shell: some RemoteShell, _ ws: Workspace) async throws -> JobPreparation {
        try await shell.prepareJob(jobID: "tree", workspace: ws, pushSeconds: 60, directoryCreated: { _ in }, then: { _ in nil },
                                   deadlines: CommandDeadlines(total: 30, silence: 30)) { _ in }
    }

    private func finish(_ shell: some RemoteShell, _ dir: String) async throws {
        let ended = try await shell.finishAndRemoveJobDirectory(dir, finish: ShellCommand(["true"]), release: nil, deadlines: CommandDeadlines(total: 30, silence: 30)) { _ in }
        XCTAssertEqual(ended, .exited(0))
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir), "cleanup moved \(dir) away")
    }

    /// The free trees of a work root.
    private func trees(_ shell: some RemoteShell) -> [String] {
        let dir = shell.host.workRoot + "/.cache/trees"
        return ((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []).filter { name in
            var isDir: ObjCBool = false
            return !name.hasPrefix(".") && FileManager.default.fileExists(atPath: dir + "/" + name, isDirectory: &isDir) && isDir.boolValue
        }.sorted()
    }

    private func inode(_ path: String) -> UInt64 {
        var st = stat()
        return lstat(path, &st) == 0 ? UInt64(st.st_ino) : 0
    }

    /// What a full push of `ws` to an empty host makes.
    private func reference(_ ws: Workspace) async throws -> [String: String] {
        let shell = local()
        let dir = try await shell.makeJobDirectory(jobID: "reference")
        _ = try await shell.push(ws, to: dir)
        return try IncrementalPushTests.tree(dir)
    }

    /// Same size, other bytes, the modification time put back: only the change time shows it.
    private func rewriteKeepingMtime(_ path: String) throws {
        var st = stat()
        XCTAssertEqual(stat(path, &st), 0)
        let size = try Data(contentsOf: URL(fileURLWithPath: path)).count
        try Data(repeating: 0x51, count: size).write(to: URL(fileURLWithPath: path))
        var times = [timespec(tv_sec: st.st_atim.tv_sec, tv_nsec: st.st_atim.tv_nsec), timespec(tv_sec: st.st_mtim.tv_sec, tv_nsec: st.st_mtim.tv_nsec)]
        XCTAssertEqual(utimensat(AT_FDCWD, path, &times, AT_SYMLINK_NOFOLLOW), 0)
    }

    /// What a test could leave in its job directory.
    private func tamper(_ tree: String, outside: String) throws {
        let fm = FileManager.default
        try rewriteKeepingMtime(tree + "/Sources/M0/F5.swift")
        try fm.removeItem(atPath: tree + "/Sources/M3/F13.swift")
        try Data("stray\n".utf8).write(to: URL(fileURLWithPath: tree + "/Sources/M2/stray.o"))
        try fm.createDirectory(atPath: tree + "/.build/x/y", withIntermediateDirectories: true)
        try Data("built\n".utf8).write(to: URL(fileURLWithPath: tree + "/.build/x/y/product"))
        try fm.createSymbolicLink(atPath: tree + "/.build/link", withDestinationPath: outside)
        try fm.removeItem(atPath: tree + "/scripts/run.sh")
        try fm.createSymbolicLink(atPath: tree + "/scripts/run.sh", withDestinationPath: outside + "/target")
        XCTAssertEqual(link(tree + "/third/LICENSE", outside + "/hard"), 0)
        XCTAssertEqual(chmod(tree + "/Sources/M4", 0o777), 0)
        XCTAssertEqual(chmod(tree + "/Sources/M1", 0o500), 0)
    }

    /// Each shell's kept tree is changed as a test could change it; the next push makes the pushed tree
    /// again, keeping the files it did not touch (same inode: not rewritten). The last host's manifest
    /// is rewritten to hide a change: it is not trusted (the diff is refused, the whole list sent, every
    /// file hashed), and the result is the same.
    func testATreeAnAttemptChangedIsBroughtBackToThePushedTree() async throws {
        let shells: [any RemoteShell] = [local(), try await ssh(0), try await ssh(1)]
        let a = IncrementalPushTests.repository()
        let b = IncrementalPushTests.changed(a)
        for shell in shells {
            try await finish(shell, try await Self.prepare(shell, a).directory)
            XCTAssertEqual(trees(shell).count, 1, "\(shell.host.name): cleanup kept the job directory")
        }
        // Pushed again later: the files are older than this manifest by more than the clock's
        // resolution, so their stamps alone vouch for them (they are not read).
        try await Task.sleep(nanoseconds: 2_200_000_000)
        for shell in shells {
            let again = try await Self.prepare(shell, a)
            XCTAssertEqual(again.push, .unchanged)
            try await finish(shell, again.directory)
        }
        // On the last host a change is made now and hidden later, when it is no longer racy: its new
        // stamp written into the manifest.
        let hiddenFile = shells[2].host.workRoot + "/.cache/trees/" + trees(shells[2])[0] + "/Sources/M2/F12.swift"
        let hiddenBefore = Self.stampField(hiddenFile.replacingOccurrences(of: "/Sources/M2/F12.swift", with: ".manifest"), path: "Sources/M2/F12.swift")
        try rewriteKeepingMtime(hiddenFile)
        try await Task.sleep(nanoseconds: 2_200_000_000)
        let want = try await reference(b)
        for (i, shell) in shells.enumerated() {
            let outside = freshRoot()
            try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: true)
            try Data("outside\n".utf8).write(to: URL(fileURLWithPath: outside + "/target"))
            let tree = shell.host.workRoot + "/.cache/trees/" + trees(shell)[0]
            try tamper(tree, outside: outside)
            if i == 2 {
                let manifest = tree + ".manifest"
                let text = try String(contentsOfFile: manifest, encoding: .utf8)
                let hidden = text.replacingOccurrences(of: hiddenBefore, with: try Self.perlStamp(hiddenFile))
                XCTAssertNotEqual(hidden, text)
                try hidden.write(toFile: manifest, atomically: false, encoding: .utf8)
            }
            let untouched = inode(tree + "/Sources/M1/F6.swift")
            let p = try await Self.prepare(shell, b)
            guard case .pushed(_, 3) = p.push else { return XCTFail("\(shell.host.name): two changed files and a new one are sent, got \(p.push)") }
            XCTAssertEqual(try IncrementalPushTests.tree(p.directory), want, "\(shell.host.name): the job directory is the pushed tree")
            XCTAssertEqual(inode(p.directory + "/Sources/M1/F6.swift"), untouched, "\(shell.host.name): the kept tree was used")
            XCTAssertEqual(trees(shell), [], "\(shell.host.name): the job took the free tree")
            XCTAssertEqual(try String(contentsOfFile: outside + "/target", encoding: .utf8), "outside\n", "nothing was written through a link")
            XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: outside).sorted(), ["hard", "target"])
            try await finish(shell, p.directory)
            // Unchanged, from the tree just kept: nothing but the diff is sent.
            let again = try await Self.prepare(shell, b)
            XCTAssertEqual(again.push, .unchanged)
            XCTAssertEqual(try IncrementalPushTests.tree(again.directory), want)
            try await finish(shell, again.directory)
            if let s = shell as? SSHShell { await s.close() }
        }
    }

    /// The stamp field of `path`'s line in a manifest.
    static func stampField(_ manifest: String, path: String) -> String {
        let text = (try? String(contentsOfFile: manifest, encoding: .utf8)) ?? ""
        let line = text.split(separator: "\n").first { $0.hasSuffix(" " + path) } ?? ""
        return line.split(separator: " ").dropFirst(2).first.map(String.init) ?? "missing"
    }

    /// The stamp the host script writes for `path` (its own perl, so the format cannot drift).
    static func perlStamp(_ path: String) throws -> String {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/perl")
        p.arguments = ["-MTime::HiRes", "-e", #"my @s = Time::HiRes::lstat($ARGV[0]); print join(":", $s[7], sprintf("%.9f", $s[9]), sprintf("%.9f", $s[10]), $s[1], $s[0], $s[2], $s[3], $s[4]);"#, path]
        let out = Pipe()
        p.standardOutput = out
        try p.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }

    /// A tree holding a file of another user, one owned by another user, and a link in place of a
    /// tree are not used: the push makes the job directory afresh, and nothing behind the link changes.
    func testATreeNotTheLoginUsersOrALinkIsNotUsed() async throws {
        try XCTSkipIf(getuid() != 0, "needs root to give files to another user")
        let shell = local()
        let a = IncrementalPushTests.repository()
        let want = try await reference(a)
        let treesDir = shell.host.workRoot + "/.cache/trees/"
        for hostile in ["a file of another user", "a tree of another user", "a link in place of the tree"] {
            try await finish(shell, try await Self.prepare(shell, a).directory)
            let tree = treesDir + trees(shell)[0]
            let kept = inode(tree + "/Sources/M1/F6.swift")
            // Held open, so the file system cannot give its inode number to the file the push makes
            // afresh once the set-aside tree is removed (that reuse made "not used" look like "used").
            let holder = open(tree + "/Sources/M1/F6.swift", O_RDONLY)
            XCTAssertGreaterThanOrEqual(holder, 0)
            defer { if holder >= 0 { close(holder) } }
            let outside = freshRoot()
            switch hostile {
            case "a file of another user": XCTAssertEqual(chown(tree + "/Sources/M2/F7.swift", 65534, 65534), 0)
            case "a tree of another user": XCTAssertEqual(chown(tree, 65534, 65534), 0)
            default:
                try FileManager.default.moveItem(atPath: tree, toPath: outside)
                try FileManager.default.createSymbolicLink(atPath: tree, withDestinationPath: outside)
            }
            let p = try await Self.prepare(shell, a)
            XCTAssertEqual(try IncrementalPushTests.tree(p.directory), want, hostile)
            XCTAssertNotEqual(inode(p.directory + "/Sources/M1/F6.swift"), kept, "\(hostile): the tree was not used")
            XCTAssertFalse(FileManager.default.fileExists(atPath: tree), "\(hostile): set aside")
            if hostile == "a link in place of the tree" {
                XCTAssertEqual(try IncrementalPushTests.tree(outside), want, "nothing behind the link changed")
            }
            try await finish(shell, p.directory)
            XCTAssertEqual(trees(shell).count, 1)
            try await finish(shell, try await Self.prepare(shell, a).directory) // the next one takes the good tree again
        }
    }

    /// Two jobs at once on one host never share a tree: the first takes the kept one, the second
    /// makes its own; both end as the pushed tree, and cleanup keeps both (one per slot, no more).
    func testTwoJobsAtOnceOnOneHostUseTwoTrees() async throws {
        let shell = try await ssh(2)
        XCTAssertEqual(shell.host.slots, 2)
        let a = IncrementalPushTests.repository()
        let b = IncrementalPushTests.changed(a)
        let wantA = try await reference(a)
        let wantB = try await reference(b)
        try await finish(shell, try await Self.prepare(shell, a).directory)
        for (ws, want) in [(b, wantB), (a, wantA), (b, wantB)] {
            async let first = Self.prepare(shell, ws)
            async let second = Self.prepare(shell, ws)
            let (p, q) = try await (first, second)
            XCTAssertNotEqual(p.directory, q.directory)
            XCTAssertEqual(try IncrementalPushTests.tree(p.directory), want)
            XCTAssertEqual(try IncrementalPushTests.tree(q.directory), want)
            XCTAssertEqual(trees(shell), [])
            try await finish(shell, p.directory)
            try await finish(shell, q.directory)
            XCTAssertEqual(trees(shell).count, 2, "one tree per slot")
        }
        // A third job's tree beyond the host's two slots is not kept.
        async let x = Self.prepare(shell, a), y = Self.prepare(shell, a), z = Self.prepare(shell, a)
        let three = try await [x, y, z]
        for p in three { XCTAssertEqual(try IncrementalPushTests.tree(p.directory), wantA) }
        for p in three { try await finish(shell, p.directory) }
        XCTAssertEqual(trees(shell).count, 2)
        await shell.close()
    }
}
