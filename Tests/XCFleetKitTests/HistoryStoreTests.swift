import Foundation
import XCTest
@testable import XCFleetKit
import XCFleetTestSupport

/// The same store tests against both backends (real SQLite file, real PostgreSQL server on loopback).
final class SQLiteHistoryStoreTests: XCTestCase {
    func location() throws -> HistoryLocation {
        .sqlite(path: try TestPaths.temporaryDirectory().appendingPathComponent("history.sqlite").path)
    }
    func testRecordAndQueries() async throws { try await HistoryStoreContract.recordAndQueries(try location()) }
    func testRecordingTwiceKeepsOneCopy() async throws { try await HistoryStoreContract.recordingTwiceKeepsOneCopy(try location()) }
    func testMigratesFromEveryOlderVersion() async throws { try await HistoryStoreContract.migratesFromEveryOlderVersion { try self.location() } }
    func testNewerSchemaIsRefused() async throws { try await HistoryStoreContract.newerSchemaIsRefused(try location()) }
    func testForeignDatabaseIsRefused() async throws { try await HistoryStoreContract.foreignDatabaseIsRefused(try location()) }
    func testTwoWritersAtOnceBothLand() async throws { try await HistoryStoreContract.twoWritersAtOnceBothLand(try location()) }
    func testBuildCacheHitRatePerHost() async throws { try await HistoryStoreContract.buildCacheHitRatePerHost(try location()) }
    func testDurationsPreferComparableHosts() async throws { try await HistoryStoreContract.durationsPreferComparableHosts(try location()) }
    func testBulkInsertKeepsEveryValue() async throws { try await HistoryStoreContract.bulkInsertKeepsEveryValue(try location()) }

    /// A damaged database whose `meta` still reads as ours (found by the historydb fuzz target):
    /// refused as damaged before the WAL switch or a migration writes to it; its bytes stay as they were.
    /// Likewise a damaged index that hides `schema_version` 99 from an indexed lookup but not from a
    /// scan: the pre-write check reads `meta` exactly as the migration does.
    func testADamagedDatabaseIsRefusedBeforeAnythingIsWritten() async throws {
        for (sample, kind) in [("damaged-meta-ok.sqlite", HistoryError.Kind.corrupt), ("meta-read-two-ways.sqlite", .newerSchema)] {
            let bytes = try Data(contentsOf: TestPaths.packageRoot.appendingPathComponent("fuzz/corpus/historydb/\(sample)"))
            let db = try TestPaths.temporaryDirectory().appendingPathComponent("history.sqlite")
            try bytes.write(to: db)
            do {
                let store = try await HistoryDatabase.open(.sqlite(path: db.path))
                await store.close()
                XCTFail("\(sample): a damaged database was opened")
            } catch let error as HistoryError {
                XCTAssertEqual(error.kind, kind, "\(sample): \(error.message)")
                XCTAssertFalse(error.message.contains("\n"))
            }
            XCTAssertEqual(try Data(contentsOf: db), bytes, "\(sample): the refused file was written")
            XCTAssertFalse(FileManager.default.fileExists(atPath: db.path + "-wal"), sample)
        }
    }

    func testCorruptFileIsANoteNotAnError() async throws {
        let dir = try TestPaths.temporaryDirectory()
        let db = dir.appendingPathComponent("history.sqlite")
        try Data(repeating: 0x41, count: 8192).write(to: db)
        let run = try HistoryFixtures.writeRun(in: dir, runID: "r1", startedAt: Date(), tests: [.init(name: "A/testX", statuses: [.passed], seconds: 1)])
        let outcome = await HistoryRecorder(location: .sqlite(path: db.path)).record(runDirectory: run)
        XCTAssertEqual(outcome.recorded, [])
        XCTAssertEqual(outcome.notes.count, 1)
        XCTAssertTrue(outcome.notes[0].contains("not a readable SQLite database"), outcome.notes[0])
        XCTAssertFalse(outcome.notes[0].contains("\n"))
        // The file is left as it was (never overwritten).
        XCTAssertEqual(try Data(contentsOf: db), Data(repeating: 0x41, count: 8192))
    }

