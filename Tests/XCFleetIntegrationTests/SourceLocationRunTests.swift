import Foundation
import XCTest
import XCFleetKit
import XCFleetTestSupport

/// End to end: a copy of the repository with a broken core file (the key ignores the
/// account; a session call traps) and a broken test file, run by the real `xcfleet` binary locally
/// and over loopback SSH with another (symlinked) work root. Every location in every output —
/// annotations, terminal, summary.md, report.html, report.json, junit.xml — must be a path of the
/// repository that exists (with a line inside the file), or say it is generated; no job folder leaks.
/// Two real builds (~15–40 s each here).
final class SourceLocationRunTests: XCTestCase {
    private var work: URL!
    private var repo: URL!
    private var testLine = 0
    private var coreLine = 0
    /// The line of `testC1_equalityComparesEveryField`'s "account differs" assertion.
    private var keyLine = 0

    override func setUpWithError() throws {
        work = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("xcfleet-srcloc-\(UUID().uuidString.prefix(8))")
        repo = work.appendingPathComponent("repo")
        let fm = FileManager.default
        for part in ["Package.swift", "Plans", "Templates", "Sources/CacheContract"] {
            let dest = repo.appendingPathComponent(part)
            try fm.createDirectory(at: dest.deletingLastPathComponent(), withIntermediateDirectories: true)
            try fm.copyItem(at: TestHosts.packageRoot.appendingPathComponent(part), to: dest)
        }
        // Equality and hash both ignore the account (as mutant key-without-account does): hash and
        // equality stay consistent, so the tests fail rather than crash in a Dictionary at random.
        try edit("Sources/CacheContract/MemoryKey.swift", "return account == other.account\n            && resource == other.resource", "return resource == other.resource")
        try edit("Sources/CacheContract/MemoryKey.swift", "        hasher.combine(account)\n", "")
        coreLine = try edit("Sources/CacheContract/SessionCoordinator.swift", "public func abandon(_ ticket: Ticket) {\n",
                            "public func abandon(_ ticket: Ticket) {\n        preconditionFailure(\"deliberately broken core\")\n")
        let keyTests = try String(contentsOf: repo.appendingPathComponent("Templates/cache-contract/MemoryKeyTests.swift"), encoding: .utf8)
        keyLine = try XCTUnwrap(keyTests.split(separator: "\n", omittingEmptySubsequences: false).firstIndex { $0.contains("account differs\")") }) + 1
        testLine = try edit("Templates/cache-contract/DictionaryCacheTests.swift", "let name = \"testC10_doubleNeverEvicts\"\n",
                            "let name = \"testC10_doubleNeverEvicts\"\n        XCTAssertEqual(1, 2, \"deliberately broken test file\")\n")
    }

    override func tearDownWithError() throws {
        // Kept for a look when something failed.
        if (testRun?.failureCount ?? 0) > 0 { print("SourceLocationRunTests: outputs kept in \(work.path)") }
        else { try? FileManager.default.removeItem(at: work) }
    }

    /// Replaces `old` (must occur) by `new`; returns the 1-based line of `new`'s second line (the inserted one).
    @discardableResult
    private func edit(_ path: String, _ old: String, _ new: String) throws -> Int {
        let url = repo.appendingPathComponent(path)
        let text = try String(contentsOf: url, encoding: .utf8)
        let range = try XCTUnwrap(text.range(of: old), "\(path) no longer has the text this test breaks")
        try text.replacingCharacters(in: range, with: new).write(to: url, atomically: true, encoding: .utf8)
        return text[..<range.lowerBound].filter { $0 == "\n" }.count + 2
    }

