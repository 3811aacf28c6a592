import Foundation
import XCFleetKit

// History benchmarks (release): side by side in one run, with a reference measured the same way.
//   swift build -c release --product bench-history
//   bench/history/run.sh            (starts a throwaway PostgreSQL on loopback, runs this, stops it)
//   .build/release/bench-history [POSTGRES_URL]
//
// 1. Recording a 20,000-test run: events.jsonl → collated report → rows → database, on SQLite and
//    on PostgreSQL (budget: ≤ 1 s on SQLite, PostgreSQL ≤ 3× SQLite). Reference: writing the same
//    rows as JSON lines to a file (what no database would cost).
// 2. `xcfleet flaky` over 1,000 recorded runs × 1,000 tests on SQLite (budget ≤ 200 ms): the query
//    plus the analysis. Reference: one full `COUNT(*)` scan of the tests table.

func seconds(_ body: () async throws -> Void) async rethrows -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    try await body()
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
}

func writeRun(_ dir: URL, runID: String, tests: Int, failEvery: Int = 0, seed: Int = 0) throws -> URL {
    let runDir = dir.appendingPathComponent(runID)
    let log = try EventLog(directory: runDir)
    let iso = ISO8601DateFormatter()
    iso.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
    let suites = (0..<4).map { SuiteSpec(name: "gate\($0)", template: "cache-contract") }
    log.append(.runStarted(RunStarted(runID: runID, planName: "bench", planPath: "Plans/bench.json", startedAt: iso.string(from: Date()),
                                      xcfleetVersion: XCFleet.version, suites: suites, hosts: ["mac-1", "mac-2"])))
    let perSuite = tests / suites.count
    for (s, suite) in suites.enumerated() {
        let names = (0..<perSuite).map { "Class\($0 / 50)/test\($0)" }
        log.append(.jobPlanned(JobPlanned(jobID: suite.name, suite: suite.name, kind: .gate, expectedTests: names, contentHash: "h\(s)")))
        let ref = AttemptRef(jobID: suite.name, attempt: 1)
        log.append(.attemptStarted(ref, host: "mac-\(s % 2 + 1)", slot: 0))
        for phase in [Phase.connect, .push, .build, .test] { log.append(.phaseStarted(ref, phase: phase)); log.append(.phaseFinished(ref, phase: phase)) }
        for (i, name) in names.enumerated() {
            let parts = name.split(separator: "/").map(String.init)
            let id = TestIdentifier(suite: parts[0], name: parts[1])
            let fail = failEvery > 0 && (i * 7 + seed * 13) % failEvery == 0 && i % 50 == 0
            log.append(.test(ref, event: .testStarted(id, framework: .xctest)))
            log.append(.test(ref, event: .testFinished(id, status: fail ? .failed : .passed, seconds: 0.001 * Double(i % 17), framework: .xctest, clone: nil)))
        }
        log.append(.attemptEnded(ref, AttemptEnded(termination: .exited(0))))
    }
    log.append(.runFinished(interrupted: false))
    return runDir
}

let work = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("xcfleet-bench-history-\(getpid())")
try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: work) }
let pgURL = CommandLine.arguments.dropFirst().first ?? ProcessInfo.processInfo.environment["XCFLEET_BENCH_PG_URL"]