    /// A run killed mid-way (no runFinished, a torn last line) is recorded from what it logged.
    func testAnInterruptedRunsPartialEventsAreRecorded() async throws {
        let dir = try TestPaths.temporaryDirectory()
        let run = try HistoryFixtures.writeRun(in: dir, runID: "cut", startedAt: Date(), tests: (0..<10).map { .init(name: "A/test\($0)", statuses: [.passed], seconds: 1) })
        let events = run.appendingPathComponent("events.jsonl")
        var lines = try String(contentsOf: events, encoding: .utf8).split(separator: "\n").map(String.init)
        lines = Array(lines.prefix(lines.count - 8)) // the last tests, the attempt's end and runFinished never written
        try (lines.joined(separator: "\n") + "\n{\"seq\":99,\"t\":1,\"bo").write(to: events, atomically: true, encoding: .utf8)
        let db = dir.appendingPathComponent("history.sqlite").path
        let outcome = await HistoryRecorder(location: .sqlite(path: db)).record(runDirectory: run)
        XCTAssertEqual(outcome.recorded, ["cut"], outcome.notes.joined())
        let store = try await HistoryDatabase.open(.sqlite(path: db))
        let runs = try await store.runs(limit: 5)
        await store.close()
        XCTAssertEqual(runs.first?.tests, 7, "the tests that finished before the cut")
    }

    func testLockedDatabaseIsANoteWithinTheDeadline() async throws {
        let dir = try TestPaths.temporaryDirectory()
        let path = dir.appendingPathComponent("history.sqlite").path
        let location = HistoryLocation.sqlite(path: path)
        await (try HistoryDatabase.open(location)).close()
        let holder = try SQLiteConnection(path: path)
        try holder.execute("BEGIN EXCLUSIVE")
        defer { try? holder.execute("ROLLBACK"); holder.close() }
        let run = try HistoryFixtures.writeRun(in: dir, runID: "r1", startedAt: Date(), tests: [.init(name: "A/testX", statuses: [.passed], seconds: 1)])
        var options = HistoryDatabase.Options()
        options.busyTimeout = 0.2
        options.retries = 1
        let started = Date()
        let outcome = await HistoryRecorder(location: location, options: options, deadline: 5).record(runDirectory: run)
        XCTAssertLessThan(Date().timeIntervalSince(started), 5)
        XCTAssertEqual(outcome.recorded, [])
        XCTAssertEqual(outcome.notes.count, 1)
        XCTAssertTrue(outcome.notes[0].contains("locked") || outcome.notes[0].contains("another process"), outcome.notes[0])
    }

    func testFullDiskIsANote() async throws {
        let dir = try TestPaths.temporaryDirectory()
        let mount = dir.appendingPathComponent("tiny")
        try FileManager.default.createDirectory(at: mount, withIntermediateDirectories: true)
        let mounted = try await runCommandOffPool(URL(fileURLWithPath: "/bin/mount"), ["-t", "tmpfs", "-o", "size=256k", "tmpfs", mount.path])
        guard mounted.status == 0 else { throw XCTSkip("full-disk test needs root to mount a 256 KiB tmpfs: \(mounted.stderr)") }
        defer { _ = try? runCommand(URL(fileURLWithPath: "/bin/umount"), ["-l", mount.path]) }
        let tests = (0..<3000).map { HistoryFixtures.Test(name: "LongClassNameForPadding\($0 / 50)/testSomethingRatherLong\($0)", statuses: [.passed], seconds: 0.5) }
        let run = try HistoryFixtures.writeRun(in: dir, runID: "big", startedAt: Date(), tests: tests)
        let outcome = await HistoryRecorder(location: .sqlite(path: mount.appendingPathComponent("history.sqlite").path)).record(runDirectory: run)
        XCTAssertEqual(outcome.recorded, [])
        XCTAssertEqual(outcome.notes.count, 1)
        XCTAssertTrue(outcome.notes[0].contains("full"), outcome.notes[0])
    }
}

