import Foundation
import XCTest
@testable import XCFleetKit
import XCFleetTestSupport

final class HostCheckerTests: XCTestCase {
    func testChecksHostsInParallelAndReportsProblems() async throws {
        let hosts = try TestHosts.hosts()
        var closed = hosts[0].spec
        closed.name = "closed"
        closed.port = try freePort()
        var unknownKey = hosts[1].spec
        unknownKey.name = "unknown-key"
        unknownKey.knownHostsFile = NSTemporaryDirectory() + "none-\(UUID().uuidString)"
        var noSwift = hosts[2].spec
        noSwift.name = "no-swift"
        noSwift.toolchain = ToolchainSpec(swiftPath: "/nonexistent/bin/swift")
        let results = await HostChecker.check([hosts[0].spec, closed, unknownKey, noSwift], timeouts: PhaseTimeouts(connect: 5))
        for r in results { print(HostChecker.format(r)) }
        XCTAssertEqual(results.map(\.host), [hosts[0].name, "closed", "unknown-key", "no-swift"])
        let good = results[0]
        XCTAssertTrue(good.ok, good.problem ?? "")
        XCTAssertTrue(good.platform?.hasPrefix("Linux x86_64") ?? false, good.platform ?? "nil")
        XCTAssertTrue(good.toolchainVersion?.contains("Swift version") ?? false, good.toolchainVersion ?? "nil")
        XCTAssertGreaterThan(good.freeDiskBytes ?? 0, 0)
        XCTAssertNotNil(good.latencyMs)
        XCTAssertTrue(HostChecker.format(good).hasPrefix("✓ h1"))
        XCTAssertFalse(results[1].reachable)
        XCTAssertFalse(results[1].ok)
        XCTAssertTrue(results[2].reachable)
        XCTAssertFalse(results[2].hostKeyVerified)
        XCTAssertTrue(results[2].problem?.contains("SHA256:") ?? false)
        XCTAssertTrue(results[3].authenticated)
        XCTAssertFalse(results[3].ok)
        XCTAssertTrue(results[3].problem?.contains("toolchain") ?? false, results[3].problem ?? "")
        XCTAssertTrue(HostChecker.format(results[3]).hasPrefix("✘ no-swift"))
        XCTAssertTrue(HostChecker.format(results[3]).contains("    ✘ toolchain  toolchain missing: /nonexistent/bin/swift --version failed"), HostChecker.format(results[3]))
        XCTAssertEqual(results[1].checks.map(\.name), ["connect"])
        XCTAssertEqual(results[1].checks.first?.ok, false)
    }

    /// A real sshd host the run sets aside (group-writable work root, a platform label its Linux
    /// contradicts, less free disk than the fleet's minimum) shows ✘ in hosts check with the
    /// reasons the run logged, word for word.
    func testAnSSHHostTheRunSetsAsideShowsTheSameReasonsInHostsCheck() async throws {
        let hosts = try TestHosts.hosts()
        var spec = hosts[3].spec
        spec.name = "set-aside"
        let work = NSTemporaryDirectory() + "xcfleet-probe-\(UUID().uuidString)/work"
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        XCTAssertEqual(chmod(work, 0o775), 0)
        spec.workRoot = work
        spec.labels = ["platform:macos", "swift"]
        let minimum: Int64 = 1 << 60
        let plan = try PlanLoader.parse(Data(#"{"name": "p", "suites": [{"name": "gate", "template": "cache-contract"}]}"#.utf8),
                                        path: "p.json", knownTemplates: ["cache-contract"])
        let runs = URL(fileURLWithPath: work).deletingLastPathComponent().appendingPathComponent("runs")
        let config = RunConfiguration(plan: plan, fleet: Fleet(hosts: [spec], minFreeDiskBytes: minimum),
                                      root: TemplateRoot(url: TestHosts.packageRoot), runsDirectory: runs)
        let runner = try Runner(config: config)
        let report = try await runner.run()
        XCTAssertEqual(report.exitCode, Verdict.ExitCode.infrastructure, report.verdictLine)
        let events = try EventLog.read(runner.runDirectory.appendingPathComponent("events.jsonl"))
        let reason = try XCTUnwrap(events.lazy.compactMap { e -> String? in
            if case .hostSetAside("set-aside", let reason) = e.body { return reason }
            return nil
        }.first, "\(events.map(\.body))")

        let checked = await HostChecker.check([spec], timeouts: PhaseTimeouts(connect: 5), minimumFreeBytes: minimum)
        let result = try XCTUnwrap(checked.first)
        print(HostChecker.format(result))
        XCTAssertFalse(result.ok)
        XCTAssertTrue(result.authenticated)
        let failed = result.checks.filter { !$0.ok }
        XCTAssertEqual(failed.map(\.name), ["labels", "disk", "workRoot"], "\(result.checks)")
        XCTAssertEqual(Self.steady(reason), Self.steady("unhealthy: " + failed.map(\.detail).joined(separator: "; ")))
        XCTAssertEqual(result.problem, failed.map(\.detail).joined(separator: "; "))
        XCTAssertTrue(result.checks.contains { $0.name == "connect" && $0.ok && $0.detail.contains("127.0.0.1:\(spec.port)") }, "\(result.checks)")
        XCTAssertTrue(result.checks.contains { $0.name == "toolchain" && $0.ok && $0.detail.contains("Swift version") }, "\(result.checks)")
        let lines = HostChecker.format(result).split(separator: "\n").map(String.init)
        for check in failed { XCTAssertTrue(lines.contains { $0.contains("✘ \(check.name)") && $0.hasSuffix(check.detail) }, check.name) }

        // Fixed, the same host passes both.
        XCTAssertEqual(chmod(work, 0o700), 0)
        spec.labels = ["platform:linux", "swift"]
        let recheck = await HostChecker.check([spec], timeouts: PhaseTimeouts(connect: 5), minimumFreeBytes: 1)
        let fixed = try XCTUnwrap(recheck.first)
        XCTAssertTrue(fixed.ok, fixed.problem ?? "")
        XCTAssertTrue(fixed.checks.allSatisfy(\.ok), "\(fixed.checks)")
    }

    /// The free-disk figure moves between two probes (other processes write); the rest must not.
    static func steady(_ reason: String) -> String {
        reason.replacingOccurrences(of: #"only [0-9]+ MB free"#, with: "only N MB free", options: .regularExpression)
    }
}
