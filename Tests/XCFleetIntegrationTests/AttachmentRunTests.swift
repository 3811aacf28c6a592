import Foundation
import XCTest
@testable import XCFleetKit
import XCFleetTestSupport

/// `xcfleet run` with a failing test that leaves attachments, as a user runs it (docs/attachments.md):
/// the real binary on the built-in local host and over SSH (the fake `swift` of scripts/fake-swift.sh,
/// `FAKE_SWIFT_ATTACH` writing the files), and once with the real toolchain and a real XCTest.
/// The files must be in the run directory and named in report.json, report.html, summary.md and
/// junit.xml; what was left out (a link, a file over the cap) is listed with why; `xcfleet report`
/// rebuilds the same bytes.
final class AttachmentRunTests: XCTestCase {
    private let failing = "CachedLoaderTests/testC6_alwaysMissDoubleStillLoadsFromSource"
    private var dir: URL!

    override func setUpWithError() throws {
        dir = try TestPaths.temporaryDirectory()
    }

    override func tearDownWithError() throws {
        if (testRun?.failureCount ?? 0) > 0 { print("AttachmentRunTests: kept \(dir.path)") } else { try? FileManager.default.removeItem(at: dir) }
    }

    /// What the failing test writes: a screenshot in its own folder, a log, a page with a hostile
    /// name, a link out of the folder and a file over the per-file cap (20 MiB).
    private var attach: String {
        #"d="$XCFLEET_ATTACHMENTS_DIR"; t="$d/CachedLoaderTests/testC6_alwaysMissDoubleStillLoadsFromSource"; mkdir -p "$t"; "#
            + #"printf '\211PNG\r\n\032\n' > "$t/shot.png"; echo 'server said no' > "$d/server.log"; "#
            + #"echo '<script>alert(1)</script>' > "$d/<img src=x onerror=alert(1)>.html"; ln -s /etc/passwd "$d/passwd"; "#
            + #"head -c 21000000 /dev/zero > "$d/huge.bin""#
    }

    private func environmentJSON() -> String {
        let env = ["FAKE_SWIFT_FAIL": failing, "FAKE_SWIFT_ATTACH": attach]
        let data = try? JSONSerialization.data(withJSONObject: env, options: [.sortedKeys])
        return String(decoding: data ?? Data(), as: UTF8.self)
    }

