import Foundation
import XCFleetKit

// Cost per test of parse → collate → verdict → every report, for one plain XCTest log of
// 5,000, 50,000 and 200,000 tests in one attempt (one suite, classes of 50 tests, one failure
// in 500), side by side with `wc -l` and `grep -c` over the same bytes.
//   bench/scale/run.sh      (release build; also times the real `xcfleet parse` and `xcfleet report`)
//   .build/release/bench-scale [OUT_DIR]
// Writes OUT_DIR/log-50000.txt and OUT_DIR/run-50000/events.jsonl (the parsed log as a run's
// events) for run.sh. Targets: per-test cost at 200k ≤ 1.3 × that at 5k; 50k end to end ≤ 1.5 s.

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("bench-scale: \(message)\n".utf8))
    exit(1)
}

func seconds(_ body: () throws -> Void) rethrows -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    try body()
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
}

/// A plain XCTest log (Linux/macOS form) of `count` tests in one `All tests` process.
func xctestLog(tests count: Int) -> Data {
    var s = "Test Suite 'All tests' started at 2026-12-01 10:00:00.000\nTest Suite 'BenchTests.xctest' started at 2026-12-01 10:00:00.000\n"
    s.reserveCapacity(count * 130)
    var failures = 0
    var classFailures = 0
    for i in 0..<count {
        let cls = "BenchTests.Class\(i / 50)"
        if i % 50 == 0 { s += "Test Suite 'Class\(i / 50)' started at 2026-12-01 10:00:01.000\n"; classFailures = 0 }
        let id = "-[\(cls) test\(i)_behaviour_C\(i % 13 + 1)]"
        s += "Test Case '\(id)' started.\n"
        if i % 500 == 499 {
            s += "/Users/runner/work/app/app/Tests/BenchTests/Class\(i / 50).swift:\(10 + i % 40): error: \(id) : XCTAssertEqual failed: (\"\(i)\") is not equal to (\"\(i + 1)\")\n"
            s += "Test Case '\(id)' failed (0.002 seconds).\n"
            failures += 1
            classFailures += 1
        } else {
            s += "Test Case '\(id)' passed (0.001 seconds).\n"
        }
        if i % 50 == 49 || i == count - 1 {
            let n = i % 50 + 1
            s += "Test Suite 'Class\(i / 50)' \(classFailures > 0 ? "failed" : "passed") at 2026-12-01 10:00:02.000\n"
            s += "\t Executed \(n) tests, with \(classFailures) failures (0 unexpected) in 0.050 (0.051) seconds\n"
        }
    }
    let verdict = failures > 0 ? "failed" : "passed"
    s += "Test Suite 'BenchTests.xctest' \(verdict) at 2026-12-01 10:05:00.000\n\t Executed \(count) tests, with \(failures) failures (0 unexpected) in 300.0 (300.1) seconds\n"
    s += "Test Suite 'All tests' \(verdict) at 2026-12-01 10:05:00.000\n\t Executed \(count) tests, with \(failures) failures (0 unexpected) in 300.0 (300.1) seconds\n"
    return Data(s.utf8)
}

/// Runs `tool args… FILE`, returns (its trimmed output, seconds).
func reference(_ tool: [String], _ file: URL) -> (String, Double) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = tool + [file.path]
    let pipe = Pipe()
    process.standardOutput = pipe
    var output = Data()
    let time = seconds {
        do { try process.run() } catch { fail("cannot run \(tool[0]): \(error)") }
        output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
    }
    return (String(decoding: output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines), time)
}

struct Stages {
    var parse = 0.0, collate = 0.0, render = 0.0
    var total: Double { parse + collate + render }
}

/// Parse (64 KiB chunks) → collate with the verdict (`xcfleet parse`'s path) → every report of a
/// run (report.json, junit.xml, summary.md, report.html), a comparison with itself and the CI
/// annotations. Best of `runs`.
func measure(_ data: Data, runs: Int) throws -> (Stages, RunReport) {
    var best = Stages(parse: .infinity, collate: .infinity, render: .infinity)
    var last: RunReport?
    for _ in 0..<runs {
        var events: [TestEvent] = []
        let parse = seconds {
            var parser = OutputParser()
            var offset = 0
            while offset < data.count {
                let end = min(offset + 65536, data.count)
                events += parser.consume(data[offset..<end])
                offset = end
            }
            events += parser.finish()
        }
        var report: RunReport?
        let collate = seconds { report = LogParse.report(events: events, name: "bench.log") }
        guard let report else { fail("no report") }
        let render = try seconds {
            _ = try ReportBundle.render(report)
            let comparison = RunComparison.compare(base: report, head: report)
            _ = try RunComparisonRenderer.json(comparison)
            _ = RunComparisonRenderer.markdown(comparison)
            _ = RunComparisonRenderer.htmlPage(comparison)
            _ = GitHubAnnotations.lines(report)
        }
        best.parse = min(best.parse, parse)
        best.collate = min(best.collate, collate)
        best.render = min(best.render, render)
        last = report
    }
    return (best, last!)
}