// 1. Recording 20,000 tests.
let big = try writeRun(work, runID: "big", tests: 20_000)
var record: HistoryRecord!
var report: RunReport!
// Reading and collating events.jsonl happens once per run for every report (Runner.run); the
// history takes that report. Measured apart from the recording itself.
let collate = try await seconds { report = Collator(mutantFaults: [:]).collate(try EventLog.read(big.appendingPathComponent("events.jsonl"))) }
let rowsTime = await seconds { record = HistoryRecord(report: report, cost: RunCost.compute(report, pricePerHour: ["mac-1": 1.2])) }
let sqlite = try await HistoryDatabase.open(.sqlite(path: work.appendingPathComponent("bench.sqlite").path))
let sqliteWrite = try await seconds { try await sqlite.record(record) }
let sqliteRewrite = try await seconds { try await sqlite.record(record) }
let reference = try await seconds {
    var out = Data()
    for row in record.rows["tests"] ?? [] { out.append(Data(row.map { $0.string ?? "" }.joined(separator: "\t").utf8)); out.append(0x0A) }
    try out.write(to: work.appendingPathComponent("rows.tsv"))
}
print("recording a \(record.testCount)-test run (report → rows \(String(format: "%.3f", rowsTime)) s; the run's own events → report, shared with every report, \(String(format: "%.3f", collate)) s)")
print(String(format: "  sqlite       rows + write %.3f s (write %.3f, rewrite %.3f)  budget 1 s   ×%.1f of the flat-file reference (%.3f s)",
             rowsTime + sqliteWrite, sqliteWrite, sqliteRewrite, sqliteWrite / reference, reference))
if let pgURL {
    let pg = try await HistoryDatabase.open(.postgres(url: pgURL))
    let pgWrite = try await seconds { try await pg.record(record) }
    let pgRewrite = try await seconds { try await pg.record(record) }
    print(String(format: "  postgresql   rows + write %.3f s (write %.3f, rewrite %.3f)  = %.2f× sqlite (budget 3×)",
                 rowsTime + pgWrite, pgWrite, pgRewrite, (rowsTime + pgWrite) / (rowsTime + sqliteWrite)))
    await pg.close()
} else {
    print("  postgresql   not measured (give a URL: bench/history/run.sh starts a local server)")
}
await sqlite.close()

// 2. flaky over 1,000 runs × 1,000 tests.
let flakyDB = HistoryLocation.sqlite(path: work.appendingPathComponent("flaky.sqlite").path)
let store = try await HistoryDatabase.open(flakyDB)
let template = try HistoryRecorder.record(runDirectory: try writeRun(work, runID: "t", tests: 1_000))
let statusIndex = HistoryRecord.columns["tests"]!.firstIndex(of: "status")!
let epochIndex = HistoryRecord.columns["tests"]!.firstIndex(of: "started_epoch")!
let fill = try await seconds {
    for r in 0..<1_000 {
        var rec = template
        let id = SQLValue.text(String(format: "run%04d", r))
        let epoch = SQLValue.real(Date().timeIntervalSince1970 - Double(1_000 - r) * 600)
        for (table, rows) in rec.rows {
            rec.rows[table] = rows.enumerated().map { (i, row) in
                var row = row
                row[0] = id
                if table == "runs" { row[7] = epoch }
                if table == "tests" {
                    row[epochIndex] = epoch
                    // 2% of the tests fail now and then (one run in 10).
                    if i % 50 == 0 && (r + i) % 10 == 0 { row[statusIndex] = .text("failed") }
                }
                return row
            }
        }
        rec.runID = String(format: "run%04d", r)
        try await store.record(rec)
    }
}
var found = 0
let since = Date().timeIntervalSince1970 - 30 * 86_400
_ = try await store.flakyCandidates(since: since) // warm the page cache, as a second `flaky` would
var rows: [FlakyExecution] = []
let query = try await seconds { rows = try await store.flakyCandidates(since: since) }
let flaky = try await seconds { found = FlakyAnalysis.analyze(try await store.flakyCandidates(since: since)).count }
let conn = try SQLiteConnection(path: work.appendingPathComponent("flaky.sqlite").path)
let scan = try await seconds { _ = try conn.query("SELECT COUNT(*), SUM(seconds) FROM tests", []) }
conn.close()
await store.close()
print(String(format: "flaky over 1,000 runs × 1,000 tests (filled in %.1f s): %.3f s (query alone %.3f s, %d rows), %d flaky tests  budget 0.200 s   ×%.2f of one full scan (%.3f s)",
             fill, flaky, query, rows.count, found, flaky / scan, scan))