final class PostgresHistoryStoreTests: XCTestCase {
    override class func setUp() {
        super.setUp()
        TestPostgres.prepare()
    }

    func location() throws -> HistoryLocation { .postgres(url: try TestPostgres.freshDatabase()) }
    func testRecordAndQueries() async throws { try await HistoryStoreContract.recordAndQueries(try location()) }
    func testRecordingTwiceKeepsOneCopy() async throws { try await HistoryStoreContract.recordingTwiceKeepsOneCopy(try location()) }
    func testMigratesFromEveryOlderVersion() async throws { try await HistoryStoreContract.migratesFromEveryOlderVersion { try self.location() } }
    func testNewerSchemaIsRefused() async throws { try await HistoryStoreContract.newerSchemaIsRefused(try location()) }
    func testForeignDatabaseIsRefused() async throws { try await HistoryStoreContract.foreignDatabaseIsRefused(try location()) }
    func testTwoWritersAtOnceBothLand() async throws { try await HistoryStoreContract.twoWritersAtOnceBothLand(try location()) }
    func testBuildCacheHitRatePerHost() async throws { try await HistoryStoreContract.buildCacheHitRatePerHost(try location()) }
    func testDurationsPreferComparableHosts() async throws { try await HistoryStoreContract.durationsPreferComparableHosts(try location()) }
    func testBulkInsertKeepsEveryValue() async throws { try await HistoryStoreContract.bulkInsertKeepsEveryValue(try location()) }

    func testServerDownQueuesTheRunAndReplaysItLater() async throws {
        let url = try TestPostgres.freshDatabase()
        let dir = try TestPaths.temporaryDirectory()
        let pending = dir.appendingPathComponent("history-pending.txt")
        let r1 = try HistoryFixtures.writeRun(in: dir, runID: "r1", startedAt: Date(), tests: [.init(name: "A/testX", statuses: [.passed], seconds: 1)])
        let r2 = try HistoryFixtures.writeRun(in: dir, runID: "r2", startedAt: Date(), tests: [.init(name: "A/testX", statuses: [.passed], seconds: 1)])
        let down = try downURL(url)
        let first = await HistoryRecorder(location: .postgres(url: down), pendingFile: pending).record(runDirectory: r1)
        XCTAssertEqual(first.recorded, [])
        XCTAssertEqual(first.notes.count, 1)
        XCTAssertTrue(first.notes[0].contains("queued"), first.notes[0])
        XCTAssertFalse(first.notes[0].contains(TestPostgres.password(url)), "credentials leaked: \(first.notes[0])")
        XCTAssertEqual(try String(contentsOf: pending, encoding: .utf8), r1.standardizedFileURL.path + "\n")
        let second = await HistoryRecorder(location: .postgres(url: url), pendingFile: pending).record(runDirectory: r2)
        XCTAssertEqual(Set(second.recorded), ["r1", "r2"])
        XCTAssertFalse(FileManager.default.fileExists(atPath: pending.path))
        let store = try await HistoryDatabase.open(.postgres(url: url))
        let runs = try await store.runs(limit: 10)
        await store.close()
        XCTAssertEqual(Set(runs.map(\.runID)), ["r1", "r2"])
    }

