import Foundation
import XCFleetKit

// report.html benchmark (release): a synthetic run of 20,000 tests with a full trends context
// (20 runs: 19 earlier + this one; 10 gates; 6 probe metrics; 200 known-flaky tests; cost on 4 hosts).
//   bench/report/run.sh             (builds, runs this, then times headless Chromium on the pages)
//   .build/release/bench-report OUT_DIR
//
// Prints the generation time of report.html (budget ≤ 2 s) side by side with the same report
// without its history context (the trends' own cost) and with summary.md/report.json, and writes
// OUT_DIR/report.html plus OUT_DIR/reference.html: a plain page (one table, no CSS, no SVG) of
// the same size in bytes, the reference for the Chromium timing done by run.sh.

func seconds(_ body: () throws -> Void) rethrows -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    try body()
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
}

func best(_ n: Int, _ body: () throws -> Void) rethrows -> Double {
    var times: [Double] = []
    for _ in 0..<n { times.append(try seconds(body)) }
    return times.sorted()[times.count / 2]
}

let out = URL(fileURLWithPath: CommandLine.arguments.dropFirst().first ?? NSTemporaryDirectory() + "xcfleet-bench-report")
try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)

let hosts = ["mac-1", "mac-2", "mac-3", "mac-4"]
let gateCount = 10, perGate = 2_000
var events: [RunEvent] = []
var clock = 0.0
@MainActor func emit(_ body: RunEvent.Body, at t: Double? = nil) {
    if let t { clock = t }
    events.append(RunEvent(seq: events.count + 1, t: clock, body: body))
}
var specs = (0..<gateCount).map { SuiteSpec(name: "gate-\($0)", template: "cache-contract") }
specs.append(SuiteSpec(name: "pressure", template: "pressure-probes", kind: .probe))
emit(.runStarted(RunStarted(runID: "bench-run-20", planName: "bench", planPath: "Plans/bench.json", startedAt: "2026-12-01T00:00:00Z",
                            xcfleetVersion: XCFleet.version, suites: specs, hosts: hosts)), at: 0)
var known: [HistoryContext.KnownFlaky] = []
var testCount = 0
for g in 0..<gateCount {
    for shard in 0..<4 {
        let jobID = "gate-\(g)#\(shard)"
        let ids = (0..<(perGate / 4)).map { i -> TestIdentifier in
            let n = shard * (perGate / 4) + i
            return TestIdentifier(suite: "Module\(g).Class\(n / 40)", name: "test\(n)_behaviour_C\(n % 13 + 1)")
        }
        emit(.jobPlanned(JobPlanned(jobID: jobID, suite: "gate-\(g)", kind: .gate, shard: shard, shardCount: 4, expectedTests: ids.map(\.description))))
        let ref = AttemptRef(jobID: jobID, attempt: 1)
        let start = Double(shard) * 2
        emit(.attemptStarted(ref, host: hosts[(g + shard) % hosts.count], slot: 0), at: start)
        for (phase, t) in [(Phase.connect, 0.4), (.push, 1.6), (.build, 58.0)] {
            emit(.phaseStarted(ref, phase: phase)); emit(.phaseFinished(ref, phase: phase), at: clock + t)
        }
        emit(.phaseStarted(ref, phase: .test))
        var red = false
        for (i, id) in ids.enumerated() {
            let n = shard * (perGate / 4) + i
            let fail = n % 997 == 0
            red = red || fail
            emit(.test(ref, event: .testStarted(id, framework: .xctest)))
            if fail { emit(.test(ref, event: .testFailure(id, file: "Tests/Module\(g)/Class\(n / 40).swift", line: n % 400 + 1, message: "XCTAssertEqual failed: (\"\(n)\") is not equal to (\"\(n + 1)\")"))) }
            emit(.test(ref, event: .testFinished(id, status: fail ? .failed : .passed, seconds: 0.001 * Double(n % 300), framework: .xctest, clone: nil)), at: clock + 0.007)
            if n % 100 == 7 { known.append(.init(suite: "gate-\(g)", test: id.description, rate: 0.05 + Double(n % 10) / 100, flakes: n % 9 + 1, executions: 40, lastSeen: "2026-11-30T12:00:00Z")) }
            testCount += 1
        }
        emit(.phaseFinished(ref, phase: .test))
        emit(.attemptEnded(ref, AttemptEnded(termination: .exited(red ? 1 : 0))))
    }
}
// One probe suite: 6 metrics × 4 sizes × 3 repetitions per host.
let metricNames = [("hit_rate", "ratio"), ("memory_delta", "bytes"), ("fill_time", "s"), ("evictions", "count"), ("read_latency", "ms"), ("throughput", "ops/s")]
for (h, host) in hosts.enumerated() {
    let ref = AttemptRef(jobID: "pressure#\(h)", attempt: 1)
    emit(.jobPlanned(JobPlanned(jobID: ref.jobID, suite: "pressure", kind: .probe, repetition: 0, expectedTests: [])))
    emit(.attemptStarted(ref, host: host, slot: 1), at: 1)
    emit(.phaseStarted(ref, phase: .test))
    for (name, unit) in metricNames { for size in [1024, 4096, 65536, 1048576] { for rep in 0..<3 {
        emit(.test(ref, event: .metric(Metric(name: name, value: Double(size / 1024 + rep + h), unit: unit, labels: ["object_bytes": "\(size)", "rep": "\(rep)"]))))
    } } }
    emit(.phaseFinished(ref, phase: .test), at: 90)
    emit(.attemptEnded(ref, AttemptEnded(termination: .exited(0))))
}
emit(.runFinished(interrupted: false), at: clock + 1)
var report = Collator(mutantFaults: [:]).collate(events)
let plain = report

