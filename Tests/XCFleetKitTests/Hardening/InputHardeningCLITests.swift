import Foundation
import SSHClient
import XCTest
@testable import XCFleetKit
import XCFleetTestSupport

/// The reproductions of the newest inputs, through the real binary: a tampered `events.jsonl`
/// (forge link, quarantine and history text), history URLs that are no URL, history files that
/// are not the user's own, and the history password on the command line.
final class InputHardeningCLITests: XCTestCase {
    var dir: URL!
    /// Obviously fake; must never appear in any output or file name.
    let password = "pw-not-secret"

    override func setUpWithError() throws {
        dir = try TestPaths.temporaryDirectory("input-hardening-cli")
    }

    /// Runs the binary in `dir` with a 60 s deadline, HOME at `dir` (no ~/.pgpass of the machine).
    func xcfleet(_ args: [String], environment: [String: String] = [:]) throws -> CommandResult {
        let p = Process()
        p.executableURL = TestPaths.xcfleetBinary
        p.arguments = args
        p.currentDirectoryURL = dir
        var env = ProcessInfo.processInfo.environment
        env["XCFLEET_HOME"] = TestPaths.packageRoot.path
        env["HOME"] = dir.path
        for k in ["GITHUB_ACTIONS", "XCFLEET_HISTORY_URL", "XCFLEET_HISTORY_DB", "XCFLEET_NO_HISTORY", "XCFLEET_HISTORY_PASSFILE", "PGPASSFILE", "PGPASSWORD"] {
            env[k] = nil
        }
        env["XCFLEET_HISTORY_TIMEOUT"] = "8"
        for (k, v) in environment { env[k] = v }
        p.environment = env
        let outFile = dir.appendingPathComponent(".stdout-\(UUID().uuidString)"), errFile = dir.appendingPathComponent(".stderr-\(UUID().uuidString)")
        FileManager.default.createFile(atPath: outFile.path, contents: nil)
        FileManager.default.createFile(atPath: errFile.path, contents: nil)
        p.standardOutput = try FileHandle(forWritingTo: outFile)
        p.standardError = try FileHandle(forWritingTo: errFile)
        p.standardInput = FileHandle.nullDevice
        try p.run()
        let end = Date().addingTimeInterval(60)
        while p.isRunning && Date() < end { usleep(20_000) }
        if p.isRunning { kill(p.processIdentifier, SIGKILL); XCTFail("xcfleet \(args) hung") }
        p.waitUntilExit()
        defer { try? FileManager.default.removeItem(at: outFile); try? FileManager.default.removeItem(at: errFile) }
        return CommandResult(status: p.terminationStatus, stdout: try String(contentsOf: outFile, encoding: .utf8),
                             stderr: try String(contentsOf: errFile, encoding: .utf8))
    }

    /// Every path under `dir` (relative).
    func files() -> [String] {
        (FileManager.default.enumerator(atPath: dir.path)?.allObjects as? [String] ?? []).sorted()
    }

    func sha(_ path: String) throws -> String {
        var h = SHA256()
        h.update(Array(try Data(contentsOf: URL(fileURLWithPath: path))))
        return h.finalizeHex()
    }

    // MARK: 3. A tampered forge in events.jsonl

