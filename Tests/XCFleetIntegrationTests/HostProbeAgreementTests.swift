import XCTest
@testable import XCFleetKit
import XCFleetTestSupport

/// `hosts check` and admission are one probe: a real local host the run sets aside shows ✘ in
/// `xcfleet hosts check`, with the very reasons the run logged. Real binary, the fake `swift`.
final class HostProbeAgreementTests: XCTestCase {
    /// A fleet of the local host with `hostKeys` and the fleet-level `fleetKeys`.
    private func fleet(in dir: URL, hostKeys: String, fleetKeys: String = "") throws -> URL {
        let swift = try FakeToolchain.install(in: dir)
        let file = dir.appendingPathComponent("fleet-\(UUID().uuidString.prefix(8)).json")
        try Data(#"{\#(fleetKeys)"hosts": [{"name": "local", "transport": "local", \#(hostKeys)"toolchain": {"swiftPath": "\#(swift.path)"}}]}"#.utf8).write(to: file)
        return file
    }

    private struct Checked {
        var status: Int32
        var ok: Bool
        var hostOK: Bool
        var checks: [(name: String, ok: Bool, detail: String)]
        var problem: String?
    }

    private func hostsCheckJSON(_ fleet: URL) throws -> Checked {
        let r = try FakeToolchain.xcfleet(["hosts", "check", "--fleet", fleet.path, "--json"])
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any], r.stdout + r.stderr)
        let hosts = try XCTUnwrap(object["hosts"] as? [[String: Any]], r.stdout)
        XCTAssertEqual(hosts.count, 1, r.stdout)
        let host = try XCTUnwrap(hosts.first)
        XCTAssertEqual(host["name"] as? String, "local")
        let checks = try XCTUnwrap(host["checks"] as? [[String: Any]], r.stdout).map {
            (name: $0["name"] as? String ?? "?", ok: $0["ok"] as? Bool ?? false, detail: $0["detail"] as? String ?? "")
        }
        return Checked(status: r.status, ok: try XCTUnwrap(object["ok"] as? Bool), hostOK: try XCTUnwrap(host["ok"] as? Bool),
                       checks: checks, problem: host["problem"] as? String)
    }

    func testAHostTheRunSetsAsideShowsTheSameReasonsInHostsCheck() throws {
        let dir = try TestPaths.temporaryDirectory()
        let work = dir.appendingPathComponent("work")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        XCTAssertEqual(chmod(work.path, 0o775), 0)
        // Three reasons at once: a group-writable work root, a platform label this Linux host
        // contradicts, and less free disk than the fleet's minimum.
        let bad = try fleet(in: dir, hostKeys: #""workRoot": "\#(work.path)", "labels": ["platform:macos"], "#,
                            fleetKeys: #""minFreeDiskBytes": 1152921504606846976, "#)
        let runs = dir.appendingPathComponent("runs")
        let run = try FakeToolchain.xcfleet(["run", "Plans/cache-contract.json", "--fleet", bad.path, "--runs", runs.path, "--quiet"])
        XCTAssertEqual(run.status, Verdict.ExitCode.infrastructure, run.stdout + run.stderr)
        let logs = try FileManager.default.contentsOfDirectory(atPath: runs.path).map { runs.appendingPathComponent($0).appendingPathComponent("events.jsonl") }
            .filter { FileManager.default.fileExists(atPath: $0.path) }
        XCTAssertEqual(logs.count, 1, "one run")
        let events = try EventLog.read(try XCTUnwrap(logs.first))
        let reasons = events.compactMap { e -> String? in if case .hostSetAside("local", let reason) = e.body { return reason }; return nil }
        XCTAssertEqual(reasons.count, 1, "\(events.map(\.body))")
        let reason = try XCTUnwrap(reasons.first)

        let checked = try hostsCheckJSON(bad)
        XCTAssertEqual(checked.status, Verdict.ExitCode.infrastructure, "a failed check fails the command")
        XCTAssertFalse(checked.ok)
        XCTAssertFalse(checked.hostOK)
        let failed = checked.checks.filter { !$0.ok }
        XCTAssertEqual(failed.map(\.name), ["labels", "disk", "workRoot"], "\(checked.checks)")
        XCTAssertEqual(Self.steady(reason), Self.steady("unhealthy: " + failed.map(\.detail).joined(separator: "; ")), "admission logs what hosts check shows")
        XCTAssertEqual(checked.problem, failed.map(\.detail).joined(separator: "; "))
        XCTAssertTrue(failed[0].detail.hasPrefix("labelled platform:macos but the host runs Linux"), failed[0].detail)
        XCTAssertTrue(failed[1].detail.contains("free under \(work.path) (needs 1099511627776 MB)"), failed[1].detail)
        XCTAssertTrue(failed[2].detail.contains("group- or world-writable; run chmod go-w"), failed[2].detail)
        XCTAssertEqual(checked.checks.first?.name, "connect")
        XCTAssertTrue(checked.checks.contains { $0.name == "toolchain" && $0.ok && $0.detail.contains("fake toolchain") }, "\(checked.checks)")

        // The same in lines: a ✘ line per failed check, with the reason.
        let text = try FakeToolchain.xcfleet(["hosts", "check", "--fleet", bad.path, "--no-history"])
        XCTAssertEqual(text.status, Verdict.ExitCode.infrastructure)
        let lines = text.stdout.split(separator: "\n").map(String.init)
        XCTAssertTrue(lines.first?.hasPrefix("✘ local") ?? false, text.stdout)
        for check in failed {
            // The free space may change between the two probes (other processes write): compared without it.
            XCTAssertTrue(lines.contains { $0.hasPrefix("    ✘ \(check.name)") && Self.steady($0).hasSuffix(Self.steady(check.detail)) }, "\(check.name) in\n\(text.stdout)")
        }
    }

    func testAHostTheRunAdmitsPassesHostsCheck() throws {
        let dir = try TestPaths.temporaryDirectory()
        let work = dir.appendingPathComponent("work")
        let good = try fleet(in: dir, hostKeys: #""workRoot": "\#(work.path)", "labels": ["platform:linux"], "#, fleetKeys: #""minFreeDiskBytes": 1, "#)
        let checked = try hostsCheckJSON(good)
        XCTAssertEqual(checked.status, 0, "\(checked.checks)")
        XCTAssertTrue(checked.ok)
        XCTAssertEqual(checked.checks.map(\.name), ["connect", "system", "labels", "disk", "workRoot", "toolchain", "cpu", "latency"])
        XCTAssertTrue(checked.checks.allSatisfy(\.ok), "\(checked.checks)")
        XCTAssertNil(checked.problem)
        let runs = dir.appendingPathComponent("runs")
        let run = try FakeToolchain.xcfleet(["run", "Plans/cache-contract.json", "--fleet", good.path, "--runs", runs.path, "--quiet"])
        XCTAssertEqual(run.status, 0, run.stdout + run.stderr)
    }

    func testTheFleetKeyForTheFreeDiskMinimumIsValidated() throws {
        let host = #"{"name": "m", "address": "m", "user": "ci", "useAgent": true}"#
        XCTAssertEqual(try FleetLoader.parse(Data(#"{"minFreeDiskBytes": 5, "hosts": [\#(host)]}"#.utf8), path: "f.json").minFreeDiskBytes, 5)
        XCTAssertNil(try FleetLoader.parse(Data(#"{"hosts": [\#(host)]}"#.utf8), path: "f.json").minFreeDiskBytes)
        XCTAssertThrowsError(try FleetLoader.parse(Data(#"{"minFreeDiskBytes": -1, "hosts": [\#(host)]}"#.utf8), path: "f.json")) {
            XCTAssertTrue("\($0)".contains("minFreeDiskBytes"), "\($0)")
        }
        XCTAssertThrowsError(try FleetLoader.parse(Data(#"{"minFreeDiskBytes": "2G", "hosts": [\#(host)]}"#.utf8), path: "f.json"))
    }

    /// The free-disk figure moves between two probes (other processes write); the rest must not.
    static func steady(_ reason: String) -> String {
        reason.replacingOccurrences(of: #"only [0-9]+ MB free"#, with: "only N MB free", options: .regularExpression)
    }
}
