import Foundation
import XCTest
@testable import XCFleetKit
import XCFleetTestSupport

/// The attachments folder fetched for real (docs/attachments.md): through `LocalShell` and through
/// `SSHShell` to a real sshd on loopback, with hostile names, links, a FIFO, files over the caps and
/// a run cap shared by two attempts. Nothing may land outside `attachments/<job>/<attempt>/`.
final class AttachmentFetchTests: XCTestCase {
    private var work: URL!

    override func setUpWithError() throws {
        work = try TestPaths.temporaryDirectory()
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: work)
    }

    /// A job directory with an attachments folder full of trouble; returns (job directory, folder).
    private func stage(in root: URL) throws -> (String, String) {
        let job = root.appendingPathComponent("job.x1")
        let folder = URL(fileURLWithPath: AttachmentScript.folder(jobDirectory: job.path))
        let fm = FileManager.default
        try fm.createDirectory(at: folder.appendingPathComponent("StoreTests/testLoad"), withIntermediateDirectories: true)
        try Data([0x89, 0x50, 0x4E, 0x47]).write(to: folder.appendingPathComponent("StoreTests/testLoad/shot.png"))
        try Data("log line\nsecret s3cr3t-token here\n".utf8).write(to: folder.appendingPathComponent("server.log"))
        try Data("<script>alert(1)</script>".utf8).write(to: folder.appendingPathComponent("<b onmouseover=alert(1)>.html"))
        try Data("dash".utf8).write(to: folder.appendingPathComponent("-rf"))
        try Data("nl".utf8).write(to: folder.appendingPathComponent("new\nline.txt"))
        try Data(repeating: 0x41, count: 5000).write(to: folder.appendingPathComponent("big.bin"))
        try Data(repeating: 0x42, count: 300).write(to: folder.appendingPathComponent(String(repeating: "long", count: 30) + ".txt"))
        try fm.createSymbolicLink(atPath: folder.appendingPathComponent("passwd").path, withDestinationPath: "/etc/passwd")
        try fm.createSymbolicLink(atPath: folder.appendingPathComponent("etc").path, withDestinationPath: "/etc")
        XCTAssertEqual(mkfifo(folder.appendingPathComponent("fifo").path, 0o600), 0)
        return (job.path, folder.path)
    }

    private func check(_ shell: any RemoteShell, root: URL) async throws {
        let (job, folder) = try stage(in: root)
        let runDir = work.appendingPathComponent("run-\(shell.host.name)")
        try FileManager.default.createDirectory(at: runDir, withIntermediateDirectories: true)
        let budget = AttachmentBudget(limits: AttachmentLimits(fileBytes: 4096, runBytes: 300, filesPerAttempt: 50))
        let fetcher = AttachmentFetcher(shell: shell, ref: AttemptRef(jobID: "gate#0", attempt: 1), runDirectory: runDir, budget: budget,
                                        secrets: ["s3cr3t-token"], seconds: 30)
        let events: [TestEvent] = [.testStarted(TestIdentifier(suite: "Mod.StoreTests", name: "testLoad"), framework: .xctest)]
        let got = await fetcher.fetch(folder: folder, in: job, events: events)
        let why = Dictionary(got.leftOut.map { ($0.name, $0.reason) }, uniquingKeysWith: { a, _ in a })
        XCTAssertEqual(why["passwd"], "a symbolic link (links are not followed)", "\(got)")
        XCTAssertEqual(why["etc"], "a symbolic link (links are not followed)")
        XCTAssertEqual(why["fifo"], "not a regular file")
        XCTAssertEqual(why["big.bin"], "over the per-file cap of 4 KiB")
        XCTAssertEqual(why["new\nline.txt"], "its name is not plain text")
        let byName = Dictionary(uniqueKeysWithValues: got.files.map { ($0.name, $0) })
        XCTAssertEqual(byName["StoreTests/testLoad/shot.png"]?.test, "StoreTests/testLoad")
        XCTAssertEqual(byName["StoreTests/testLoad/shot.png"]?.kind, .image)
        XCTAssertEqual(byName["<b onmouseover=alert(1)>.html"]?.path, "attachments/gate_230/1/_b_onmouseover_alert_1__.html.txt")
        XCTAssertEqual(byName["-rf"]?.path, "attachments/gate_230/1/-rf")
        // The run cap (300 bytes): what did not fit is named with why, in name order.
        let fetched = got.files.reduce(0) { $0 + $1.bytes }
        XCTAssertLessThanOrEqual(fetched, 300)
        XCTAssertEqual(got.leftOut.first { $0.name.hasPrefix("longlong") }?.reason, "over the run's cap of 300 bytes (33 bytes already fetched)", "\(got.leftOut)")
        // Bytes as the host had them, secrets masked as in the raw log.
        let log = try String(contentsOf: runDir.appendingPathComponent("attachments/gate_230/1/server.log"), encoding: .utf8)
        XCTAssertEqual(log, "log line\nsecret [redacted] here\n")
        XCTAssertEqual(try Data(contentsOf: runDir.appendingPathComponent("attachments/gate_230/1/StoreTests/testLoad/shot.png")), Data([0x89, 0x50, 0x4E, 0x47]))
        // Nothing outside the attempt's folder; no link anywhere under it.
        let all = try FileManager.default.subpathsOfDirectory(atPath: runDir.path)
        XCTAssertTrue(all.allSatisfy { $0 == "attachments" || $0 == "attachments/gate_230" || $0.hasPrefix("attachments/gate_230/1") }, "\(all)")
        for p in all {
            let attrs = try FileManager.default.attributesOfItem(atPath: runDir.appendingPathComponent(p).path)
            XCTAssertNotEqual(attrs[.type] as? FileAttributeType, .typeSymbolicLink, p)
        }
        // A second attempt of the run finds the cap taken: nothing more comes.
        let second = AttachmentFetcher(shell: shell, ref: AttemptRef(jobID: "gate#0", attempt: 2), runDirectory: runDir, budget: budget,
                                       secrets: [], seconds: 30)
        let again = await second.fetch(folder: folder, in: job, events: [])
        XCTAssertLessThanOrEqual(again.files.reduce(0) { $0 + $1.bytes } + fetched, 300)
        XCTAssertTrue(again.leftOut.contains { $0.name.hasPrefix("longlong") && $0.reason.hasPrefix("over the run's cap of 300 bytes") })
        // A folder that does not exist (the test never wrote one) is nothing at all.
        let none = await fetcher.fetch(folder: job + "/nothing-here", in: job, events: [])
        XCTAssertTrue(none.isEmpty, "\(none)")
    }

    func testTheLocalHostFetchesOnlyWhatTheCapsAllowAndNothingThatEscapes() async throws {
        let root = work.appendingPathComponent("local-root")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        try await check(LocalShell(host: HostSpec(name: "local", transport: .local, workRoot: root.path)), root: root)
    }

    func testAnSSHHostFetchesTheSameThroughOneTarStream() async throws {
        let hosts = try TestHosts.hosts()
        var spec = hosts[0].spec
        let root = work.appendingPathComponent("ssh-root")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        spec.workRoot = root.path
        let shell = try await SSHShell.connect(spec, timeouts: PhaseTimeouts(connect: 10, push: 30, cleanup: 10))
        try await check(shell, root: root)
        await shell.close()
    }

    /// A tar stream as GNU tar writes it here (long names, links) reads back; a cut stream stops cleanly.
    func testTheTarReaderReadsWhatTarWrites() throws {
        let dir = work.appendingPathComponent("tar")
        let long = String(repeating: "d", count: 120) + "/" + String(repeating: "f", count: 130) + ".txt"
        try FileManager.default.createDirectory(at: dir.appendingPathComponent(String(repeating: "d", count: 120)), withIntermediateDirectories: true)
        try Data("long".utf8).write(to: dir.appendingPathComponent(long))
        try Data("short".utf8).write(to: dir.appendingPathComponent("a.txt"))
        try FileManager.default.createSymbolicLink(atPath: dir.appendingPathComponent("l").path, withDestinationPath: "/etc/passwd")
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = AttachmentScript.pack(folder: dir.path, names: ["a.txt", long, "l"]).arguments
        let pipe = Pipe()
        p.standardOutput = pipe
        try p.run()
        let bytes = [UInt8](pipe.fileHandleForReading.readDataToEndOfFile())
        p.waitUntilExit()
        XCTAssertEqual(p.terminationStatus, 0)
        let entries = TarReader.entries(bytes)
        XCTAssertEqual(entries.map(\.name), ["a.txt", long, "l"])
        XCTAssertEqual(entries.map(\.kind), [.file, .file, .link])
        XCTAssertEqual(entries[1].contents, Array("long".utf8))
        XCTAssertTrue(entries[2].contents.isEmpty, "a link's target is never read")
        // Cut anywhere: no trap, and a cut inside a file's bytes says so.
        for cut in stride(from: 0, to: min(bytes.count, 4096), by: 37) {
            let partial = TarReader.entries(Array(bytes.prefix(cut)))
            XCTAssertLessThanOrEqual(partial.count, 3)
            if let last = partial.last, last.truncated { XCTAssertLessThan(last.contents.count, 5) }
        }
        // PAX names (GNU tar --format=pax, as bsdtar writes long names) read back too.
        let paxDir = try TestPaths.temporaryDirectory("pax")
        let deep = String(repeating: "p", count: 90) + "/" + String(repeating: "q", count: 90)
        try FileManager.default.createDirectory(at: paxDir.appendingPathComponent(String(repeating: "p", count: 90)), withIntermediateDirectories: true)
        try Data("x".utf8).write(to: paxDir.appendingPathComponent(deep))
        let archive = paxDir.appendingPathComponent("pax.tar")
        _ = try TestShell.run("cd \(ShellQuote.quote(paxDir.path)) && tar --format=pax -cf pax.tar \(ShellQuote.quote(deep))")
        XCTAssertEqual(TarReader.entries(Array(try Data(contentsOf: archive))).first?.name, deep)
        // Garbage is no entry.
        XCTAssertTrue(TarReader.entries(Array(repeating: 0x41, count: 2048)).isEmpty)
    }

    /// Swift Testing for real (this toolchain): a tiny package whose test records an attachment and
    /// fails, run by `swift test --attachments-path` into the attempt's folder through `LocalShell`;
    /// the parser reads `⎙ Attached 'note.txt' to attaches().` and the fetched file belongs to that test.
    func testASwiftTestingAttachmentIsFetchedAndGivenToItsTest() async throws {
        let swift = URL(fileURLWithPath: "/opt/swift/usr/bin/swift")
        guard FileManager.default.isExecutableFile(atPath: swift.path) else { throw XCTSkip("no toolchain at \(swift.path)") }
        let pkg = work.appendingPathComponent("st-pkg")
        let files = [
            "Package.swift": "// swift-tools-version:6.0\nimport PackageDescription\nlet package = Package(name: \"Att\", targets: [.target(name: \"Lib\"), .testTarget(name: \"LibTests\", dependencies: [\"Lib\"])])\n",
            "Sources/Lib/Lib.swift": "public let answer = 41\n",
            "Tests/LibTests/AttachTests.swift": """
            import Testing
            @testable import Lib
            @Test func attaches() {
                Attachment.record("what the test saw\\n", named: "note.txt")
                #expect(answer == 42)
            }
            @Test func quiet() { #expect(answer == 41) }

            """,
        ]
        for (path, text) in files {
            let url = pkg.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: url)
        }
        let built = try await runCommandOffPool(swift, ["build", "--build-tests", "--package-path", pkg.path])
        XCTAssertEqual(built.status, 0, built.stdout + built.stderr)
        let shell = LocalShell(host: HostSpec(name: "local", transport: .local, workRoot: work.path))
        let folder = AttachmentScript.folder(jobDirectory: pkg.path)
        let command = AttachmentScript.wrap(ShellCommand([swift.path, "test", "--skip-build", "--attachments-path", folder]), folder: folder)
        let sink = OutputSink(limit: 1 << 20)
        let ended = try await shell.run(command, in: pkg.path, deadlines: CommandDeadlines(total: 300, silence: 300)) { sink.add($0) }
        XCTAssertEqual(ended, .exited(1), "the test fails: " + sink.stdoutText + sink.stderrText)
        let events = OutputParser.parse(sink.stdoutText + sink.stderrText)
        XCTAssertTrue(events.contains(.attachmentRecorded(TestIdentifier(suite: "", name: "attaches()"), name: "note.txt")), sink.stdoutText)
        let runDir = work.appendingPathComponent("st-run")
        try FileManager.default.createDirectory(at: runDir, withIntermediateDirectories: true)
        let fetcher = AttachmentFetcher(shell: shell, ref: AttemptRef(jobID: "st", attempt: 1), runDirectory: runDir, budget: AttachmentBudget(),
                                        secrets: [], seconds: 30)
        let got = await fetcher.fetch(folder: folder, in: pkg.path, events: events)
        XCTAssertEqual(got.files, [AttachmentFile(name: "note.txt", path: "attachments/st/1/note.txt", bytes: 18, kind: .text, test: "attaches()")])
        XCTAssertEqual(try String(contentsOf: runDir.appendingPathComponent("attachments/st/1/note.txt"), encoding: .utf8), "what the test saw\n")
    }
}