    private func runAndCheck(fleet: URL, host: String) throws {
        let runs = dir.appendingPathComponent("runs")
        let result = try FakeToolchain.xcfleet(["run", "Plans/cache-contract.json", "--fleet", fleet.path, "--runs", runs.path, "--run-id", "att", "--no-history"])
        XCTAssertEqual(result.status, 1, result.stdout + result.stderr)
        XCTAssertTrue((result.stdout + result.stderr).contains("cache-gate attempt 1: 3 attachments fetched (49 bytes), 2 left out: huge.bin (over the per-file cap of 20 MiB), …"), result.stdout + result.stderr)
        let run = runs.appendingPathComponent("att")
        let shot = "attachments/cache-gate/1/CachedLoaderTests/testC6_alwaysMissDoubleStillLoadsFromSource/shot.png"
        XCTAssertEqual(try Data(contentsOf: run.appendingPathComponent(shot)), Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]))
        XCTAssertEqual(try String(contentsOf: run.appendingPathComponent("attachments/cache-gate/1/server.log"), encoding: .utf8), "server said no\n")
        XCTAssertFalse(FileManager.default.fileExists(atPath: run.appendingPathComponent("attachments/cache-gate/1/passwd").path))
        XCTAssertFalse(FileManager.default.fileExists(atPath: run.appendingPathComponent("attachments/cache-gate/1/huge.bin").path))

        // report.json: the screenshot on its test, the rest on the attempt, what was left out with why.
        let report = try JSONDecoder().decode(RunReport.self, from: Data(contentsOf: run.appendingPathComponent("report.json")))
        let attempt = try XCTUnwrap(report.suites.first?.jobs.first?.decisive)
        XCTAssertEqual(attempt.host, host)
        let test = try XCTUnwrap(attempt.tests.first { $0.id.name == "testC6_alwaysMissDoubleStillLoadsFromSource" })
        XCTAssertEqual(test.attachments, [AttachmentFile(name: "CachedLoaderTests/testC6_alwaysMissDoubleStillLoadsFromSource/shot.png", path: shot,
                                                          bytes: 8, kind: .image, test: "CachedLoaderTests/testC6_alwaysMissDoubleStillLoadsFromSource")])
        let rest = try XCTUnwrap(attempt.attachments)
        XCTAssertEqual(rest.files.map(\.path).sorted(), ["attachments/cache-gate/1/_img_src_x_onerror_alert_1__.html.txt", "attachments/cache-gate/1/server.log"])
        XCTAssertEqual(rest.leftOut.map { "\($0.name): \($0.reason)" }.sorted(),
                       ["huge.bin: over the per-file cap of 20 MiB", "passwd: a symbolic link (links are not followed)"])

        // report.html: the image inline beside its failure, the page's policy allowing only own images, no raw hostile markup.
        let html = try String(contentsOf: run.appendingPathComponent("report.html"), encoding: .utf8)
        XCTAssertTrue(html.contains("<img src=\"\(shot)\""), "report.html shows the screenshot")
        XCTAssertTrue(html.contains("default-src 'none'; img-src 'self';"))
        XCTAssertFalse(html.contains("<img src=x"), "a hostile name is escaped")
        XCTAssertTrue(html.contains("&lt;img src=x onerror=alert(1)&gt;.html"))
        XCTAssertTrue(html.contains("not fetched: huge.bin (20 MiB): over the per-file cap of 20 MiB"))
        // summary.md links; junit.xml names them the way Jenkins and GitLab read.
        let md = try String(contentsOf: run.appendingPathComponent("summary.md"), encoding: .utf8)
        XCTAssertTrue(md.contains("](\(shot))"), md)
        XCTAssertTrue(md.contains("attachments not fetched: huge.bin (20 MiB): over the per-file cap of 20 MiB"), md)
        let junitURL = run.appendingPathComponent("junit.xml")
        let junit = try String(contentsOf: junitURL, encoding: .utf8)
        XCTAssertTrue(junit.contains("<system-out>[[ATTACHMENT|\(shot)]]</system-out>"), junit)
        XCTAssertTrue(junit.contains("[[ATTACHMENT|attachments/cache-gate/1/server.log]]"), junit)
        XCTAssertFalse(junit.contains("huge.bin]]"))
        XCTAssertFalse(junit.contains("<failure message=\"XCTAssertTrue failed - fake failure\" type=\"assertion\"></failure>"))
        try validate(junitURL)

        // Old and new: `xcfleet report` rebuilds every artifact from events.jsonl byte for byte.
        let copy = dir.appendingPathComponent("copy")
        try FileManager.default.copyItem(at: run, to: copy)
        let names = ["report.json", "report.html", "summary.md", "junit.xml"]
        for n in names { try FileManager.default.removeItem(at: copy.appendingPathComponent(n)) }
        let rebuilt = try FakeToolchain.xcfleet(["report", copy.path])
        XCTAssertEqual(rebuilt.status, 1, rebuilt.stdout + rebuilt.stderr)
        for n in names {
            XCTAssertEqual(try Data(contentsOf: copy.appendingPathComponent(n)), try Data(contentsOf: run.appendingPathComponent(n)), n)
        }
    }

    private func validate(_ url: URL) throws {
        guard let xmllint = ReportingTestSupport.which("xmllint") else { throw XCTSkip("xmllint not found: apt-get install libxml2-utils") }
        let xsd = ReportingTestSupport.sharedDir.appendingPathComponent("fixtures/junit/junit-10.xsd")
        guard FileManager.default.fileExists(atPath: xsd.path) else {
            print("AttachmentRunTests: \(xsd.path) is absent; junit.xml checked for well-formedness only")
            XCTAssertEqual(try ReportingTestSupport.run(xmllint, ["--noout", url.path]).status, 0)
            return
        }
        let v = try ReportingTestSupport.run(xmllint, ["--noout", "--schema", xsd.path, url.path])
        XCTAssertEqual(v.status, 0, v.stderr)
    }

    func testAFailingTestsAttachmentsReachEveryReportOnTheLocalHost() throws {
        let swift = try FakeToolchain.install(in: dir)
        let fleet = dir.appendingPathComponent("fleet.json")
        try Data(#"{"hosts": [{"name": "local", "transport": "local", "environment": \#(environmentJSON()), "toolchain": {"swiftPath": "\#(swift.path)"}}]}"#.utf8).write(to: fleet)
        try runAndCheck(fleet: fleet, host: "local")
    }

    /// The fleet's caps replace the defaults: a run cap of 12 bytes takes the 8-byte screenshot only.
    func testTheFleetsCapsApply() throws {
        let swift = try FakeToolchain.install(in: dir)
        let fleet = dir.appendingPathComponent("fleet.json")
        try Data(#"{"attachmentRunBytes": 12, "attachmentFilesPerAttempt": 10, "hosts": [{"name": "local", "transport": "local", "environment": \#(environmentJSON()), "toolchain": {"swiftPath": "\#(swift.path)"}}]}"#.utf8).write(to: fleet)
        let runs = dir.appendingPathComponent("runs")
        let result = try FakeToolchain.xcfleet(["run", "Plans/cache-contract.json", "--fleet", fleet.path, "--runs", runs.path, "--run-id", "caps", "--no-history"])
        XCTAssertEqual(result.status, 1, result.stdout + result.stderr)
        let report = try JSONDecoder().decode(RunReport.self, from: Data(contentsOf: runs.appendingPathComponent("caps/report.json")))
        let attempt = try XCTUnwrap(report.suites.first?.jobs.first?.decisive)
        XCTAssertEqual(attempt.tests.compactMap(\.attachments).flatMap { $0 }.map(\.bytes), [8])
        let why = Dictionary(uniqueKeysWithValues: (attempt.attachments?.leftOut ?? []).map { ($0.name, $0.reason) })
        XCTAssertEqual(why["server.log"], "over the run's cap of 12 bytes (8 bytes already fetched)")
        XCTAssertEqual(why["<img src=x onerror=alert(1)>.html"], "over the run's cap of 12 bytes (0 bytes already fetched)")
        // A bad value is bad input: one line naming the key, exit 2.
        try Data(#"{"attachmentFileBytes": -1, "hosts": [{"name": "local", "transport": "local"}]}"#.utf8).write(to: fleet)
        let bad = try FakeToolchain.xcfleet(["run", "Plans/cache-contract.json", "--fleet", fleet.path, "--runs", runs.path, "--no-history"])
        XCTAssertEqual(bad.status, 2, bad.stdout + bad.stderr)
        XCTAssertTrue(bad.stderr.contains("attachmentFileBytes"), bad.stderr)
    }

    func testAFailingTestsAttachmentsComeBackOverSSH() throws {
        let h = try XCTUnwrap(TestHosts.hosts().first)
        let swift = try FakeToolchain.install(in: dir)
        let fleet = dir.appendingPathComponent("fleet.json")
        try Data("""
        {"hosts": [{"name": "\(h.name)", "address": "127.0.0.1", "port": \(h.port), "user": "\(h.user)",
          "identityFile": "\(h.identityFile)", "knownHostsFile": "\(h.knownHostsFile)", "slots": 1,
          "workRoot": "\(dir.path)/work", "environment": \(environmentJSON()), "toolchain": {"swiftPath": "\(swift.path)"}}]}
        """.utf8).write(to: fleet)
        try runAndCheck(fleet: fleet, host: h.name)
    }

    /// The real toolchain and a real XCTest that writes into `XCFLEET_ATTACHMENTS_DIR` and fails
    /// (one real build, ~30–60 s here).
    func testARealXCTestsAttachmentIsFetched() throws {
        let root = dir.appendingPathComponent("root")
        for part in ["Templates", "Sources/CacheContract"] {
            let dest = root.appendingPathComponent(part)
            try FileManager.default.createDirectory(at: dest.deletingLastPathComponent(), withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: TestPaths.packageRoot.appendingPathComponent(part), to: dest)
        }
        let file = root.appendingPathComponent("Templates/cache-contract/DictionaryCacheTests.swift")
        let text = try String(contentsOf: file, encoding: .utf8)
        let anchor = "let name = \"testC10_doubleNeverEvicts\"\n"
        let range = try XCTUnwrap(text.range(of: anchor), "the template no longer has the line this test edits")
        let inserted = """
                if let folder = ProcessInfo.processInfo.environment["XCFLEET_ATTACHMENTS_DIR"] {
                    let own = URL(fileURLWithPath: folder).appendingPathComponent("DictionaryCacheTests/testC10_doubleNeverEvicts")
                    try? FileManager.default.createDirectory(at: own, withIntermediateDirectories: true)
                    try? Data("what the test saw\\n".utf8).write(to: own.appendingPathComponent("evidence.txt"))
                }
                XCTFail("deliberately failing with an attachment")

        """
        try text.replacingCharacters(in: range, with: anchor + inserted).write(to: file, atomically: true, encoding: .utf8)
        let runs = dir.appendingPathComponent("runs")
        let result = try runCommand(TestPaths.xcfleetBinary, ["run", "Plans/cache-contract.json", "--runs", runs.path, "--run-id", "real",
                                                            "--templates", root.path, "--no-history"],
                                    cwd: TestPaths.packageRoot, environment: FakeToolchain.clearedEnvironment)
        XCTAssertEqual(result.status, 1, result.stdout + result.stderr)
        let path = "attachments/cache-gate/1/DictionaryCacheTests/testC10_doubleNeverEvicts/evidence.txt"
        XCTAssertEqual(try String(contentsOf: runs.appendingPathComponent("real/" + path), encoding: .utf8), "what the test saw\n")
        let report = try JSONDecoder().decode(RunReport.self, from: Data(contentsOf: runs.appendingPathComponent("real/report.json")))
        let test = report.suites.first?.jobs.first?.decisive?.tests.first { $0.id.name == "testC10_doubleNeverEvicts" }
        XCTAssertEqual(test?.status, .failed)
        XCTAssertEqual(test?.attachments?.map(\.path), [path])
        let junit = try String(contentsOf: runs.appendingPathComponent("real/junit.xml"), encoding: .utf8)
        XCTAssertTrue(junit.contains("[[ATTACHMENT|\(path)]]"), junit)
        try validate(runs.appendingPathComponent("real/junit.xml"))
    }
}