    /// A red run with a failure at a repository file, so report.html links it when a forge is set.
    func writeRun(_ name: String, forge: ForgeLink?, extra: [RunEvent.Body] = [], testName: String = "testC1_x") throws -> URL {
        let run = dir.appendingPathComponent(name)
        let log = try EventLog(directory: run)
        let job = "/tmp/xcfleet-local/jobs/cache-gate-1"
        let ref = AttemptRef(jobID: "cache-gate", attempt: 1)
        let id = TestIdentifier(suite: "CacheContractTests.MemoryKeyTests", name: testName)
        let map = SourceMap(base: .repository, entries: [
            SourceMapEntry(path: "Tests/CacheContractTests/MemoryKeyTests.swift", origin: .template("Templates/cache-contract/MemoryKeyTests.swift")),
        ])
        let bodies: [RunEvent.Body] = [
            .runStarted(RunStarted(runID: name, planName: "p", planPath: "p.json", startedAt: "2026-12-01T00:00:00Z", xcfleetVersion: "0",
                                   suites: [SuiteSpec(name: "cache-gate", template: "cache-contract")], hosts: ["local"], forge: forge)),
        ] + extra + [
            .jobPlanned(JobPlanned(jobID: "cache-gate", suite: "cache-gate", kind: .gate, expectedTests: ["MemoryKeyTests/\(testName)"])),
            .sourceMap(jobID: "cache-gate", map: map),
            .attemptStarted(ref, host: "local", slot: 0),
            .hostPaths(ref, prefixes: [job]),
            .test(ref, event: .testStarted(id, framework: .xctest)),
            .test(ref, event: .testFailure(id, file: "\(job)/Tests/CacheContractTests/MemoryKeyTests.swift", line: 72, message: "account differs")),
            .test(ref, event: .testFinished(id, status: .failed, seconds: 0, framework: .xctest, clone: nil)),
            // XCTest's own totals: the test process ran to its end (a quarantined failure is forgiven only then).
            .test(ref, event: .suiteFinished(name: "All tests", passed: false)),
            .test(ref, event: .xctestSummary(executed: 1, skipped: 0, failures: 1, unexpected: 0, seconds: 0)),
            .attemptEnded(ref, AttemptEnded(termination: .exited(1))),
            .runFinished(interrupted: false),
        ]
        for b in bodies { _ = log.append(b) }
        return run
    }