    func testSlowServerTimesOutWithANote() async throws {
        // A listener that accepts TCP but never answers the startup packet.
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        addr.sin_port = 0
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, len) } }
        XCTAssertEqual(listen(fd, 8), 0)
        _ = withUnsafeMutablePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) } }
        let port = UInt16(bigEndian: addr.sin_port)
        let dir = try TestPaths.temporaryDirectory()
        let run = try HistoryFixtures.writeRun(in: dir, runID: "r1", startedAt: Date(), tests: [.init(name: "A/testX", statuses: [.passed], seconds: 1)])
        var options = HistoryDatabase.Options()
        options.connectTimeout = 2
        let started = Date()
        let outcome = await HistoryRecorder(location: .postgres(url: "postgresql://bob:hunter22@127.0.0.1:\(port)/h"), pendingFile: dir.appendingPathComponent("p.txt"),
                                            options: options, deadline: 10).record(runDirectory: run)
        let elapsed = Date().timeIntervalSince(started)
        XCTAssertLessThan(elapsed, 8, "a silent server must not stall the run")
        XCTAssertEqual(outcome.notes.count, 1)
        XCTAssertTrue(outcome.notes[0].contains("queued"), outcome.notes[0])
        XCTAssertFalse(outcome.notes[0].contains("hunter22"))
        XCTAssertFalse(outcome.notes[0].contains("bob"))
    }

    func testWrongPasswordMessageCarriesNoCredentials() async throws {
        let url = try TestPostgres.baseURL()
        let password = TestPostgres.password(url)
        let wrong = url.replacingOccurrences(of: ":\(password)@", with: ":not-\(password)@")
        do {
            _ = try await HistoryDatabase.open(.postgres(url: wrong))
            XCTFail("a wrong password must not connect")
        } catch {
            let text = "\(error)"
            XCTAssertTrue(text.contains("password authentication failed"), text)
            XCTAssertFalse(text.contains(password), text)
            XCTAssertFalse(text.contains("xcfleet:"), text)
        }
    }

    private func downURL(_ url: String) throws -> String {
        // Same credentials, a port nothing listens on.
        let regex = try NSRegularExpression(pattern: ":[0-9]+/")
        return regex.stringByReplacingMatches(in: url, range: NSRange(url.startIndex..., in: url), withTemplate: ":1/")
    }
}

extension TestPostgres {
    static func password(_ url: String) -> String {
        HistoryLocation.secrets(in: url).first { $0 != "xcfleet" } ?? "xcfleet"
    }
}

/// The backend-independent store tests.
enum HistoryStoreContract {
    static let now = Date()

    static func sampleRuns(in dir: URL) throws -> [URL] {
        [
            try HistoryFixtures.writeRun(in: dir, runID: "r1", startedAt: now - 3 * HistoryFixtures.day, tests: [
                .init(name: "A/testSteady", statuses: [.passed], seconds: 1),
                .init(name: "A/testRetry", statuses: [.failed, .passed], seconds: 2),
            ], metric: 100),
            try HistoryFixtures.writeRun(in: dir, runID: "r2", startedAt: now - 2 * HistoryFixtures.day, tests: [
                .init(name: "A/testSteady", statuses: [.passed], seconds: 3),
                .init(name: "A/testRetry", statuses: [.passed], seconds: 2),
            ], metric: 110),
            try HistoryFixtures.writeRun(in: dir, runID: "r3", startedAt: now - 1 * HistoryFixtures.day, tests: [
                .init(name: "A/testSteady", statuses: [.failed], seconds: 5),
                .init(name: "A/testRetry", statuses: [.passed], seconds: 2),
                .init(name: "A/testBroken", statuses: [.failed], seconds: 1),
            ], metric: 300, infraErrorFirst: true),
        ]
    }

