import Foundation
import XCTest
import XCFleetKit
import XCFleetTestSupport

/// A team repository of thousands of files through the real `xcfleet` binary, on the local host and
/// on a loopback sshd host: the build's source manifest goes to the host as a file pushed with the
/// job (a command line carries about 32 KB over SSH and 128 KiB per argument on Linux), so the
/// run is green, and its warm rerun pushes no file contents and builds nothing.
final class LargeRepositoryRunTests: XCTestCase {
    var work: URL!

    /// Files of the generated package's targets (plus its manifest and one test file), of which
    /// `swiftFiles` are compiled.
    static let sourceFiles = 3_000
    static let swiftFiles = 24

    override func setUpWithError() throws {
        work = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("xcfleet-bigrepo-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
    }

    override func tearDown() {
        if let work { try? FileManager.default.removeItem(at: work) }
    }

    func testAThreeThousandFilePackageIsGreenLocallyAndItsWarmRerunReusesTheBuild() throws {
        let repo = try Self.generatedRepository(in: work)
        let plan = try writePlan(in: repo)
        try runTwice(plan, fleet: try localFleet(), host: "local")
    }

    func testAThreeThousandFilePackageIsGreenOverSSHAndItsWarmRerunReusesTheBuild() throws {
        let host = try XCTUnwrap(try TestHosts.hosts().first)
        let repo = try Self.generatedRepository(in: work)
        let plan = try writePlan(in: repo)
        try runTwice(plan, fleet: try sshFleet(host), host: host.name)
    }

    /// 1,200 XCTest tests on 2 shards over sshd: each shard's part (600 names of about 90 bytes,
    /// 54 kB, more than an SSH exec request carries) reaches the bundle on the command's input;
    /// every test runs once, and the one that fails at first is the only one the rerun takes.
    func testTwelveHundredTestsOnShardsOverSSHRunOnceEachAndTheRerunTakesOnlyTheFailure() throws {
        let host = try XCTUnwrap(try TestHosts.hosts().first)
        let repo = work.appendingPathComponent("many")
        let tests = repo.appendingPathComponent("Tests/ManyTests")
        try FileManager.default.createDirectory(at: tests, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: repo.appendingPathComponent("Sources/Many"), withIntermediateDirectories: true)
        try Data("public enum Many { public static func twice(_ x: Int) -> Int { 2 * x } }\n".utf8)
            .write(to: repo.appendingPathComponent("Sources/Many/Many.swift"))
        try Data("""
            // swift-tools-version:5.9
            import PackageDescription
            let package = Package(name: "Many", targets: [.target(name: "Many"), .testTarget(name: "ManyTests", dependencies: ["Many"])])

            """.utf8).write(to: repo.appendingPathComponent("Package.swift"))
        // Fails the first time it runs (the marker file is not there yet), passes after.
        let marker = work.appendingPathComponent("failed-once").path
        for c in 0..<12 {
            var text = "import XCTest\nimport Foundation\nimport Many\n\nfinal class ManyTests\(c): XCTestCase {\n"
            for i in c * 100 ..< c * 100 + 100 {
                if i == 1_034 {
                    text += "    func testThatTheNumberDoubledIsExactlyTwiceAsLargeAsTheNumberItWasMadeFrom\(i)() { if !FileManager.default.fileExists(atPath: \"\(marker)\") { FileManager.default.createFile(atPath: \"\(marker)\", contents: nil); XCTFail(\"first time\") } }\n"
                } else {
                    text += "    func testThatTheNumberDoubledIsExactlyTwiceAsLargeAsTheNumberItWasMadeFrom\(i)() { XCTAssertEqual(Many.twice(\(i)), \(2 * i)) }\n"
                }
            }
            try Data((text + "}\n").utf8).write(to: tests.appendingPathComponent("ManyTests\(c).swift"))
        }
        try Data(".build/\n".utf8).write(to: repo.appendingPathComponent(".gitignore"))
        for args in [["init", "-q"], ["add", "-A"], ["-c", "user.email=t@example.invalid", "-c", "user.name=t", "commit", "-qm", "generated"]] {
            _ = try TestHosts.shell(["git", "-C", repo.path] + args)
        }
        let plan = repo.appendingPathComponent("xcfleet.json").path
        let suite: [String: Any] = ["name": "many", "package": ".", "shards": 2, "retries": ["testFailures": 1], "allowFlaky": true]
        try JSONSerialization.data(withJSONObject: ["name": "many-tests", "suites": [suite]]).write(to: URL(fileURLWithPath: plan))

        let runs = work.appendingPathComponent("runs")
        let result = try run(plan, fleet: try sshFleet(host), runs: runs, id: "many")
        XCTAssertEqual(result.status, 0, String(result.output.suffix(3_000)))
        XCTAssertEqual(Set(result.passed).count, 1_200, "every test passed in the end")
        let report = try JSONDecoder().decode(RunReport.self, from: Data(contentsOf: runs.appendingPathComponent("many/report.json")))
        let jobs = try XCTUnwrap(report.suites.first?.jobs)
        XCTAssertEqual(jobs.count, 2)
        let parts = jobs.compactMap { $0.attempts.first?.discovery?.selected }
        XCTAssertEqual(parts.map(\.count).sorted(), [600, 600], "two halves")
        XCTAssertGreaterThan(parts[0].map { $0.utf8.count + 1 }.reduce(0, +), 48_000, "a part is longer than an SSH exec request")
        XCTAssertEqual(Set(parts.flatMap { $0 }).count, 1_200, "disjoint parts that cover every test")
        let reruns = jobs.flatMap { $0.attempts.dropFirst() }
        XCTAssertEqual(reruns.compactMap { $0.discovery?.selected }, [["ManyTests.ManyTests10/testThatTheNumberDoubledIsExactlyTwiceAsLargeAsTheNumberItWasMadeFrom1034"]], "only the failure reruns")
        let events = (try? EventLog.read(runs.appendingPathComponent("many/events.jsonl"))) ?? []
        let firstRuns = events.filter { if case .test(let ref, .testFinished) = $0.body { return ref.attempt == 1 } else { return false } }
        XCTAssertEqual(firstRuns.count, 1_200, "each test ran once in the first attempts")
    }

    // MARK: Helpers

    /// Cold, then warm with the same work root and history (the history holds what xcfleet built).
    private func runTwice(_ plan: String, fleet: String, host: String) throws {
        let runs = work.appendingPathComponent("runs")
        let started = Date()
        let cold = try run(plan, fleet: fleet, runs: runs, id: "cold")
        let coldSeconds = Date().timeIntervalSince(started)
        XCTAssertEqual(cold.status, 0, String(cold.output.suffix(3_000)))
        let coldPush = try XCTUnwrap(cold.pushes.first)
        XCTAssertGreaterThanOrEqual(coldPush.totalFiles, Self.sourceFiles + 2, "every file of the repository was pushed")
        XCTAssertGreaterThanOrEqual(coldPush.filesSent, Self.sourceFiles, "a cold host lacks them all")
        XCTAssertGreaterThan(coldPush.bytesSent, 3_000 * 64, "the file list alone is longer than an SSH exec line could carry")
        XCTAssertEqual(cold.builds.map(\.origin), [.cold])
        XCTAssertEqual(cold.builds.first?.host, host)
        XCTAssertEqual(cold.passed, ["BigTests/testFirstFile", "BigTests/testLastFile", "BigTests/testSum"])

        let again = Date()
        let warm = try run(plan, fleet: fleet, runs: runs, id: "warm")
        let warmSeconds = Date().timeIntervalSince(again)
        XCTAssertEqual(warm.status, 0, String(warm.output.suffix(3_000)))
        XCTAssertEqual(warm.pushes.first?.filesSent, 0, "the host holds every file: nothing but the list is sent")
        XCTAssertEqual(warm.builds.map(\.origin), [.cached], "the warm rerun reuses the build")
        XCTAssertEqual(warm.builds.first?.key, cold.builds.first?.key)
        XCTAssertEqual(warm.passed, cold.passed)
        print("LargeRepositoryRunTests \(host): \(coldPush.totalFiles) files, \(coldPush.totalBytes) bytes; cold run \(Int(coldSeconds)) s, warm run \(String(format: "%.1f", warmSeconds)) s")
    }

    /// A git repository holding a package of `sourceFiles` files in folders of 100: `swiftFiles`
    /// small Swift files of a library, the rest small data files of its test target (`.copy`
    /// resources, which the tests read through `Bundle.module`). Every one is an input of the build,
    /// in its manifest, and what the push and the build cache must carry is the number of files, not
    /// what compiling them costs: 3,000 Swift files would take 4 minutes on 2 shared cores, 200 about
    /// 40 s, and 24 a few seconds.
    static func generatedRepository(in work: URL) throws -> URL {
        let repo = work.appendingPathComponent("repo")
        let sources = repo.appendingPathComponent("Sources/Big"), tests = repo.appendingPathComponent("Tests/BigTests")
        try FileManager.default.createDirectory(at: sources, withIntermediateDirectories: true)
        try Data("""
            // swift-tools-version:5.9
            import PackageDescription
            let package = Package(name: "Big", targets: [
                .target(name: "Big"),
                .testTarget(name: "BigTests", dependencies: ["Big"], resources: [.copy("Fixtures")]),
            ])

            """.utf8).write(to: repo.appendingPathComponent("Package.swift"))
        for folder in 0..<(sourceFiles + 99) / 100 {
            for i in folder * 100 ..< min(sourceFiles, folder * 100 + 100) {
                let (dir, name, text) = i < swiftFiles
                    ? (sources.appendingPathComponent("Part\(folder)"), "Generated\(i).swift", "public enum Generated\(i) { public static let value = \(i) }\n")
                    : (tests.appendingPathComponent("Fixtures/Part\(folder)"), "fixture\(i).txt", "fixture \(i)\n")
                try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
                try Data(text.utf8).write(to: dir.appendingPathComponent(name))
            }
        }
        let last = sourceFiles - 1
        try Data("""
            import XCTest
            import Foundation
            import Big

            final class BigTests: XCTestCase {
                func testFirstFile() { XCTAssertEqual(Generated0.value, 0) }
                func testLastFile() throws {
                    let url = try XCTUnwrap(Bundle.module.url(forResource: "Fixtures/Part\(last / 100)/fixture\(last)", withExtension: "txt"))
                    XCTAssertEqual(try String(contentsOf: url, encoding: .utf8), "fixture \(last)\\n")
                }
                func testSum() { XCTAssertEqual(Generated1.value + Generated\(swiftFiles - 1).value, \(swiftFiles)) }
            }

            """.utf8).write(to: tests.appendingPathComponent("BigTests.swift"))
        try Data(".build/\n".utf8).write(to: repo.appendingPathComponent(".gitignore"))
        _ = try TestHosts.shell(["git", "-C", repo.path, "init", "-q"])
        _ = try TestHosts.shell(["git", "-C", repo.path, "add", "-A"])
        _ = try TestHosts.shell(["git", "-C", repo.path, "-c", "user.email=t@example.invalid", "-c", "user.name=t", "commit", "-qm", "generated"])
        return repo
    }

    private func writePlan(in repo: URL) throws -> String {
        let path = repo.appendingPathComponent("xcfleet.json").path
        let suite: [String: Any] = ["name": "big", "package": ".", "retries": ["testFailures": 0]]
        try JSONSerialization.data(withJSONObject: ["name": "big-repository", "suites": [suite]]).write(to: URL(fileURLWithPath: path))
        return path
    }

    private func localFleet() throws -> String {
        let path = work.appendingPathComponent("local-fleet.json").path
        let json = #"{"hosts": [{"name": "local", "transport": "local", "slots": 1, "workRoot": "\#(work.appendingPathComponent("work").path)"}]}"#
        try Data(json.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    private func sshFleet(_ h: TestHosts.Host) throws -> String {
        let path = work.appendingPathComponent("ssh-fleet.json").path
        let json = """
            {"hosts": [{"name": "\(h.name)", "address": "127.0.0.1", "port": \(h.port), "user": "\(h.user)",
             "identityFile": "\(h.identityFile)", "knownHostsFile": "\(h.knownHostsFile)", "slots": 1,
             "workRoot": "\(h.directory)/\(h.name)/bigrepo-\(work.lastPathComponent)", "toolchain": {"swiftPath": "/opt/swift/usr/bin/swift"}}]}
            """
        try Data(json.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    struct Result {
        var status: Int32
        var output: String
        var pushes: [PushRecord]
        var builds: [BuildRecord]
        /// `Class/test` of every passed test, sorted.
        var passed: [String]
    }

    private func run(_ plan: String, fleet: String, runs: URL, id: String) throws -> Result {
        let cli = try XCFleetCLI.run(["run", plan, "--fleet", fleet, "--runs", runs.path, "--run-id", id])
        let dir = runs.appendingPathComponent(id)
        let report = try? JSONDecoder().decode(RunReport.self, from: Data(contentsOf: dir.appendingPathComponent("report.json")))
        let events = (try? EventLog.read(dir.appendingPathComponent("events.jsonl"))) ?? []
        let pushes = events.compactMap { e -> PushRecord? in if case .push(_, let r) = e.body { return r } else { return nil } }
        let builds = events.compactMap { e -> BuildRecord? in if case .build(_, let r) = e.body { return r } else { return nil } }
        var passed: [String] = []
        for job in report?.suites.flatMap(\.jobs) ?? [] {
            for t in job.decisive?.tests ?? [] where t.status == .passed { passed.append(t.id.className + "/" + t.id.name) }
        }
        passed.sort()
        return Result(status: cli.status, output: cli.output, pushes: pushes, builds: builds, passed: passed)
    }
}