    func hrefs(_ html: String) -> [String] {
        let regex = try! NSRegularExpression(pattern: #"href="([^"]*)""#)
        return regex.matches(in: html, range: NSRange(html.startIndex..., in: html)).map { String(html[Range($0.range(at: 1), in: html)!]) }
    }

    func testReportOfATamperedForgeLinksNothingAndCarriesAPolicy() throws {
        let sha = "0123456789abcdef0123456789abcdef01234567"
        // Control: a plausible forge is linked.
        let good = try writeRun("good", forge: ForgeLink(server: "https://github.com", repository: "acme/app", sha: sha))
        XCTAssertEqual(try xcfleet(["report", good.path]).status, 1)
        let goodHTML = try String(contentsOf: good.appendingPathComponent("report.html"), encoding: .utf8)
        XCTAssertTrue(hrefs(goodHTML).contains("https://github.com/acme/app/blob/\(sha)/Templates/cache-contract/MemoryKeyTests.swift#L72"), "\(hrefs(goodHTML))")
        // The reproduction: forge.server edited to a script URL, and to other schemes.
        for server in ["javascript:alert(1)//", "JAVASCRIPT:alert(1)//", "data:text/html;base64,PHNjcmlwdD4=", "https://x\" onmouseover=\"alert(1)"] {
            let run = try writeRun("bad-\(UUID().uuidString.prefix(6))", forge: ForgeLink(server: server, repository: "acme/app", sha: sha))
            let r = try xcfleet(["report", run.path])
            XCTAssertEqual(r.status, 1, r.stderr)
            let html = try String(contentsOf: run.appendingPathComponent("report.html"), encoding: .utf8)
            XCTAssertFalse(html.lowercased().contains("javascript:"), server)
            XCTAssertFalse(html.contains("data:text"), server)
            XCTAssertFalse(html.contains("onmouseover"), server)
            // Only the page's own sections and the attempt's raw output inside the run directory.
            for link in hrefs(html) {
                XCTAssertTrue(link.hasPrefix("#") || link.range(of: #"^logs/[A-Za-z0-9_-]+-a[0-9]+\.log$"#, options: .regularExpression) != nil,
                              "\(server): unexpected link \(link)")
            }
            XCTAssertTrue(html.contains("<span class=\"loc\">Templates/cache-contract/MemoryKeyTests.swift:72</span>"), "the location is still shown")
            XCTAssertTrue(html.contains("<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none';"), "no policy")
        }
    }

    // MARK: 6. Quarantine and history text with bidi controls and line separators

    func testQuarantineAndHistoryTextIsNeutralisedInEveryReport() throws {
        let evil = ReportInputHardeningTests.evil
        let entry = QuarantineEntry(suite: "cache-gate", test: "MemoryKeyTests/test_\(evil)", reason: "races \(evil)", owner: "ana\(evil)", expires: "2099-12-31")  // written to events.jsonl directly: the loader's horizon does not apply
        let run = try writeRun("bidi", forge: nil, extra: [.quarantine([entry])], testName: "test_\(evil)")
        let r = try xcfleet(["report", run.path])
        XCTAssertEqual(r.status, 0, "the quarantined failure is forgiven: \(r.stdout) \(r.stderr)")
        for name in ["report.html", "summary.md", "junit.xml"] {
            let text = try String(contentsOf: run.appendingPathComponent(name), encoding: .utf8)
            let bad = text.unicodeScalars.filter { ReportInputHardeningTests.invisible.contains($0) }
            XCTAssertTrue(bad.isEmpty, "\(name) carries \(bad.map { String($0.value, radix: 16) })")
            XCTAssertTrue(text.contains("races cfg\u{FFFD}x") || text.contains("races cfg\\u{FFFD}x"), "\(name) lost the reason")
        }
        for (what, text) in [("stdout", r.stdout), ("stderr", r.stderr)] {
            XCTAssertFalse(text.unicodeScalars.contains { ReportInputHardeningTests.invisible.contains($0) }, what)
        }
    }

    // MARK: 4. A history URL that is not one

    func testAHistoryURLThatIsNotPostgresIsExit2AndNeverAFile() throws {
        let plan = TestPaths.packageRoot.appendingPathComponent("Plans/cache-contract.json").path
        let bad = ["host=db.example password=\(password)", "postgresq://ci:\(password)@db.example/x", "sqlite:\(password).db",
                   "ci:\(password)@db.example/x", "mysql://ci:\(password)@db/x"]
        for url in bad {
            for (args, env) in [(["history", "--history-url", url], [:]), (["flaky", "--history-url", url], [:]),
                                (["history", "import", "nothing", "--history-url", url], [:]),
                                (["run", plan, "--quiet", "--history-url", url], [:]),
                                (["run", plan, "--quiet"], ["XCFLEET_HISTORY_URL": url]), (["history"], ["XCFLEET_HISTORY_URL": url])] as [([String], [String: String])] {
                let r = try xcfleet(args, environment: env)
                XCTAssertEqual(r.status, 2, "\(args) \(env): \(r.stdout) \(r.stderr)")
                let lines = r.stderr.split(separator: "\n")
                XCTAssertEqual(lines.count, 1, r.stderr)
                XCTAssertTrue(r.stderr.hasPrefix("xcfleet: history: "), r.stderr)
                XCTAssertTrue(r.stderr.contains(env.isEmpty ? "--history-url" : "XCFLEET_HISTORY_URL"), r.stderr)
                XCTAssertTrue(r.stderr.contains("--history-db FILE"), "the message names the fix: \(r.stderr)")
                XCTAssertFalse(r.stderr.contains(password) || r.stdout.contains(password), r.stderr)
            }
        }
        XCTAssertEqual(files().filter { !$0.hasPrefix(".stdout") && !$0.hasPrefix(".stderr") }, [], "a file was created")
    }

    // MARK: 5. History files that are not ours

    func testHistoryFilesThatAreNotTheUsersOwnAreRefusedUntouched() throws {
        let fm = FileManager.default
        // A foreign SQLite database: refused, its bytes unchanged, no -wal/-shm beside it.
        let foreign = dir.appendingPathComponent("foreign.sqlite").path
        XCTAssertEqual(try runCommand(URL(fileURLWithPath: "/usr/bin/sqlite3"), [foreign, "CREATE TABLE notes(t); INSERT INTO notes VALUES ('x');"]).status, 0)
        let before = try sha(foreign)
        var r = try xcfleet(["history", "--history-db", foreign])
        XCTAssertEqual(r.status, 3, r.stderr)
        XCTAssertTrue(r.stderr.contains("is not an xcfleet history database"), r.stderr)
        XCTAssertEqual(try sha(foreign), before, "the foreign database was written")
        XCTAssertFalse(fm.fileExists(atPath: foreign + "-wal") || fm.fileExists(atPath: foreign + "-shm"))

        // A history of a newer xcfleet: refused as it is (WAL is switched on only after every check).
        let newer = dir.appendingPathComponent("newer.sqlite").path
        try FileManager.default.copyItem(atPath: TestPaths.packageRoot.appendingPathComponent("fuzz/corpus/historydb/newer-schema.sqlite").path, toPath: newer)
        let newerBefore = try sha(newer)
        r = try xcfleet(["history", "--history-db", newer])
        XCTAssertEqual(r.status, 3, r.stderr)
        XCTAssertTrue(r.stderr.contains("newer than this xcfleet"), r.stderr)
        XCTAssertEqual(try sha(newer), newerBefore, "the newer database was written")

        // A dangling link at the default place: nothing is created at its target.
        try fm.createDirectory(at: dir.appendingPathComponent(".xcfleet"), withIntermediateDirectories: true)
        let target = dir.appendingPathComponent("elsewhere.sqlite").path
        try fm.createSymbolicLink(atPath: dir.appendingPathComponent(".xcfleet/history.sqlite").path, withDestinationPath: target)
        r = try xcfleet(["history"])
        XCTAssertEqual(r.status, 3, r.stderr)
        XCTAssertTrue(r.stderr.contains("is a symbolic link") && r.stderr.contains("--history-db"), r.stderr)
        XCTAssertFalse(fm.fileExists(atPath: target), "a database was created at the link's target")

        // An xcfleet history of our own works (control) ...
        let own = dir.appendingPathComponent("own.sqlite").path
        r = try xcfleet(["flaky", "--history-db", own])
        XCTAssertEqual(r.status, 0, r.stderr)
        // ... and is refused once another user owns it, or every user may write it (or its -wal).
        XCTAssertEqual(chown(own, 65534, 65534), 0) // nobody
        r = try xcfleet(["flaky", "--history-db", own])
        XCTAssertEqual(r.status, 3, r.stderr)
        XCTAssertTrue(r.stderr.contains("belongs to uid 65534, not to you") && r.stderr.contains("--history-db"), r.stderr)
        XCTAssertEqual(chown(own, geteuid(), getegid()), 0)
        XCTAssertEqual(chmod(own, 0o666), 0)
        r = try xcfleet(["history", "--history-db", own])
        XCTAssertEqual(r.status, 3, r.stderr)
        XCTAssertTrue(r.stderr.contains("can be written by every user") && r.stderr.contains("chmod o-w"), r.stderr)
        XCTAssertEqual(chmod(own, 0o644), 0)
        XCTAssertEqual(try xcfleet(["history", "--history-db", own]).status, 0)
        XCTAssertTrue(fm.createFile(atPath: own + "-wal", contents: Data(), attributes: [.posixPermissions: 0o666]))
        XCTAssertEqual(chmod(own + "-wal", 0o666), 0)
        r = try xcfleet(["history", "--history-db", own])
        XCTAssertEqual(r.status, 3, r.stderr)
        XCTAssertTrue(r.stderr.contains("own.sqlite-wal can be written by every user"), r.stderr)
        try fm.removeItem(atPath: own + "-wal")

        // A folder every user may write (no sticky bit): refused before the file is created.
        let open = dir.appendingPathComponent("open")
        try fm.createDirectory(at: open, withIntermediateDirectories: true)
        XCTAssertEqual(chmod(open.path, 0o777), 0)
        r = try xcfleet(["history", "--history-db", open.appendingPathComponent("h.sqlite").path])
        XCTAssertEqual(r.status, 3, r.stderr)
        XCTAssertTrue(r.stderr.contains("folder") && r.stderr.contains("chmod o-w"), r.stderr)
        XCTAssertEqual(try fm.contentsOfDirectory(atPath: open.path), [])
        // With the sticky bit (like /tmp) others cannot replace our file: allowed.
        XCTAssertEqual(chmod(open.path, 0o1777), 0)
        XCTAssertEqual(try xcfleet(["history", "--history-db", open.appendingPathComponent("h.sqlite").path]).status, 0)
        for line in [r.stderr] { XCTAssertEqual(line.split(separator: "\n").count, 1, line) }
    }

    // MARK: 7. The history password on the command line, and a password file

    func testAPasswordOnTheCommandLineWarnsAndAPasswordFileIsUsedOnlyWhenPrivate() throws {
        TestPostgres.prepare()
        let url = try TestPostgres.baseURL() // postgresql://xcfleet:PW@127.0.0.1:PORT/history
        let secret = try XCTUnwrap(HistoryLocation.secrets(in: url).first { $0 != "xcfleet" })
        let hostPart = try XCTUnwrap(url.range(of: "@")).upperBound
        let address = String(url[hostPart...]) // 127.0.0.1:PORT/history
        let port = try XCTUnwrap(address.split(separator: "/").first?.split(separator: ":").last)
        let bare = "postgresql://xcfleet@\(address)"

        // On the command line: works, one warning line, the password in no output.
        var r = try xcfleet(["history", "--history-url", url])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stderr.contains("warning: --history-url holds a password") && r.stderr.contains("XCFLEET_HISTORY_URL"), r.stderr)
        XCTAssertFalse(r.stderr.contains(secret) || r.stdout.contains(secret))
        // In the environment: no warning.
        r = try xcfleet(["history"], environment: ["XCFLEET_HISTORY_URL": url])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertFalse(r.stderr.contains("warning"), r.stderr)

        // Control: without a password the server refuses.
        r = try xcfleet(["history", "--history-url", bare])
        XCTAssertNotEqual(r.status, 0, "the server should want a password: \(r.stdout)")
        // A private password file supplies it.
        let passfile = dir.appendingPathComponent("pgpass").path
        XCTAssertTrue(FileManager.default.createFile(atPath: passfile, contents: Data("127.0.0.1:\(port):*:xcfleet:\(secret)\n".utf8)))
        XCTAssertEqual(chmod(passfile, 0o600), 0)
        for variable in ["XCFLEET_HISTORY_PASSFILE", "PGPASSFILE"] {
            r = try xcfleet(["history", "--history-url", bare], environment: [variable: passfile])
            XCTAssertEqual(r.status, 0, "\(variable): \(r.stderr)")
            XCTAssertFalse(r.stderr.contains("warning"), r.stderr)
        }
        // One others can read: exit 2, one line naming the fix, nothing from it shown.
        XCTAssertEqual(chmod(passfile, 0o644), 0)
        r = try xcfleet(["history", "--history-url", bare], environment: ["XCFLEET_HISTORY_PASSFILE": passfile])
        XCTAssertEqual(r.status, 2, r.stderr)
        XCTAssertEqual(r.stderr.split(separator: "\n").count, 1, r.stderr)
        XCTAssertTrue(r.stderr.contains("chmod 600 \(passfile)"), r.stderr)
        XCTAssertFalse(r.stderr.contains(secret))
        r = try xcfleet(["history", "--history-url", bare], environment: ["XCFLEET_HISTORY_PASSFILE": dir.appendingPathComponent("missing").path])
        XCTAssertEqual(r.status, 2, r.stderr)
        // The help says where the password goes.
        r = try xcfleet(["history", "--help"])
        XCTAssertTrue(r.stdout.contains("XCFLEET_HISTORY_PASSFILE") && r.stdout.contains("ps"), r.stdout)
    }
}