    static func recordAndQueries(_ location: HistoryLocation) async throws {
        let dir = try TestPaths.temporaryDirectory()
        let store = try await HistoryDatabase.open(location)
        for run in try sampleRuns(in: dir) { try await store.record(try HistoryRecorder.record(runDirectory: run)) }

        let runs = try await store.runs(limit: 10)
        XCTAssertEqual(runs.map(\.runID), ["r3", "r2", "r1"])
        XCTAssertEqual(runs.map(\.tests), [3, 2, 3])
        XCTAssertEqual(runs.map(\.exitCode), [1, 0, 1], "r1's retried test makes its gate red (allowFlaky is off)")

        let durations = try await store.durations(suites: ["gate"], lastRuns: 10)
        XCTAssertEqual(durations.expectedSeconds(suite: "gate", test: "A/testSteady"), 3, "median of 1, 3, 5")
        XCTAssertEqual(durations.expectedSeconds(suite: "gate", test: "A/testRetry"), 2)
        let lastTwo = try await store.durations(suites: ["gate"], lastRuns: 1)
        XCTAssertEqual(lastTwo.expectedSeconds(suite: "gate", test: "A/testSteady"), 5, "only the newest run")
        XCTAssertNotNil(durations.attemptSeconds["gate"])

        let flaky = FlakyAnalysis.analyze(try await store.flakyCandidates(since: now.timeIntervalSince1970 - 30 * HistoryFixtures.day))
        XCTAssertEqual(flaky.map(\.test), ["A/testRetry", "A/testSteady"], "testBroken never passed: a real failure, not a flake")
        XCTAssertEqual(flaky.first { $0.test == "A/testRetry" }?.withinRun, 1)
        XCTAssertEqual(flaky.first { $0.test == "A/testSteady" }?.acrossRuns, 1)
        XCTAssertEqual(flaky.first { $0.test == "A/testSteady" }?.executions, 3)
        XCTAssertEqual(flaky.first?.hosts, ["mac-1"])
        let recent = FlakyAnalysis.analyze(try await store.flakyCandidates(since: now.timeIntervalSince1970 - 1.5 * HistoryFixtures.day))
        XCTAssertEqual(recent.map(\.test), [], "--days cuts older runs off")

        let hosts = try await store.hostHistory(since: 0)
        XCTAssertEqual(hosts.map(\.host), ["mac-1"])
        XCTAssertEqual(hosts.first?.attempts, 5)
        XCTAssertEqual(hosts.first?.infraFailures, 1)
        XCTAssertEqual(hosts.first?.deadPeerEvents, 1)

        let trends = try await store.trends(planName: "plan", lastRuns: 10)
        XCTAssertEqual(trends.gatePassed["gate"]?.map(\.value), [0, 1, 0], "only a passed job counts as a pass")
        XCTAssertEqual(trends.gatePassed["gate"]?.map(\.runID), ["r1", "r2", "r3"])
        XCTAssertEqual(trends.metrics["hit_ns (ns)"]?.map(\.value), [100, 110, 300])
        await store.close()
    }

    static func recordingTwiceKeepsOneCopy(_ location: HistoryLocation) async throws {
        let dir = try TestPaths.temporaryDirectory()
        let run = try sampleRuns(in: dir)[0]
        let store = try await HistoryDatabase.open(location)
        try await store.record(try HistoryRecorder.record(runDirectory: run))
        try await store.record(try HistoryRecorder.record(runDirectory: run))
        let runs = try await store.runs(limit: 10)
        XCTAssertEqual(runs.map(\.runID), ["r1"])
        XCTAssertEqual(runs.first?.tests, 3)
        await store.close()
    }

