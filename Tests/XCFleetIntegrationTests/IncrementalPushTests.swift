import Foundation
import XCTest
@testable import XCFleetKit
import XCFleetBasics
import XCFleetHostScripts
import XCFleetTestSupport

/// The push through the host's blob store (`PushCacheScript`), on real sshd hosts and the local
/// host: a second push sends only what changed, the result is the tree a full push makes, a
/// damaged blob is found and sent again, hostile names and damaged streams are refused, and the
/// store stays bounded.
final class IncrementalPushTests: XCTestCase {
    var hosts: [TestHosts.Host] = []
    var roots: [String] = []

    override func setUpWithError() throws {
        hosts = try TestHosts.hosts()
    }

    override func tearDown() {
        for r in roots { try? FileManager.default.removeItem(atPath: r) }
    }

    private func freshRoot() -> String {
        let r = NSTemporaryDirectory() + "xcfleet-push-\(UUID().uuidString.prefix(8))"
        roots.append(r)
        return r
    }

    private func ssh(_ index: Int = 0, root: String? = nil, cache: CacheLimits? = nil) async throws -> SSHShell {
        var spec = hosts[index].spec
        spec.workRoot = root ?? freshRoot()
        spec.cache = cache
        return try await SSHShell.connect(spec, timeouts: PhaseTimeouts(connect: 10, push: 60, cleanup: 10))
    }

    private func local(root: String? = nil, cache: CacheLimits? = nil) -> LocalShell {
        var spec = HostSpec.local
        spec.workRoot = root ?? freshRoot()
        spec.cache = cache
        return LocalShell(host: spec)
    }

    /// 40 files in nested folders, executables, a long path, two files with the same contents, an empty one.
    static func repository(seed: String = "") -> Workspace {
        var files: [WorkspaceFile] = []
        for i in 0..<40 {
            files.append(WorkspaceFile(path: "Sources/M\(i % 5)/F\(i).swift", contents: Data("// \(seed)\(i)\n".utf8 + Array(repeating: UInt8(ascii: "x"), count: i * 50))))
        }
        files.append(WorkspaceFile(path: "scripts/run.sh", contents: Data("#!/bin/sh\necho ran\n".utf8), executable: true))
        files.append(WorkspaceFile(path: "LICENSE", contents: Data("same\n".utf8)))
        files.append(WorkspaceFile(path: "third/LICENSE", contents: Data("same\n".utf8)))
        files.append(WorkspaceFile(path: "empty", contents: Data()))
        files.append(WorkspaceFile(path: String(repeating: "d", count: 110) + "/" + String(repeating: "f", count: 120) + " with space.txt", contents: Data("long".utf8)))
        return Workspace(files: files)
    }

    /// `ws` with three files changed (one of them made executable), one added and one removed.
    static func changed(_ ws: Workspace) -> Workspace {
        var files = ws.files.filter { $0.path != "Sources/M1/F1.swift" }
        for i in files.indices where ["Sources/M0/F0.swift", "Sources/M2/F7.swift"].contains(files[i].path) { files[i].contents += Data("changed\n".utf8) }
        for i in files.indices where files[i].path == "LICENSE" { files[i].executable = true }
        files.append(WorkspaceFile(path: "Sources/New/New.swift", contents: Data("new\n".utf8)))
        return Workspace(files: files)
    }

    /// Every entry under `dir`: type, permission bits and contents, never following a link.
    static func tree(_ dir: String) throws -> [String: String] {
        var out: [String: String] = [:]
        let fm = FileManager.default
        for rel in try fm.subpathsOfDirectory(atPath: dir) {
            var st = stat()
            XCTAssertEqual(lstat(dir + "/" + rel, &st), 0, rel)
            let mode = String(st.st_mode & 0o7777, radix: 8)
            switch st.st_mode & mode_t(S_IFMT) {
            case S_IFDIR: out[rel] = "dir \(mode)"
            case S_IFREG:
                var h = SHA256()
                h.update(try Data(contentsOf: URL(fileURLWithPath: dir + "/" + rel)))
                out[rel] = "file \(mode) \(h.finalizeHex())"
            default: out[rel] = "other \(st.st_mode)"
            }
        }
        return out
    }

