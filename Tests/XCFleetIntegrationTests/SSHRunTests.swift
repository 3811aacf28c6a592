import Foundation
import XCTest
import XCFleetKit
import XCFleetTestSupport

/// The same plan that runs on the local host runs unchanged over SSH, on real `sshd` test hosts,
/// through the real `xcfleet` binary.
final class SSHRunTests: XCTestCase {
    private var hosts: [TestHosts.Host] = []
    private var runs: URL!

    override func setUpWithError() throws {
        hosts = try TestHosts.hosts()
        runs = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("xcfleet-sshrun-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: runs, withIntermediateDirectories: true)
    }

    private var binary: URL {
        let dir = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for c in [dir.appendingPathComponent("xcfleet"), dir.deletingLastPathComponent().appendingPathComponent("xcfleet")]
        where FileManager.default.isExecutableFile(atPath: c.path) { return c }
        return TestHosts.packageRoot.appendingPathComponent(".build/debug/xcfleet")
    }

    /// A fleet file with just the first test host (one slot), so the job provably runs over SSH.
    private func fleetFile() throws -> String {
        let h = hosts[0]
        let path = runs.appendingPathComponent("fleet.json").path
        let json = """
        {"hosts": [{"name": "\(h.name)", "address": "127.0.0.1", "port": \(h.port), "user": "\(h.user)",
          "identityFile": "\(h.identityFile)", "knownHostsFile": "\(h.knownHostsFile)", "slots": 1,
          "labels": ["platform:linux", "swift"], "workRoot": "\(h.directory)/\(h.name)/sshrun",
          "toolchain": {"swiftPath": "/opt/swift/usr/bin/swift"}}]}
        """
        try Data(json.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    private func run(_ args: [String]) throws -> (status: Int32, stdout: String, report: RunReport?) {
        let p = Process()
        p.executableURL = binary
        p.arguments = args
        p.currentDirectoryURL = TestHosts.packageRoot
        let out = Pipe()
        p.standardOutput = out
        p.standardError = FileHandle.nullDevice
        let runsDir = runs.appendingPathComponent(UUID().uuidString)
        p.arguments = args + ["--runs", runsDir.path]
        try p.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        let dir = (try? FileManager.default.contentsOfDirectory(atPath: runsDir.path))?.first
        let report = dir.flatMap { try? JSONDecoder().decode(RunReport.self, from: Data(contentsOf: runsDir.appendingPathComponent($0).appendingPathComponent("report.json"))) }
        return (p.terminationStatus, String(decoding: data, as: UTF8.self), report)
    }

    func testCacheContractIsGreenOverSSHWithTheSameCountsAsLocally() throws {
        let ssh = try run(["run", "Plans/cache-contract.json", "--fleet", try fleetFile()])
        XCTAssertEqual(ssh.status, 0, ssh.stdout)
        let local = try run(["run", "Plans/cache-contract.json"])
        XCTAssertEqual(local.status, 0, local.stdout)
        let sshReport = try XCTUnwrap(ssh.report)
        let localReport = try XCTUnwrap(local.report)
        XCTAssertEqual(sshReport.suites[0].jobs[0].decisive?.host, hosts[0].name)
        XCTAssertGreaterThan(sshReport.totals.tests.passed, 0)
        XCTAssertEqual(sshReport.totals.tests.passed, localReport.totals.tests.passed)
        XCTAssertEqual(sshReport.totals.tests, localReport.totals.tests)
        XCTAssertEqual(sshReport.totals.tests.skipped, localReport.totals.tests.skipped)
        // The per-job directory is gone from the host afterwards.
        let leftovers = (try? FileManager.default.contentsOfDirectory(atPath: "/tmp/xcfleet-sshrun-\(hosts[0].name)/jobs")) ?? []
        XCTAssertEqual(leftovers, [])
    }

    func testBreakingAContractRuleTurnsItRedOverSSHToo() throws {
        let root = runs.appendingPathComponent("root")
        for part in ["Templates", "Sources/CacheContract"] {
            let dest = root.appendingPathComponent(part)
            try FileManager.default.createDirectory(at: dest.deletingLastPathComponent(), withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: TestHosts.packageRoot.appendingPathComponent(part), to: dest)
        }
        let core = root.appendingPathComponent("Sources/CacheContract/SessionMemoryCache.swift")
        // The clear-does-nothing mutant's edits, applied to the real core file.
        let mutant = try MutantSpec.load(root.appendingPathComponent("Templates/mutants/clear-does-nothing/mutant.json"))
        var files = ["Sources/CacheContract/SessionMemoryCache.swift": try Data(contentsOf: core)]
        try MutantEdit.apply(mutant.edits, mutant: mutant.id, to: &files)
        try XCTUnwrap(files["Sources/CacheContract/SessionMemoryCache.swift"]).write(to: core)
        let result = try run(["run", "Plans/cache-contract.json", "--fleet", try fleetFile(), "--templates", root.path])
        XCTAssertEqual(result.status, 1, result.stdout)
        let failed = result.report?.suites[0].jobs[0].decisive?.tests.filter { $0.status == .failed } ?? []
        XCTAssertTrue(failed.contains { $0.contractIDs.contains("C3") }, "\(failed.map(\.id))")
    }

    func testHostsCheckReportsEveryHost() throws {
        let fleet = hosts[0].directory + "/fleet.json"
        let p = Process()
        p.executableURL = binary
        p.arguments = ["hosts", "check", "--fleet", fleet]
        let out = Pipe()
        p.standardOutput = out
        try p.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        XCTAssertEqual(p.terminationStatus, 0, text)
        // One status line per host (✓/✗); the hosts' history, when there is one, follows indented.
        XCTAssertEqual(text.split(separator: "\n").filter { $0.hasPrefix("✓") || $0.hasPrefix("✗") }.count, hosts.count, text)
        XCTAssertTrue(text.contains("Swift version"), text)
    }
}

extension SSHRunTests {
    /// The fleet names a create/release command pair; here they start and stop a throwaway sshd.
    /// Hosts are created, health-checked, used, and released at the end of the run.
    func testCommandProvisionerCreatesUsesAndReleasesHosts() throws {
        let state = runs.appendingPathComponent("prov")
        try FileManager.default.createDirectory(at: state, withIntermediateDirectories: true)
        for suffix in ["", ".pub"] {
            try FileManager.default.copyItem(atPath: hosts[0].identityFile + suffix, toPath: state.appendingPathComponent("client_ed25519" + suffix).path)
        }
        let script = TestHosts.packageRoot.appendingPathComponent("Tests/Fixtures/provisioner/sshd-provisioner.sh").path
        let fleet = runs.appendingPathComponent("prov-fleet.json")
        try Data("""
        {"provisioner": {"create": ["\(script)", "create"], "release": ["\(script)", "release"], "count": 2,
          "host": {"user": "\(hosts[0].user)", "identityFile": "\(state.path)/client_ed25519", "slots": 1,
                   "labels": ["platform:linux", "swift"], "workRoot": "/tmp/xcfleet-prov-\(UUID().uuidString.prefix(6))",
                   "toolchain": {"swiftPath": "/opt/swift/usr/bin/swift"}}}}
        """.utf8).write(to: fleet)
        setenv("PROV_STATE", state.path, 1)
        setenv("PROV_REPO", TestHosts.packageRoot.path, 1)
        let result = try run(["run", "Plans/cache-contract.json", "--fleet", fleet.path])
        XCTAssertEqual(result.status, 0, result.stdout)
        let report = try XCTUnwrap(result.report)
        XCTAssertTrue(report.suites[0].jobs[0].decisive?.host.hasPrefix("prov-") ?? false, "\(String(describing: report.suites[0].jobs[0].decisive?.host))")
        for i in 1...2 {
            XCTAssertTrue(FileManager.default.fileExists(atPath: state.appendingPathComponent("vm-\(i).released").path), "host \(i) released")
            XCTAssertFalse(FileManager.default.fileExists(atPath: state.appendingPathComponent("vm-\(i)/h1/sshd.pid").path), "its sshd stopped")
        }
    }
}