    /// A database at every older version (0 = empty) with a run in it migrates to the current one and keeps the run.
    static func migratesFromEveryOlderVersion(_ fresh: () throws -> HistoryLocation) async throws {
        for version in 0..<HistorySchema.currentVersion {
            let location = try fresh()
            let c = try connection(location)
            for step in 0..<version { for sql in HistorySchema.migrations[step] { try c.execute(sql) } }
            if version > 0 {
                try c.execute("INSERT INTO meta (key, value) VALUES ('application', ?), ('schema_version', ?)",
                              [.text(HistorySchema.application), .text(String(version))])
                try c.execute("INSERT INTO runs (run_id, plan_name, started_at, started_epoch, duration, verdict, exit_code, interrupted) VALUES ('old', 'plan', '2026-01-01T00:00:00Z', 1, 2, 'ok', 0, 0)")
                try c.execute("INSERT INTO tests (run_id, job_id, attempt, suite, test_key, status, seconds, lost, started_epoch) VALUES ('old', 'gate', 1, 'gate', 'A/testOld', 'passed', 7, 0, 1)")
                try c.execute("INSERT INTO jobs (run_id, job_id, suite, kind) VALUES ('old', 'gate', 'gate', 'gate')")
            }
            c.close()
            let store = try await HistoryDatabase.open(location)
            let dir = try TestPaths.temporaryDirectory()
            try await store.record(try HistoryRecorder.record(runDirectory: try sampleRuns(in: dir)[0]))
            let runs = try await store.runs(limit: 10)
            XCTAssertEqual(Set(runs.map(\.runID)), version > 0 ? ["old", "r1"] : ["r1"], "from version \(version)")
            if version > 0 {
                let durations = try await store.durations(suites: ["gate"], lastRuns: 10)
                XCTAssertEqual(durations.expectedSeconds(suite: "gate", test: "A/testOld"), 7, "from version \(version)")
            }
            // Version 4's builds and host classes land and are read back.
            let built = try HistoryFixtures.writeRun(in: dir, runID: "built", startedAt: now, host: "mac-9",
                                                     tests: [.init(name: "A/t", statuses: [.passed], seconds: 1)], hostClass: "c9", build: .cached)
            try await store.record(try HistoryRecorder.record(runDirectory: built))
            let mac9 = try await store.hostHistory(since: 0).first { $0.host == "mac-9" }
            XCTAssertEqual(mac9?.cachedBuilds, 1, "from version \(version)")
            XCTAssertEqual(mac9?.hostClass, "c9", "from version \(version)")
            // Version 5's product digests: what a cached build must match; only builds made count.
            let key = String(repeating: "a", count: 64), product = String(repeating: "b", count: 64)
            for (i, origin) in [BuildOrigin.cold, .cached].enumerated() {
                let run = try HistoryFixtures.writeRun(in: dir, runID: "digest\(i)", startedAt: now, host: "mac-9",
                                                       tests: [.init(name: "A/t", statuses: [.passed], seconds: 1)], build: origin,
                                                       buildKey: key, product: origin == .cold ? product : String(repeating: "c", count: 64))
                try await store.record(try HistoryRecorder.record(runDirectory: run))
            }
            let trusted = try await store.trustedBuilds(hosts: ["mac-9", "mac-1"])
            XCTAssertEqual(trusted, [BuildTrust.Entry(host: "mac-9", key: key, product: product)], "from version \(version)")
            await store.close()
            let check = try connection(location)
            XCTAssertEqual(try check.query("SELECT value FROM meta WHERE key = 'schema_version'", []).first?.first?.string,
                           String(HistorySchema.currentVersion), "from version \(version)")
            check.close()
        }
    }

    static func newerSchemaIsRefused(_ location: HistoryLocation) async throws {
        await (try HistoryDatabase.open(location)).close()
        let c = try connection(location)
        try c.execute("UPDATE meta SET value = ? WHERE key = 'schema_version'", [.text(String(HistorySchema.currentVersion + 1))])
        c.close()
        do {
            _ = try await HistoryDatabase.open(location)
            XCTFail("a newer schema must be refused")
        } catch let error as HistoryError {
            XCTAssertEqual(error.kind, .newerSchema)
            XCTAssertTrue(error.description.contains("newer than this xcfleet"), error.description)
        }
        // Through the recorder: a note, nothing thrown.
        let dir = try TestPaths.temporaryDirectory()
        let outcome = await HistoryRecorder(location: location).record(runDirectory: try sampleRuns(in: dir)[0])
        XCTAssertEqual(outcome.recorded, [])
        XCTAssertEqual(outcome.notes.count, 1)
    }

