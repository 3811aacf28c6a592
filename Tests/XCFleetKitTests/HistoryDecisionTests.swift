import Foundation
import XCTest
@testable import XCFleetKit
import XCFleetTestSupport

/// The history's pure decisions: redaction, location, cost, host health, flakiness, fleet keys.
final class HistoryDecisionTests: XCTestCase {
    func testURLCredentialsAreRedacted() {
        XCTAssertEqual(HistoryLocation.redact("postgresql://ci:p%40ss@db.example:5432/hist?sslmode=require&password=x2"),
                       "postgresql://***@db.example:5432/hist?sslmode=require&password=***")
        XCTAssertEqual(HistoryLocation.redact("postgres://db/hist"), "postgres://db/hist")
        XCTAssertEqual(Set(HistoryLocation.secrets(in: "postgresql://ci:p%40ss@db/h")), ["ci", "p%40ss", "p@ss"])
        XCTAssertEqual(HistoryLocation.postgres(url: "postgresql://a:bb@h/d").description, "postgresql://***@h/d")
    }

    func testLocationDefaultsBesideTheRunsDirectoryAndCanBeTurnedOff() throws {
        let runs = URL(fileURLWithPath: "/w/.xcfleet/runs")
        XCTAssertEqual(try HistoryLocation.resolve(noHistory: false, url: nil, database: nil, runsDirectory: runs, environment: [:]),
                       .sqlite(path: "/w/.xcfleet/history.sqlite"))
        XCTAssertNil(try HistoryLocation.resolve(noHistory: true, url: nil, database: nil, runsDirectory: runs, environment: [:]))
        XCTAssertNil(try HistoryLocation.resolve(noHistory: false, url: nil, database: nil, runsDirectory: runs, environment: ["XCFLEET_NO_HISTORY": "1"]))
        XCTAssertEqual(try HistoryLocation.resolve(noHistory: false, url: nil, database: nil, runsDirectory: runs,
                                               environment: ["XCFLEET_HISTORY_URL": "postgresql://h/d"]), .postgres(url: "postgresql://h/d"))
        XCTAssertEqual(try HistoryLocation.resolve(noHistory: false, url: nil, database: "/x.db", runsDirectory: runs, environment: [:]), .sqlite(path: "/x.db"))
    }

    func testPlaceholdersAreNumberedForPostgres() {
        XCTAssertEqual(PostgresConnection.numbered("SELECT a FROM t WHERE b = ? AND c IN (?, ?)"), "SELECT a FROM t WHERE b = $1 AND c IN ($2, $3)")
    }

    func testCostSplitsTheRunsHostSecondsByPhase() {
        let suite = SampleReports.spec("gate")
        let attempt = SampleReports.attempt(1, host: "mac-1", start: 0, tests: [], phases: SampleReports.phases(from: 0, [(.push, 10), (.build, 30), (.test, 20)]))
        var report = SampleReports.report("r", suites: [SuiteReport(spec: suite, status: .green, reasons: [],
                                                                     jobs: [SampleReports.job("gate", suite: suite, expected: [], attempts: [attempt], state: .passed)])], hosts: ["mac-1"])
        report.duration = 100
        let cost = RunCost.compute(report, pricePerHour: ["mac-1": 3.6])
        XCTAssertEqual(cost.byPhase["build"] ?? 0, 30, accuracy: 0.001)
        XCTAssertEqual(cost.byPhase["idle"] ?? 0, 40, accuracy: 0.001)
        XCTAssertEqual(cost.hostSeconds, 100, accuracy: 0.001, "a host is billed for the whole run")
        XCTAssertEqual(cost.total ?? 0, 0.1, accuracy: 1e-9, "100 s at 3.60/h")
        XCTAssertNil(RunCost.compute(report, pricePerHour: [:]).total, "no price: host-seconds only")
    }

    func testHostOverTheThresholdIsSetAsideWithItsFigures() {
        let bad = HostHistory(host: "mac-2", attempts: 10, infraFailures: 6, deadPeerEvents: 4, setAside: 0, runs: 5)
        let good = HostHistory(host: "mac-1", attempts: 10, infraFailures: 1, deadPeerEvents: 0, setAside: 0, runs: 5)
        let few = HostHistory(host: "mac-3", attempts: 2, infraFailures: 2, deadPeerEvents: 0, setAside: 0, runs: 1)
        let decision = HostHealthGate.decide([bad, good, few], hosts: ["mac-1", "mac-2", "mac-3"], threshold: 0.5)
        XCTAssertEqual(Array(decision.keys), ["mac-2"], "mac-3 has too few attempts to judge")
        XCTAssertTrue(decision["mac-2"]!.contains("60%"), decision["mac-2"]!)
        XCTAssertTrue(decision["mac-2"]!.contains("6 infra failures in 10 attempts"), decision["mac-2"]!)
        XCTAssertEqual(HostHealthGate.decide([bad], hosts: ["mac-2"], threshold: nil), [:], "no threshold in the fleet: never")
    }

    func testFleetPriceAndThresholdAreValidatedWithPaths() throws {
        let ok = try FleetLoader.parse(Data(#"{"maxInfraFailureRate": 0.4, "hosts": [{"name": "l", "transport": "local", "pricePerHour": 1.08}]}"#.utf8), path: "f.json")
        XCTAssertEqual(ok.maxInfraFailureRate, 0.4)
        XCTAssertEqual(ok.pricing.perHost, ["l": 1.08])
        XCTAssertThrowsError(try FleetLoader.parse(Data(#"{"maxInfraFailureRate": 2, "hosts": [{"name": "l", "transport": "local", "pricePerHour": "1"}]}"#.utf8), path: "f.json")) { error in
            let text = "\(error)"
            XCTAssertTrue(text.contains("maxInfraFailureRate"), text)
            XCTAssertTrue(text.contains("pricePerHour"), text)
        }
    }

    func testFlakeRuleSeparatesRetriesSameHashFlipsAndRealFailures() {
        func e(_ run: String, _ attempt: Int, _ failed: Bool, hash: String = "h", test: String = "T/a") -> FlakyExecution {
            FlakyExecution(testKey: test, suite: "s", runID: run, jobID: "j", attempt: attempt, passed: !failed, failed: failed,
                           host: "m\(attempt)", contentHash: hash, startedEpoch: Double(run.count), gitCommit: "c-\(run)")
        }
        let result = FlakyAnalysis.analyze([
            e("r1", 1, true), e("r1", 2, false),                       // retry flake
            e("r2", 1, false), e("r3", 1, true),                       // same hash: passed in r2, failed in r3
            e("r4", 1, true, hash: "new"),                             // new code that never passed: a real failure
            e("r1", 1, true, test: "T/b"), e("r2", 1, true, test: "T/b"), // always failing
        ])
        XCTAssertEqual(result.map(\.test), ["T/a"])
        XCTAssertEqual(result.first?.withinRun, 1)
        XCTAssertEqual(result.first?.acrossRuns, 1)
        XCTAssertEqual(result.first?.executions, 4)
        XCTAssertEqual(result.first?.rate ?? 0, 0.5, accuracy: 1e-9)
    }
}