// 19 earlier runs of every gate and metric, then this run: TrendRule builds the window.
var earlier = HistoryTrends()
for g in 0..<gateCount {
    earlier.gatePassed["gate-\(g)"] = (0..<19).map { .init(runID: "run-\($0)", value: ($0 + g) % 7 == 0 ? 0 : 1) }
    earlier.gateSeconds["gate-\(g)"] = (0..<19).map { .init(runID: "run-\($0)", value: 180 + Double(($0 * 7 + g) % 30)) }
}
for (name, unit) in metricNames { earlier.metrics["\(name) (\(unit))"] = (0..<19).map { .init(runID: "run-\($0)", value: 100 + Double($0 % 5)) } }
let cost = RunCost.compute(report, pricePerHour: ["mac-1": 1.2, "mac-2": 1.2, "mac-3": 0.9, "mac-4": 0.9])
var context = HistoryContext(cost: cost, trends: nil, knownFlaky: known)
let contextTime = seconds { context.trends = TrendRule.trends(earlier: earlier, report: report) }
report.history = context

var html = Data(), bare = Data()
let generate = try best(3) { html = try HTMLReportRenderer().render(report) }
let generatePlain = try best(3) { bare = try HTMLReportRenderer().render(plain) }
let markdown = try best(3) { _ = try MarkdownSummaryRenderer().render(report) }
let json = try best(3) { _ = try JSONReportRenderer().render(report) }
try html.write(to: out.appendingPathComponent("report.html"))

// Reference page: one plain table of 20,000 rows with the same text, padded to the same size.
var ref = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>reference</title></head><body><table>\n"
for s in report.suites { for j in s.jobs { for a in j.attempts { for t in a.tests {
    ref += "<tr><td>\(t.status.rawValue)</td><td>\(t.id.suite) / \(t.id.name)</td><td>\(String(format: "%.3f s", t.seconds ?? 0))</td></tr>\n"
} } } }
ref += "</table>\n"
let target = html.count - "</body></html>\n".utf8.count
if ref.utf8.count < target { ref += "<p>" + String(repeating: "lorem ipsum ", count: (target - ref.utf8.count - 7) / 12) + "</p>" }
ref += "</body></html>\n"
try Data(ref.utf8).write(to: out.appendingPathComponent("reference.html"))

func f(_ x: Double) -> String { String(format: "%.3f", x) }
print("report.html of a \(testCount)-test run with trends (\(gateCount) gates × \(context.trends!.runs) runs, \(context.trends!.metrics.count) metrics, \(known.count) known flaky): \(html.count / 1024) KiB")
print("  generate      \(f(generate)) s  budget 2 s   ×\(String(format: "%.2f", generate / generatePlain)) of the same report without trends (\(f(generatePlain)) s, \(bare.count / 1024) KiB)")
print("  trend window from 19 earlier runs (TrendRule) \(f(contextTime)) s · summary.md \(f(markdown)) s · report.json \(f(json)) s")