    static func foreignDatabaseIsRefused(_ location: HistoryLocation) async throws {
        let c = try connection(location)
        try c.execute("CREATE TABLE invoices (id BIGINT PRIMARY KEY, total DOUBLE PRECISION)")
        c.close()
        do {
            _ = try await HistoryDatabase.open(location)
            XCTFail("a foreign database must be refused")
        } catch let error as HistoryError {
            XCTAssertEqual(error.kind, .foreign)
            XCTAssertTrue(error.description.contains("not an xcfleet history database"), error.description)
        }
        let check = try connection(location)
        XCTAssertEqual(try check.tableNames(), ["invoices"], "nothing was added to a foreign database")
        check.close()
    }

    /// Two stores (two connections, each on its own thread) write 8 runs each at the same time.
    static func twoWritersAtOnceBothLand(_ location: HistoryLocation) async throws {
        let dir = try TestPaths.temporaryDirectory()
        let tests = (0..<200).map { HistoryFixtures.Test(name: "A/test\($0)", statuses: [.passed], seconds: 0.1) }
        var records: [HistoryRecord] = []
        for i in 0..<16 {
            let run = try HistoryFixtures.writeRun(in: dir, runID: "w\(i)", startedAt: now, tests: tests)
            records.append(try HistoryRecorder.record(runDirectory: run))
        }
        await (try HistoryDatabase.open(location)).close()
        let a = try await HistoryDatabase.open(location), b = try await HistoryDatabase.open(location)
        let batches = [Array(records[0..<8]), Array(records[8..<16])]
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (store, batch) in zip([a, b], batches) {
                group.addTask { for r in batch { try await store.record(r) } }
            }
            try await group.waitForAll()
        }
        let runs = try await a.runs(limit: 100)
        XCTAssertEqual(runs.count, 16)
        XCTAssertEqual(runs.map(\.tests).reduce(0, +), 16 * 200)
        await a.close()
        await b.close()
    }

    /// Untrusted names (tabs, newlines, backslashes, quotes, `\N`, non-ASCII) and NULLs, reals
    /// and integers come back exactly from the bulk insert (PostgreSQL writes `tests` with COPY).
    static func bulkInsertKeepsEveryValue(_ location: HistoryLocation) async throws {
        await (try HistoryDatabase.open(location)).close() // the tables
        let c = try connection(location)
        defer { c.close() }
        let names = ["plain", "tab\there", "line\nbreak\r\n", #"back\slash \N \\N"#, "quote ' \" ;--", "ünïcødé ✔︎ 🚀", "", "nul\u{0}byte"]
        let rows: [[SQLValue]] = names.enumerated().map { i, name in
            [.text("bulk"), .text("job"), .integer(Int64(i)), .text(name), i == 2 ? .null : .real(Double(i) + 0.125)]
        }
        try c.insertMany(table: "tests", columns: ["run_id", "job_id", "attempt", "test_key", "seconds"], rows: rows)
        let back = try c.query("SELECT attempt, test_key, seconds FROM tests WHERE run_id = ? ORDER BY attempt", [.text("bulk")])
        XCTAssertEqual(back.count, names.count)
        for (i, row) in back.enumerated() {
            XCTAssertEqual(row[0].int, i)
            if i == 7 {
                // Text cannot carry a NUL byte through either C API: the name is cut or the byte dropped, never a trap.
                XCTAssertTrue(row[1].string?.hasPrefix("nul") == true, "row 7: \(String(describing: row[1].string))")
            } else {
                XCTAssertEqual(row[1].string, names[i], "row \(i)")
            }
            if i == 2 { XCTAssertNil(row[2].double) } else { XCTAssertEqual(row[2].double, Double(i) + 0.125) }
        }
    }

    static func connection(_ location: HistoryLocation) throws -> any SQLConnection {
        switch location {
        case .sqlite(let path): return try SQLiteConnection(path: path)
        case .postgres(let url): return try PostgresConnection(url: url)
        }
    }
}