    /// What the workspace says the tree must be (files only, executable bit).
    static func expected(_ ws: Workspace, in dir: String) throws {
        for f in ws.files {
            XCTAssertEqual(FileManager.default.contents(atPath: dir + "/" + f.path), f.contents, f.path)
            XCTAssertEqual(FileManager.default.isExecutableFile(atPath: dir + "/" + f.path), f.executable, f.path)
        }
        let files = try tree(dir).filter { $0.value.hasPrefix("file") }.keys.sorted()
        XCTAssertEqual(files, ws.files.map(\.path).sorted())
    }

    private func incrementalPush(_ shell: some RemoteShell, fresh: some RemoteShell) async throws {
        let a = Self.repository()
        let d1 = try await shell.makeJobDirectory(jobID: "first")
        let first = try await shell.push(a, to: d1)
        guard case .pushed(let coldBytes, let coldFiles) = first else { return XCTFail("a first push sends everything, got \(first)") }
        XCTAssertEqual(coldFiles, a.files.count)
        XCTAssertGreaterThan(coldBytes, a.totalBytes)
        try Self.expected(a, in: d1)

        let b = Self.changed(a)
        let d2 = try await shell.makeJobDirectory(jobID: "second")
        let second = try await shell.push(b, to: d2)
        guard case .pushed(let warmBytes, let warmFiles) = second else { return XCTFail("a changed tree sends its changes, got \(second)") }
        XCTAssertEqual(warmFiles, 3, "two changed files and one new one; the mode change needs no contents")
        XCTAssertLessThan(warmBytes, coldBytes / 4)
        try Self.expected(b, in: d2)

        // The same tree as a full push of it to a host that held nothing.
        let d3 = try await fresh.makeJobDirectory(jobID: "full")
        let full = try await fresh.push(b, to: d3)
        guard case .pushed(_, let all) = full, all == b.files.count else { return XCTFail("a fresh host gets every file, got \(full)") }
        XCTAssertEqual(try Self.tree(d2), try Self.tree(d3))

        // Unchanged: nothing but the file list is sent, and the tree is the same again.
        let d4 = try await shell.makeJobDirectory(jobID: "third")
        let third = try await shell.push(b, to: d4)
        XCTAssertEqual(third, .unchanged)
        XCTAssertEqual(try Self.tree(d4), try Self.tree(d3))
    }

    func testSSHSecondPushSendsOnlyTheChangesAndMakesTheFullPushTree() async throws {
        let shell = try await ssh(0)
        let fresh = try await ssh(1)
        try await incrementalPush(shell, fresh: fresh)
        await shell.close()
        await fresh.close()
    }

    func testLocalSecondPushSendsOnlyTheChangesAndMakesTheFullPushTree() async throws {
        try await incrementalPush(local(), fresh: local())
    }

    /// A repository of thousands of files: the file list (here about 400 kB) travels on stdin, so
    /// no argument-length limit of the host (128 KiB for one argument on Linux) applies.
    func testSSHPushOfThousandsOfFilesIsNotBoundByArgumentLength() async throws {
        let shell = try await ssh(1)
        let files = (0..<3_000).map { i in
            WorkspaceFile(path: "Sources/Module\(i / 100)/" + String(repeating: "LongName", count: 6) + "\(i).swift", contents: Data("// \(i)\n".utf8))
        }
        let ws = Workspace(files: files)
        XCTAssertGreaterThan(PushCacheScript.Plan(ws).manifestInput.count, 300_000)
        let dir = try await shell.makeJobDirectory(jobID: "big")
        guard case .pushed(_, 3_000) = try await shell.push(ws, to: dir) else { return XCTFail("every file is sent to an empty store") }
        var changed = files
        changed[1_234].contents = Data("// changed\n".utf8)
        let again = try await shell.makeJobDirectory(jobID: "big")
        let second = try await shell.push(Workspace(files: changed), to: again)
        guard case .pushed(_, 1) = second else { return XCTFail("one file changed, got \(second)") }
        try Self.expected(Workspace(files: changed), in: again)
        await shell.close()
    }

