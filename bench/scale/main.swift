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

/// CPU seconds of this thread (the work is single-threaded): other builds on a shared machine
/// slow the wall clock, not this. run.sh times the real binary by the wall clock.
func seconds(_ body: () throws -> Void) rethrows -> Double {
    func now() -> Double {
        var t = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t)
        return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
    }
    let start = now()
    try body()
    return now() - start
}

func wallSeconds(_ body: () throws -> Void) rethrows -> Double {
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
    let time = wallSeconds {
        do { try process.run() } catch { fail("cannot run \(tool[0]): \(error)") }
        output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
    }
    return (String(decoding: output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines), time)
}

/// Seconds of each step; `total` is end to end: parse, collate (with the verdict) and every
/// report of a run (report.json, junit.xml, summary.md, report.html).
struct Stages {
    var parse = Double.infinity, collate = Double.infinity
    var json = Double.infinity, junit = Double.infinity, markdown = Double.infinity, html = Double.infinity
    /// `xcfleet report --compare` (the report against itself) and the CI annotations: not in `total`.
    var compare = Double.infinity
    var total: Double { parse + collate + json + junit + markdown + html }
}

/// Each step, best of `runs`; parse in 64 KiB chunks as `xcfleet parse` reads.
func measure(_ data: Data, runs: Int) throws -> (Stages, RunReport) {
    var best = Stages()
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
        let json = try seconds { _ = try JSONReportRenderer().render(report) }
        let junit = try seconds { _ = try JUnitReportRenderer().render(report) }
        let markdown = try seconds { _ = try MarkdownSummaryRenderer().render(report) }
        let html = try seconds { _ = try HTMLReportRenderer().render(report) }
        let compare = try seconds {
            let comparison = RunComparison.compare(base: report, head: report)
            _ = try RunComparisonRenderer.json(comparison)
            _ = RunComparisonRenderer.markdown(comparison)
            _ = RunComparisonRenderer.htmlPage(comparison)
            _ = GitHubAnnotations.lines(report)
        }
        best.parse = min(best.parse, parse)
        best.collate = min(best.collate, collate)
        best.json = min(best.json, json)
        best.junit = min(best.junit, junit)
        best.markdown = min(best.markdown, markdown)
        best.html = min(best.html, html)
        best.compare = min(best.compare, compare)
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
let widths = [7, 5, 7, 8, 7, 7, 7, 7, 7, 8, 6, 8, 8, 8]
func row(_ cells: [String]) -> String {
    zip(cells, widths).enumerated().map { cell($1.0, $1.1, left: $0 == 0) }.joined(separator: " ")
}
let load = (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)).map { $0.split(separator: " ").prefix(3).joined(separator: " ") } ?? "?"
print("bench-scale: CPU seconds of each step (thread CPU time, best of 3; 2 at 200k), load average \(load) on \(ProcessInfo.processInfo.activeProcessorCount) cores")
print(row(["tests", "MB", "parse", "collate", "json", "junit", "md", "html", "total", "µs/test", "× 5k", "compare", "wc -l", "grep -c"]))
var perTestAt5k = 0.0
var verdicts: [String] = []
var figures: [Int: (Stages, Double)] = [:]
func f3(_ x: Double) -> String { String(format: "%.3f", x) }
// BENCH_SCALE_COUNTS=200000 (comma-separated) measures only those sizes, e.g. to profile one.
let counts = ProcessInfo.processInfo.environment["BENCH_SCALE_COUNTS"].map { $0.split(separator: ",").compactMap { Int($0) } } ?? [5_000, 50_000, 200_000]
for count in counts {
    let data = xctestLog(tests: count)
    let file = out.appendingPathComponent("log-\(count).txt")
    try data.write(to: file)
    let (stages, report) = try measure(data, runs: count >= 200_000 ? 2 : 3)
    let expectedFailed = count / 500
    guard report.totals.tests.passed == count - expectedFailed, report.totals.tests.failed == expectedFailed else {
        fail("\(count) tests: collated \(report.totals.tests.passed) passed, \(report.totals.tests.failed) failed; expected \(count - expectedFailed) and \(expectedFailed)")
    }
    let perTest = stages.total / Double(count) * 1e6
    if count == 5_000 { perTestAt5k = perTest }
    let (_, wc) = reference(["wc", "-l"], file)
    let (_, grep) = reference(["grep", "-c", "Test Case"], file)
    figures[count] = (stages, perTest)
    print(row(["\(count)", String(format: "%.1f", Double(data.count) / 1e6), f3(stages.parse), f3(stages.collate), f3(stages.json),
               f3(stages.junit), f3(stages.markdown), f3(stages.html), f3(stages.total),
               String(format: "%.2f", perTest), String(format: "%.2f", perTest / perTestAt5k), f3(stages.compare), f3(wc), f3(grep)]))
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
guard let at200k = figures[200_000], let at50k = figures[50_000], perTestAt5k > 0 else { exit(0) }
let ratio = at200k.1 / perTestAt5k
let e2e = at50k.0.total
print("per-test cost at 200k = \(String(format: "%.2f", ratio)) × that at 5k (target ≤ 1.30): \(ratio <= 1.3 ? "ok" : "OVER")")
print("50k tests end to end in process, CPU (parse + collate + report.json, junit.xml, summary.md, report.html) = \(String(format: "%.3f", e2e)) s (target ≤ 1.5 s): \(e2e <= 1.5 ? "ok" : "OVER")")
print("compare = the report compared with itself, rendered 3 ways, plus CI annotations (not in total)")
print("reference: wc -l and grep -c 'Test Case' over the same file (wall seconds of one process each, start included)")
print("files for run.sh: \(out.path)/log-50000.txt, \(out.path)/run-50000/events.jsonl")