let out = URL(fileURLWithPath: CommandLine.arguments.dropFirst().first ?? NSTemporaryDirectory() + "xcfleet-bench-scale-\(getpid())")
try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)

func cell(_ text: String, _ width: Int, left: Bool = false) -> String {
    let pad = String(repeating: " ", count: max(0, width - text.count))
    return left ? text + pad : pad + text
}
let widths = [8, 7, 8, 9, 9, 9, 10, 8, 9, 9]
func row(_ cells: [String]) -> String {
    zip(cells, widths).enumerated().map { cell($1.0, $1.1, left: $0 == 0) }.joined(separator: " ")
}
print(row(["tests", "MB", "parse s", "collate s", "render s", "total s", "µs/test", "× 5k", "wc -l s", "grep -c s"]))
var perTestAt5k = 0.0
var verdicts: [String] = []
var figures: [Int: (Stages, Double)] = [:]
for count in [5_000, 50_000, 200_000] {
    let data = xctestLog(tests: count)
    let file = out.appendingPathComponent("log-\(count).txt")
    try data.write(to: file)
    let (stages, report) = try measure(data, runs: count >= 200_000 ? 2 : 3)
    let expectedFailed = count / 500
    guard report.totals.testsPassed == count - expectedFailed, report.totals.testsFailed == expectedFailed else {
        fail("\(count) tests: collated \(report.totals.testsPassed) passed, \(report.totals.testsFailed) failed; expected \(count - expectedFailed) and \(expectedFailed)")
    }
    let perTest = stages.total / Double(count) * 1e6
    if count == 5_000 { perTestAt5k = perTest }
    let (lines, wc) = reference(["wc", "-l"], file)
    let (matches, grep) = reference(["grep", "-c", "Test Case"], file)
    _ = (lines, matches)
    figures[count] = (stages, perTest)
    print(row(["\(count)", String(format: "%.1f", Double(data.count) / 1e6), String(format: "%.3f", stages.parse),
               String(format: "%.3f", stages.collate), String(format: "%.3f", stages.render), String(format: "%.3f", stages.total),
               String(format: "%.2f", perTest), String(format: "%.2f", perTest / perTestAt5k),
               String(format: "%.3f", wc), String(format: "%.3f", grep)]))
    verdicts.append(report.verdictLine)
    if count == 50_000 {
        // The same log as a run's events, for `xcfleet report` in run.sh.
        let events = OutputParser.parse(data)
        let runDir = out.appendingPathComponent("run-50000")
        try? FileManager.default.removeItem(at: runDir)
        let log = try EventLog(directory: runDir)
        let ref = AttemptRef(jobID: "log", attempt: 1)
        log.append(.runStarted(RunStarted(runID: "bench-scale", planName: "bench", planPath: "bench.json", startedAt: "2026-12-01T10:00:00Z",
                                          xcfleetVersion: XCFleet.version, suites: [SuiteSpec(name: "log", template: "parsed")], hosts: ["log"])))
        log.append(.jobPlanned(JobPlanned(jobID: "log", suite: "log", kind: .gate, expectedTests: [])))
        log.append(.attemptStarted(ref, host: "log", slot: 0))
        for e in events { log.append(.test(ref, event: e)) }
        log.append(.attemptEnded(ref, AttemptEnded(termination: .exited(0))))
        log.append(.runFinished(interrupted: false))
    }
}
let ratio = figures[200_000]!.1 / perTestAt5k
let e2e = figures[50_000]!.0.total
print("per-test cost at 200k = \(String(format: "%.2f", ratio)) × that at 5k (target ≤ 1.30): \(ratio <= 1.3 ? "ok" : "OVER")")
print("50k tests end to end in process (parse + collate + every report + compare + annotations) = \(String(format: "%.3f", e2e)) s (target ≤ 1.5 s): \(e2e <= 1.5 ? "ok" : "OVER")")
print("reference: wc -l and grep -c 'Test Case' over the same file (one process each, start included)")
print("files for run.sh: \(out.path)/log-50000.txt, \(out.path)/run-50000/events.jsonl")