    /// prepareJob over SSH runs the chained command in the same round trip as the check on a host
    /// holding every file, and after the fill (on its exec line) on a host lacking some; the
    /// missing-hash list and the fill's line never reach the command's output.
    func testSSHPrepareJobChainsTheCommandAfterTheCheckOrTheFill() async throws {
        let shell = try await ssh(2)
        let chain: @Sendable (String) throws -> ShellCommand? = { _ in ShellCommand(["sh", "-c", "echo chained; ls scripts"]) }
        func prepare(_ ws: Workspace) async throws -> (JobPreparation, String) {
            let out = OutputCollectorChunks()
            let p = try await shell.prepareJob(jobID: "p", workspace: ws, pushSeconds: 60, directoryCreated: { _ in }, then: chain,
                                               deadlines: CommandDeadlines(total: 30, silence: 30)) { out.add($0) }
            try Self.expected(ws, in: p.directory)
            return (p, out.stdoutText)
        }
        let a = Self.repository()
        let (cold, coldOut) = try await prepare(a)
        guard case .pushed(_, a.files.count) = cold.push else { return XCTFail("\(cold.push)") }
        XCTAssertEqual(cold.chained, .exited(0))
        XCTAssertEqual(coldOut, "chained\nrun.sh\n")
        let b = Self.changed(a)
        let (partial, partialOut) = try await prepare(b)
        guard case .pushed(_, 3) = partial.push else { return XCTFail("only the three changed files, got \(partial.push)") }
        XCTAssertEqual(partial.chained, .exited(0))
        XCTAssertEqual(partialOut, "chained\nrun.sh\n")
        let (warm, warmOut) = try await prepare(b)
        XCTAssertEqual(warm.push, .unchanged)
        XCTAssertEqual(warm.chained, .exited(0))
        XCTAssertEqual(warmOut, "chained\nrun.sh\n")

        // A chained command that fails is reported as its own ending, not as a failed push.
        let failing: @Sendable (String) throws -> ShellCommand? = { _ in ShellCommand(["sh", "-c", "exit 7"]) }
        let c = Workspace(files: b.files.map { f in
            var f = f
            if f.path == "empty" { f.contents = Data("now full\n".utf8) }
            return f
        })
        let failed = try await shell.prepareJob(jobID: "p", workspace: c, pushSeconds: 60, directoryCreated: { _ in }, then: failing,
                                                deadlines: CommandDeadlines(total: 30, silence: 30)) { _ in }
        XCTAssertEqual(failed.chained, .exited(7))
        try Self.expected(c, in: failed.directory)
        await shell.close()
    }

