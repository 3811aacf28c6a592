import Foundation
@testable import XCFleetKit

/// Hand-built `RunReport`s for the reporter tests: every state a reporter must show.
package enum SampleReports {
    package static let cacheManifest = [
        "CacheContractTests.CacheKeyTests/testC1_keyIdentity",
        "CacheContractTests.CacheKeyTests/testC1_revisionChangeMisses",
        "CacheContractTests.CacheStoreTests/testC4_overwriteReturnsSecond",
        "CacheContractTests.CacheStoreTests/testC6_missLoadsFromSource",
    ]

    // MARK: Builders

    package static func spec(_ name: String, template: String = "cache-contract", kind: SuiteKind = .gate, shards: Int = 1,
                     repetitions: Int = 1, requires: [String] = [], allowFlaky: Bool = false, mutants: Bool = false,
                     destination: String? = nil, xcode: String? = nil) -> SuiteSpec {
        SuiteSpec(name: name, template: template, kind: kind, requires: requires, shards: shards, repetitions: repetitions,
                  retries: RetryPolicy(infrastructure: 2, testFailures: allowFlaky ? 1 : 0), allowFlaky: allowFlaky,
                  mutants: mutants, destination: destination, xcode: xcode)
    }

    package static func test(_ manifest: String, _ status: TestStatus = .passed, _ seconds: Double = 0.012,
                     failures: [FailureDetail] = [], skip: String? = nil, flaky: Bool = false) -> TestResult {
        let id = ReportFacts.identifier(fromManifest: manifest)
        return TestResult(id: id, status: status, seconds: seconds, failures: failures, skipReason: skip, flaky: flaky)
    }

    /// Phases laid end to end from `start`, with these durations (provision … cleanup order).
    package static func phases(from start: Double, _ durations: [(Phase, Double)]) -> [PhaseSpan] {
        var t = start
        return durations.map { p in
            defer { t += p.1 }
            return PhaseSpan(phase: p.0, start: t, end: t + p.1)
        }
    }

    package static func standardPhases(from start: Double, test: Double = 4) -> [PhaseSpan] {
        phases(from: start, [(.connect, 0.4), (.push, 0.6), (.build, 3), (.test, test), (.fetch, 0.2), (.cleanup, 0.3)])
    }

    package static func attempt(_ number: Int, host: String, slot: Int = 0, start: Double, tests: [TestResult], phases: [PhaseSpan]? = nil,
                        termination: CommandTermination? = .exited(0), infraError: String? = nil, timedOut: Phase? = nil,
                        crashes: [String] = [], buildErrors: [FailureDetail] = [], unattributed: [FailureDetail] = [],
                        metrics: [Metric] = [], problems: [String] = [], lost: Bool = false) -> AttemptReport {
        let ph = phases ?? standardPhases(from: start)
        let end = ph.last?.end ?? start
        return AttemptReport(number: number, host: host, slot: slot, start: start, end: lost ? nil : end, phases: ph,
                             termination: termination, infraError: infraError, timedOutPhase: timedOut, tests: tests,
                             unattributedFailures: unattributed, crashes: crashes, buildErrors: buildErrors, metrics: metrics,
                             problems: problems, lost: lost)
    }

    package static func job(_ id: String, suite: SuiteSpec, shard: Int = 0, repetition: Int = 0, mutant: String? = nil,
                    expected: [String], attempts: [AttemptReport], state: JobFinalState, reasons: [String] = []) -> JobReport {
        JobReport(planned: JobPlanned(jobID: id, suite: suite.name, kind: suite.kind, shard: shard, shardCount: suite.shards,
                                      repetition: repetition, mutant: mutant, expectedTests: expected),
                  attempts: attempts, finalState: state, reasons: reasons)
    }

    package static func report(_ runID: String, suites: [SuiteReport], hosts: [String], setAside: [String: String] = [:],
                       notes: [String] = [], interrupted: Bool = false) -> RunReport {
        var byState: [String: Int] = [:]
        var attempts = 0, jobs = 0
        var duration = 0.0
        for s in suites {
            for j in s.jobs {
                jobs += 1
                byState[j.finalState.rawValue, default: 0] += 1
                attempts += j.attempts.count
                for a in j.attempts { duration = max(duration, a.end ?? a.start) }
            }
        }
        let redGates = suites.filter { $0.spec.kind == .gate && $0.status != .green }
        let verdict = redGates.isEmpty ? "all gates green" : "\(redGates.count) gate\(redGates.count == 1 ? "" : "s") red: " + redGates.map { "\($0.spec.name) (\($0.reasons.first ?? $0.status.rawValue))" }.joined(separator: ", ")
        var report = RunReport(runID: runID, planName: "cache-contract", planPath: "Plans/cache-contract.json",
                               startedAt: "2026-11-29T10:00:00Z", xcfleetVersion: "0.1.0", duration: duration + 0.5,
                               interrupted: interrupted, hosts: hosts, hostsSetAside: setAside, suites: suites,
                               totals: Totals(jobs: jobs, jobsByState: byState, attempts: attempts),
                               exitCode: redGates.isEmpty ? 0 : 1, verdictLine: verdict, notes: notes)
        ReportFigures.fill(&report)
        return report
    }

    // MARK: Suites

    /// Gate, green: 4 tests passed on mac-a.
    package static func greenSuite() -> SuiteReport {
        let s = spec("cache-contract")
        let tests = cacheManifest.enumerated().map { test($0.element, .passed, 0.010 + Double($0.offset) * 0.005) }
        let j = job("cache-contract#0", suite: s, expected: cacheManifest,
                    attempts: [attempt(1, host: "mac-a", start: 0.1, tests: tests)], state: .passed)
        return SuiteReport(spec: s, status: .green, reasons: [], jobs: [j])
    }

    /// Gate, red: two shards; shard 1 on mac-a has an assertion failure at file:line, a crash and
    /// one expected test never reported; shard 2 lost mac-c (infra) then passed on mac-b.
    package static func redSuite() -> SuiteReport {
        let s = spec("cache-contract", shards: 2, xcode: "16.4")
        let shard1 = Array(cacheManifest.prefix(3))
        let shard2 = ["CacheContractTests.CacheStoreTests/testC6_missLoadsFromSource",
                      "CacheContractTests.LogoutTests/testC7_lateWriteDropped"]
        let a1 = attempt(1, host: "mac-a", start: 0.2, tests: [
            test(shard1[0], .passed, 0.004),
            test(shard1[2], .failed, 0.031, failures: [FailureDetail(file: "Tests/CacheContractTests/CacheStoreTests.swift", line: 42,
                 message: "XCTAssertEqual failed: (\"first\") is not equal to (\"second\")")]),
        ], termination: .signaled("SIGILL"), crashes: ["Fatal error: Unexpectedly found nil while unwrapping an Optional value"],
           problems: ["1 test failed", "test process crashed", "1 expected test not observed"])
        let j1 = job("cache-contract#0", suite: s, shard: 0, expected: shard1, attempts: [a1], state: .failed,
                     reasons: ["1 test failed; test process crashed (Fatal error: Unexpectedly found nil)"])
        let lostAttempt = attempt(1, host: "mac-c", start: 0.2,
                                  tests: [], phases: phases(from: 0.2, [(.connect, 0.5), (.push, 1.8)]),
                                  termination: .connectionLost("read: connection reset by peer"),
                                  infraError: "connection lost during push: connection reset by peer",
                                  problems: ["connection lost"], lost: true)
        let a2 = attempt(2, host: "mac-b", slot: 1, start: 3.0, tests: shard2.map { test($0, .passed, 0.02) })
        let j2 = job("cache-contract#1", suite: s, shard: 1, expected: shard2, attempts: [lostAttempt, a2], state: .passed)
        return SuiteReport(spec: s, status: .red, reasons: ["cache-contract#0: 1 test failed, test process crashed"], jobs: [j1, j2])
    }

    /// Gate with allowFlaky: testC7 failed on mac-a in attempt 1, passed on mac-b in attempt 2.
    package static func flakySuite() -> SuiteReport {
        let s = spec("cache-contract-retry", allowFlaky: true)
        let name = "CacheContractTests.LogoutTests/testC7_lateWriteDropped"
        let other = "CacheContractTests.CacheStoreTests/testC3_clearMissesEveryKey"
        let a1 = attempt(1, host: "mac-a", start: 12, tests: [
            test(other, .passed, 0.01),
            test(name, .failed, 0.2, failures: [FailureDetail(file: "Tests/CacheContractTests/LogoutTests.swift", line: 88, message: "late write was stored")]),
        ], termination: .exited(1), problems: ["1 test failed"])
        let a2 = attempt(2, host: "mac-b", start: 18, tests: [test(other, .passed, 0.01), test(name, .passed, 0.19, flaky: true)])
        let j = job("cache-contract-retry#0", suite: s, expected: [other, name], attempts: [a1, a2], state: .flaky,
                    reasons: ["testC7_lateWriteDropped failed then passed"])
        return SuiteReport(spec: s, status: .green, reasons: [], jobs: [j])
    }

    /// Combine gate that no host can run (no `combine` capability).
    package static func unschedulableSuite() -> SuiteReport {
        let s = spec("combine-lifetime", template: "combine-lifetime", requires: ["combine", "platform:macos"],
                     destination: "platform=macOS", xcode: "16.4")
        let expected = ["CombineLifetimeTests.CancelTests/testK1_cancelStopsDelivery",
                        "CombineLifetimeTests.CancelTests/testK2_cancelPropagatesOnce",
                        "CombineLifetimeTests.ReleaseTests/testK4_weakCaptureReleasesModel"]
        let j = job("combine-lifetime#0", suite: s, expected: expected, attempts: [], state: .unschedulable,
                    reasons: ["no host has the capabilities combine, platform:macos"])
        return SuiteReport(spec: s, status: .unschedulable, reasons: ["no host has the capabilities combine, platform:macos"], jobs: [j])
    }

    /// Mutant runs of the cache gate: one killed, one survived.
    package static func mutantSuite() -> SuiteReport {
        let s = spec("cache-contract-mutants", mutants: true)
        let killed = attempt(1, host: "mac-a", start: 30, tests: [
            test(cacheManifest[0], .failed, 0.01, failures: [FailureDetail(file: "Tests/CacheContractTests/CacheKeyTests.swift", line: 17, message: "hit under another account")]),
        ], termination: .exited(1))
        let survived = attempt(1, host: "mac-b", start: 30, tests: cacheManifest.map { test($0, .passed) })
        return SuiteReport(spec: s, status: .red, reasons: ["mutant storeWithoutSnapshot survived"], jobs: [
            job("mutants#keyWithoutAccount", suite: s, mutant: "keyWithoutAccount", expected: cacheManifest, attempts: [killed], state: .failed),
            job("mutants#storeWithoutSnapshot", suite: s, mutant: "storeWithoutSnapshot", expected: cacheManifest, attempts: [survived], state: .passed,
                reasons: ["every test passed against the mutant (C2 not covered)"]),
        ])
    }

    /// Probe: 3 repetitions × 2 hosts; hit rate per object size and memory change.
    package static func probeSuite() -> SuiteReport {
        let s = spec("pressure-probes", template: "pressure-probes", kind: .probe, repetitions: 3)
        let sizes = [1024, 4096, 16384, 65536]
        let manifest = ["PressureProbes.HitRateProbe/testC9_hitRateUnderPressure", "PressureProbes.MemoryProbe/testC9_memoryChange"]
        var jobs: [JobReport] = []
        for (hi, host) in ["mac-a", "mac-b"].enumerated() {
            for rep in 0..<3 {
                var metrics: [Metric] = []
                for (si, size) in sizes.enumerated() {
                    // Deterministic "measurements": falls with size, varies per rep and host.
                    let base = 0.98 - Double(si) * 0.17 - Double(hi) * 0.06
                    let v = base + Double(rep - 1) * 0.02 * Double(si + 1) / 2
                    metrics.append(Metric(name: "hit_rate", value: (v * 1000).rounded() / 1000, unit: "ratio",
                                          labels: ["object_bytes": "\(size)", "rep": "\(rep + 1)"]))
                }
                metrics.append(Metric(name: "memory_delta", value: Double(1_048_576 * (3 + hi * 2) + rep * 262_144), unit: "bytes",
                                      labels: ["source": "statm", "rep": "\(rep + 1)"]))
                let start = 40.0 + Double(rep) * 9
                let a = attempt(1, host: host, slot: 0, start: start, tests: manifest.map { test($0, .passed, 1.5) }, metrics: metrics)
                jobs.append(job("pressure-probes#r\(rep)@\(hi)", suite: s, repetition: rep, expected: manifest, attempts: [a], state: .passed))
            }
        }
        return SuiteReport(spec: s, status: .measured, reasons: [], jobs: jobs)
    }

    /// Hostile strings from a host: markup, CDATA end, ampersands, quotes, control chars, emoji.
    package static let hostileName = "test<script>alert(1)</script>"
    package static let hostileMessage = "expected \"]]>\" & 'quotes' <b>bold</b>\u{0}\u{1B}[31m\u{7}🚀 done\u{FFFE}"

    package static func hostileSuite() -> SuiteReport {
        let s = spec("hostile & <suite>")
        let a = attempt(1, host: "mac-\"q\"&<h>", start: 60, tests: [
            TestResult(id: TestIdentifier(suite: "Evil.Tests]]>", name: hostileName), status: .failed, seconds: 0.5,
                       failures: [FailureDetail(file: "Tests/<evil>&\"x\".swift", line: 7, message: hostileMessage)]),
            test("Evil.Tests/test_emoji_🚀_C5", .skipped, 0, skip: "skipped because <reasons> & \u{1}stuff"),
        ], termination: .exited(1), problems: ["1 test failed"])
        let j = job("hostile#0 <x>", suite: s, expected: [], attempts: [a], state: .failed, reasons: ["1 test failed: <script>"])
        return SuiteReport(spec: s, status: .red, reasons: ["1 test failed: <script>alert(2)</script>"], jobs: [j])
    }

    // MARK: Reports

    package static var green: RunReport { report("run-green", suites: [greenSuite()], hosts: ["mac-a"]) }
    package static var red: RunReport { report("run-red", suites: [redSuite()], hosts: ["mac-a", "mac-b", "mac-c"]) }
    package static var flaky: RunReport { report("run-flaky", suites: [flakySuite()], hosts: ["mac-a", "mac-b"]) }
    package static var unschedulable: RunReport { report("run-unsched", suites: [greenSuite(), unschedulableSuite()], hosts: ["mac-a"]) }
    package static var probe: RunReport { report("run-probe", suites: [probeSuite()], hosts: ["mac-a", "mac-b"]) }
    package static var hostile: RunReport {
        report("run-<hostile>", suites: [hostileSuite()], hosts: ["mac-\"q\"&<h>"], notes: ["note with <script>alert(3)</script> & ]]>"])
    }

    /// Everything at once: the page a reviewer would see for a bad day.
    package static var full: RunReport {
        report("run-2026-11-29-1000", suites: [redSuite(), flakySuite(), unschedulableSuite(), mutantSuite(), probeSuite(), hostileSuite()],
               hosts: ["mac-a", "mac-b", "mac-c", "mac-\"q\"&<h>"],
               setAside: ["mac-c": "connection lost twice during push"],
               notes: ["host mac-c set aside after 2 infrastructure failures", "note with <script>alert(3)</script> & ]]>"])
    }
}