    private func run(_ extra: [String]) throws -> (status: Int32, output: String, runDirectory: URL) {
        let p = Process()
        p.executableURL = XCFleetProcess.binary
        let runs = work.appendingPathComponent("runs-\(UUID().uuidString.prefix(6))")
        p.arguments = ["run", "Plans/cache-contract.json", "--templates", repo.path, "--runs", runs.path, "--run-id", "run"] + extra
        p.currentDirectoryURL = repo
        var env = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("GITHUB_") }
        env["GITHUB_ACTIONS"] = "true"
        env["GITHUB_SERVER_URL"] = "https://github.com"
        env["GITHUB_REPOSITORY"] = "acme/app"
        env["GITHUB_SHA"] = "0123456789abcdef0123456789abcdef01234567"
        p.environment = env
        let outFile = work.appendingPathComponent("out-\(UUID().uuidString.prefix(6)).txt")
        _ = FileManager.default.createFile(atPath: outFile.path, contents: nil)
        let out = try FileHandle(forWritingTo: outFile)
        p.standardOutput = out
        p.standardError = out
        p.standardInput = FileHandle.nullDevice
        try p.run()
        p.waitUntilExit()
        try? out.close()
        return (p.terminationStatus, try String(contentsOf: outFile, encoding: .utf8), runs.appendingPathComponent("run"))
    }

    func testLocalRunPointsIntoTheRepository() throws {
        let result = try run([])
        XCTAssertEqual(result.status, 1, result.output)
        try checkEveryOutput(result, hostFolders: ["/tmp/xcfleet-local/jobs/"])
    }

    func testSSHRunWithASymlinkedWorkRootPointsIntoTheRepository() throws {
        let h = try XCTUnwrap(TestHosts.hosts().first)
        let real = URL(fileURLWithPath: h.directory).appendingPathComponent("\(h.name)/srcloc-real-\(UUID().uuidString.prefix(6))")
        let link = URL(fileURLWithPath: h.directory).appendingPathComponent("\(h.name)/srcloc-link-\(UUID().uuidString.prefix(6))")
        try FileManager.default.createDirectory(at: real, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: real)
        defer { try? FileManager.default.removeItem(at: link); try? FileManager.default.removeItem(at: real) }
        let fleet = work.appendingPathComponent("fleet.json")
        try Data("""
        {"hosts": [{"name": "\(h.name)", "address": "127.0.0.1", "port": \(h.port), "user": "\(h.user)",
          "identityFile": "\(h.identityFile)", "knownHostsFile": "\(h.knownHostsFile)", "slots": 1,
          "labels": ["platform:linux", "swift"], "workRoot": "\(link.path)",
          "toolchain": {"swiftPath": "/opt/swift/usr/bin/swift"}}]}
        """.utf8).write(to: fleet)
        let result = try run(["--fleet", fleet.path])
        XCTAssertEqual(result.status, 1, result.output)
        let report = try JSONReportRenderer.decode(Data(contentsOf: result.runDirectory.appendingPathComponent("report.json")))
        XCTAssertEqual(report.suites[0].jobs[0].decisive?.host, h.name)
        try checkEveryOutput(result, hostFolders: [real.lastPathComponent, link.lastPathComponent])
    }

    /// Every `….swift[:line]` in every output names an existing repository file (line inside it)
    /// or is labelled generated; the expected locations are there; no host job folder shows.
    private func checkEveryOutput(_ result: (status: Int32, output: String, runDirectory: URL), hostFolders: [String]) throws {
        let dir = result.runDirectory
        let json = try String(contentsOf: dir.appendingPathComponent("report.json"), encoding: .utf8)
        // report.json keeps the host's path beside the mapped one, on purpose: only there.
        let jsonWithoutHostPaths = json.split(separator: "\n").filter { !$0.contains("\"hostFile\"") }.joined(separator: "\n")
        XCTAssertTrue(json.contains("\"hostFile\""), "report.json keeps the host path")
        let failures = try JSONReportRenderer.decode(Data(json.utf8)).suites.flatMap(\.jobs).compactMap(\.decisive).flatMap(\.tests).flatMap(\.failures)
        XCTAssertTrue(failures.contains { $0.file == "Templates/cache-contract/MemoryKeyTests.swift" && $0.line == keyLine && $0.location?.hostFile.hasSuffix("/Tests/CacheContractTests/MemoryKeyTests.swift") == true })
        XCTAssertTrue(failures.contains { $0.file == "Templates/cache-contract/DictionaryCacheTests.swift" && $0.line == testLine })
        let outputs: [(String, String)] = [
            ("terminal", result.output),
            ("summary.md", try String(contentsOf: dir.appendingPathComponent("summary.md"), encoding: .utf8).replacingOccurrences(of: "\\_", with: "_")),
            ("report.html", try String(contentsOf: dir.appendingPathComponent("report.html"), encoding: .utf8)),
            ("junit.xml", try String(contentsOf: dir.appendingPathComponent("junit.xml"), encoding: .utf8)),
            ("report.json", jsonWithoutHostPaths),
        ]
        let expected = ["Templates/cache-contract/MemoryKeyTests.swift:\(keyLine)",
                        "Templates/cache-contract/DictionaryCacheTests.swift:\(testLine)",
                        "Sources/CacheContract/SessionCoordinator.swift:\(coreLine)"]
        let token = try NSRegularExpression(pattern: #"(generated: )?(?<![A-Za-z0-9_./~%@+:-])((?:file://)?[A-Za-z0-9_./~%@+-]*\.swift)(:[0-9]+)?"#)
        for (name, text) in outputs {
            for e in expected where name != "report.json" || e.hasPrefix("Sources/") { XCTAssertTrue(text.contains(e), "\(name) lacks \(e)") }
            for folder in hostFolders { XCTAssertFalse(text.contains(folder), "\(name) shows a host folder (\(folder))") }
            XCTAssertFalse(text.contains("/jobs/cache-gate"), "\(name) shows a job folder")
            var seen = 0
            for m in token.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                let r = { (i: Int) in Range(m.range(at: i), in: text).map { String(text[$0]) } }
                if r(1) != nil { continue }  // "generated: X.swift" says what it is
                let path = try XCTUnwrap(r(2))
                if path == ".swift" { continue }
                seen += 1
                XCTAssertFalse(path.hasPrefix("/") || path.hasPrefix("file:"), "\(name): \(path) is a host path")
                let file = repo.appendingPathComponent(path)
                guard FileManager.default.fileExists(atPath: file.path) else { XCTFail("\(name): \(path) is not a file of the repository"); continue }
                if let l = r(3).flatMap({ Int($0.dropFirst()) }) {
                    let count = try String(contentsOf: file, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false).count
                    XCTAssertTrue(l >= 1 && l <= count, "\(name): \(path):\(l) is past the file's end")
                }
            }
            XCTAssertGreaterThanOrEqual(seen, 3, "\(name) shows its locations")
        }
        // Annotations: repository files only, within GitHub's 10 errors per step.
        let annotations = result.output.split(separator: "\n").filter { $0.hasPrefix("::") }
        XCTAssertLessThanOrEqual(annotations.filter { $0.hasPrefix("::error") }.count, 10)
        XCTAssertTrue(annotations.contains { $0.hasPrefix("::error file=Templates/cache-contract/MemoryKeyTests.swift,line=\(keyLine),") }, annotations.joined(separator: "\n"))
        XCTAssertTrue(annotations.contains { $0.hasPrefix("::error file=Templates/cache-contract/DictionaryCacheTests.swift,line=\(testLine),") })
        for a in annotations {
            guard let r = a.range(of: "file=") else { continue }
            let path = String(a[r.upperBound...].prefix { $0 != "," })
            XCTAssertTrue(FileManager.default.fileExists(atPath: repo.appendingPathComponent(path).path), "annotation file \(path)")
        }
        // report.html links repository locations to the forge at the commit.
        XCTAssertTrue(outputs[2].1.contains("href=\"https://github.com/acme/app/blob/0123456789abcdef0123456789abcdef01234567/Templates/cache-contract/MemoryKeyTests.swift#L\(keyLine)\""))
        // junit.xml still validates against Jenkins' schema (location in the failure text, no extra attributes).
        let xsd = TestHosts.packageRoot.deletingLastPathComponent().appendingPathComponent("shared/fixtures/junit/junit-10.xsd")
        if FileManager.default.fileExists(atPath: xsd.path), FileManager.default.isExecutableFile(atPath: "/usr/bin/xmllint") {
            let p = Process()
            p.executableURL = URL(fileURLWithPath: "/usr/bin/xmllint")
            p.arguments = ["--noout", "--schema", xsd.path, dir.appendingPathComponent("junit.xml").path]
            p.standardOutput = FileHandle.nullDevice
            p.standardError = FileHandle.nullDevice
            try p.run()
            p.waitUntilExit()
            XCTAssertEqual(p.terminationStatus, 0, "junit.xml fails junit-10.xsd")
        }
        // `xcfleet report` rebuilds the same mapped reports from events.jsonl alone.
        let before = try Data(contentsOf: dir.appendingPathComponent("report.json"))
        let p = Process()
        p.executableURL = XCFleetProcess.binary
        p.arguments = ["report", dir.path]
        p.currentDirectoryURL = work
        p.standardOutput = FileHandle.nullDevice
        try p.run()
        p.waitUntilExit()
        XCTAssertEqual(try Data(contentsOf: dir.appendingPathComponent("report.json")), before)
    }

    /// `xcfleet parse --source-root`: a log from a Mac CI job, paths under its checkout.
    func testParseMapsALogFromElsewhere() throws {
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        let log = work.appendingPathComponent("xcodebuild.log")
        try Data("""
        Test Suite 'All tests' started at 2026-12-01 10:00:00.000.
        Test Case '-[CacheContractTests.MemoryKeyTests testC1_equalityComparesEveryField]' started.
        /Users/runner/work/app/app/Templates/cache-contract/MemoryKeyTests.swift:72: error: -[CacheContractTests.MemoryKeyTests testC1_equalityComparesEveryField] : XCTAssertFalse failed - account differs
        Test Case '-[CacheContractTests.MemoryKeyTests testC1_equalityComparesEveryField]' failed (0.001 seconds).

        """.utf8).write(to: log)
        func parse(_ extra: [String]) throws -> String {
            let p = Process()
            p.executableURL = XCFleetProcess.binary
            p.arguments = ["parse", log.path] + extra
            p.currentDirectoryURL = repo
            p.environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("GITHUB_") }.merging(["GITHUB_ACTIONS": "true"]) { $1 }
            let out = Pipe()
            p.standardOutput = out
            p.standardError = out
            try p.run()
            let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            p.waitUntilExit()
            return text
        }
        let mapped = try parse(["--source-root", "/Users/runner/work/app/app=."])
        XCTAssertTrue(mapped.contains("::error file=Templates/cache-contract/MemoryKeyTests.swift,line=72,"), mapped)
        let unmapped = try parse([])
        // Without --source-root the host path is not a file of this repository: it goes into the message.
        XCTAssertFalse(unmapped.contains("file=/Users/"), unmapped)
        XCTAssertTrue(unmapped.contains("::at /Users/runner/work/app/app/Templates/cache-contract/MemoryKeyTests.swift:72: "), unmapped)
        let bad = try parse(["--source-root", "nothing"])
        XCTAssertTrue(bad.contains("xcfleet: --source-root nothing: give HOST_PREFIX=REPO_DIR"), bad)
    }
}