    /// A blob rewritten on the host (same size, other bytes) or replaced by a link is not used: it is
    /// removed, sent again, and the job directory holds the workspace's bytes.
    func testSSHDamagedBlobsAreDetectedAndSentAgain() async throws {
        let root = freshRoot()
        let shell = try await ssh(3, root: root)
        let a = Self.repository()
        _ = try await shell.push(a, to: try await shell.makeJobDirectory(jobID: "a"))
        let hashes = a.fileHashes
        let tampered = root + "/.cache/blobs/" + hashes["Sources/M3/F13.swift"]!
        let size = try Data(contentsOf: URL(fileURLWithPath: tampered)).count
        try Data(repeating: 0x5A, count: size).write(to: URL(fileURLWithPath: tampered))
        let linked = root + "/.cache/blobs/" + hashes["scripts/run.sh"]!
        try FileManager.default.removeItem(atPath: linked)
        try FileManager.default.createSymbolicLink(atPath: linked, withDestinationPath: tampered)

        let dir = try await shell.makeJobDirectory(jobID: "b")
        let again = try await shell.push(a, to: dir)
        guard case .pushed(_, 2) = again else { return XCTFail("both damaged blobs are sent again, got \(again)") }
        try Self.expected(a, in: dir)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: tampered)), a.file("Sources/M3/F13.swift")?.contents, "the store holds the right bytes again")
        let attributes = try FileManager.default.attributesOfItem(atPath: linked)
        XCTAssertEqual(attributes[.type] as? FileAttributeType, .typeRegular, "the link was replaced by the blob")
        let unchanged = try await shell.push(a, to: try await shell.makeJobDirectory(jobID: "c"))
        XCTAssertEqual(unchanged, .unchanged)
        await shell.close()
    }

    // MARK: The host script itself (what a hostile manifest or stream meets)

    /// Runs a push step as the host does (`sh -c …`), with the script and `input` on stdin.
    private func hostScript(_ command: ShellCommand, input: Data) throws -> (status: Int32, stdout: String, stderr: String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/sh")
        p.arguments = Array(command.arguments.dropFirst())
        let inPipe = Pipe(), outPipe = Pipe(), errPipe = Pipe()
        p.standardInput = inPipe
        p.standardOutput = outPipe
        p.standardError = errPipe
        try p.run()
        let writer = Thread { inPipe.fileHandleForWriting.write(Data(PushCacheScript.scriptInput) + input); try? inPipe.fileHandleForWriting.close() }
        writer.start()
        let out = outPipe.fileHandleForReading.readDataToEndOfFile()
        let err = errPipe.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return (p.terminationStatus, String(decoding: out, as: UTF8.self), String(decoding: err, as: UTF8.self))
    }

    private static func sha(_ data: Data) -> String {
        var h = SHA256()
        h.update(data)
        return h.finalizeHex()
    }

    func testHostileNamesAreRefusedOnTheHostAndNothingLandsOutside() throws {
        let root = freshRoot()
        let outside = freshRoot()
        try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: true)
        let blob = Data("payload\n".utf8)
        let h = Self.sha(blob)
        for name in ["../escape", "a/../../escape", "/abs/escape", "a//b", "./a", "a/.", "tab\there"] {
            let dir = root + "/job-\(UUID().uuidString.prefix(6))"
            let check = PushCacheScript.check(workRoot: root, directory: dir, createDirectory: true, chained: false)
            let r = try hostScript(check, input: Data("\(h) - \(name)\n".utf8))
            XCTAssertEqual(r.status, PushCacheScript.badInputStatus, "\(name.debugDescription): \(r.stderr)")
            XCTAssertTrue(r.stderr.hasPrefix("xcfleet: "), r.stderr)
            XCTAssertEqual(r.stderr.split(separator: "\n").count, 1, "one line: \(r.stderr)")
            XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir), [], name)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: root + "/escape"))

        // A link in the job directory (planted between the steps) is never written through.
        let dir = root + "/job-link"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: dir + "/a", withDestinationPath: outside)
        let fill = PushCacheScript.fill(workRoot: root, directory: dir, limits: CacheLimits())
        let r = try hostScript(fill, input: Data("\(h) - a/x\n\n\(h) \(blob.count)\n".utf8) + blob)
        XCTAssertEqual(r.status, PushCacheScript.badInputStatus, r.stderr)
        XCTAssertTrue(r.stderr.contains("not a directory"), r.stderr)
        try FileManager.default.removeItem(atPath: dir + "/a")
        try Data().write(to: URL(fileURLWithPath: dir + "/x"))
        try FileManager.default.createSymbolicLink(atPath: dir + "/y", withDestinationPath: outside + "/y")
        let onLink = try hostScript(fill, input: Data("\(h) - y\n\n\(h) \(blob.count)\n".utf8) + blob)
        XCTAssertEqual(onLink.status, PushCacheScript.badInputStatus, onLink.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: outside), [], "nothing was written outside the job directory")
    }

    func testADamagedOrShortStreamFailsTheFillWithOneLine() throws {
        let root = freshRoot()
        let blob = Data("payload\n".utf8)
        let h = Self.sha(blob)
        let dir = root + "/job"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let fill = PushCacheScript.fill(workRoot: root, directory: dir, limits: CacheLimits())
        let damaged = try hostScript(fill, input: Data("\(h) - f\n\n\(h) \(blob.count)\n".utf8) + Data("PAYLOAD\n".utf8))
        XCTAssertEqual(damaged.status, PushCacheScript.badInputStatus)
        XCTAssertEqual(damaged.stderr, "xcfleet: blob \(h) was damaged in transit\n")
        XCTAssertFalse(FileManager.default.fileExists(atPath: root + "/.cache/blobs/" + h), "a damaged blob is not stored")
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/f"), "nor left in the job directory")
        let short = try hostScript(fill, input: Data("\(h) - f\n\n\(h) \(blob.count)\npay".utf8))
        XCTAssertEqual(short.stderr, "xcfleet: the blob stream ended early\n")
        let lacking = try hostScript(fill, input: Data("\(h) - f\n\n".utf8))
        XCTAssertEqual(lacking.status, PushCacheScript.badInputStatus)
        XCTAssertTrue(lacking.stderr.contains("lacks \(h) for f"), lacking.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: root + "/.cache/blobs"), [], "no temporary file is left")
        let good = try hostScript(fill, input: Data("\(h) - f\n\n\(h) \(blob.count)\n".utf8) + blob)
        XCTAssertEqual(good.status, 0, good.stderr)
        XCTAssertEqual(FileManager.default.contents(atPath: dir + "/f"), blob)
    }

    /// The shells turn a host's refusal into a push error naming the host (not a crash, not a warm push).
    func testAWorkRootOfWrongModeFailsThePushWithOneLine() async throws {
        let root = freshRoot()
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        let shell = local(root: root)
        let dir = try await shell.makeJobDirectory(jobID: "x")
        try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: root)
        do {
            _ = try await shell.push(Self.repository(), to: dir)
            XCTFail("a world-writable work root must be refused")
        } catch let e as RemoteShellError {
            XCTAssertEqual(e.kind, .push)
            XCTAssertTrue(e.message.contains("refusing work directory \(root): group- or world-writable"), e.message)
        }
    }

    /// The least recently used blobs go once the store is over its bound; those of the push in flight stay.
    func testTheStoreIsBoundedLeastRecentlyUsedFirst() async throws {
        let root = freshRoot()
        let a = Self.repository(seed: "a")
        let b = Self.repository(seed: "b")
        let unique = Dictionary(b.files.map { (b.fileHashes[$0.path]!, $0.contents.count) }, uniquingKeysWith: { x, _ in x })
        let bound = unique.values.reduce(0, +) + 2_000
        let shell = local(root: root, cache: CacheLimits(maxBytes: Int64(bound), minFreeBytes: 0))
        _ = try await shell.push(a, to: try await shell.makeJobDirectory(jobID: "a"))
        let store = root + "/.cache/blobs"
        let old = Date(timeIntervalSinceNow: -3600)
        for name in try FileManager.default.contentsOfDirectory(atPath: store) {
            try FileManager.default.setAttributes([.modificationDate: old], ofItemAtPath: store + "/" + name)
        }
        let dir = try await shell.makeJobDirectory(jobID: "b")
        _ = try await shell.push(b, to: dir)
        try Self.expected(b, in: dir)
        let left = Set(try FileManager.default.contentsOfDirectory(atPath: store))
        XCTAssertTrue(Set(unique.keys).isSubset(of: left), "the push in flight keeps its blobs")
        let total = try left.reduce(0) { $0 + (try FileManager.default.attributesOfItem(atPath: store + "/" + $1)[.size] as? Int ?? 0) }
        XCTAssertLessThanOrEqual(total, bound, "the store is within its bound")
        XCTAssertFalse(left.subtracting(unique.keys).isEmpty, "only as many old blobs as needed were evicted")
        XCTAssertLessThan(left.count, Set(a.fileHashes.values).union(unique.keys).count, "old blobs were evicted")
    }
}
