import Foundation
import XCTest
@testable import XCFleetBasics
@testable import XCFleetModel
@testable import XCFleetCore
@testable import XCFleetKit
import XCFleetHostScripts
import XCFleetTestSupport

/// An attempt whose host is fine gets its verdict before its cleanup: the scheduler and the report
/// do not wait for the job directory's removal, but the slot's next attempt and the run's lease
/// release do. Real runs on the built-in local shell with the fake `swift`; only the cleanup's
/// round trip is slowed (`slowCleanup`), so that "before" and "after" are seconds apart.
final class CleanupAfterVerdictTests: XCTestCase {
    /// When each cleanup started and ended (wall clock).
    final class Cleanups: @unchecked Sendable {
        private let lock = NSLock()
        private var spans: [(directory: String, start: Date, end: Date?)] = []
        func started(_ dir: String) { lock.lock(); spans.append((dir, Date(), nil)); lock.unlock() }
        func ended(_ dir: String) {
            lock.lock(); defer { lock.unlock() }
            if let i = spans.lastIndex(where: { $0.directory == dir && $0.end == nil }) { spans[i].end = Date() }
        }
        var all: [(directory: String, start: Date, end: Date?)] { lock.lock(); defer { lock.unlock() }; return spans }
    }

    /// The local shell, with a cleanup that takes `delay` seconds longer (and fails when `fail`).
    static func slowCleanup(delay: Double, fail: Bool, cleanups: Cleanups) -> InterposedShell.FinishAndRemove {
        { inner, directory, finish, release, deadlines, output in
            cleanups.started(directory)
            defer { cleanups.ended(directory) }
            try await Task.sleep(nanoseconds: UInt64(delay * 1e9))
            if fail { throw RemoteShellError(.command, host: inner.host.name, "the job directory could not be removed (test)") }
            return try await inner.finishAndRemoveJobDirectory(directory, finish: finish, release: release, deadlines: deadlines, output: output)
        }
    }

    private func run(delay: Double, fail: Bool = false, historySeconds: Double? = nil) async throws -> (report: RunReport, events: [RunEvent], cleanups: Cleanups,
                                                                           returned: Date, runDirectory: URL, workRoot: String) {
        let base = try TestPaths.temporaryDirectory()
        let swift = try FakeToolchain.install(in: base)
        var host = HostSpec.local
        host.slots = 1 // both jobs on one slot: the second waits for the first one's cleanup
        host.workRoot = base.appendingPathComponent("work").path
        host.toolchain.swiftPath = swift.path
        let plan = try PlanLoader.parse(Data(#"{"name": "p", "suites": [{"name": "a", "template": "cache-contract"}, {"name": "b", "template": "cache-contract"}]}"#.utf8),
                                        path: "p.json", knownTemplates: ["cache-contract"])
        var config = RunConfiguration(plan: plan, fleet: Fleet(hosts: [host]), root: TemplateRoot(url: TestPaths.packageRoot),
                                      runsDirectory: base.appendingPathComponent("runs"))
        if let historySeconds {
            // A history that answers slowly (and with nothing): the teardown logs while it is asked.
            config.historyContext = { _ in
                try? await Task.sleep(nanoseconds: UInt64(historySeconds * 1e9))
                return nil
            }
        }
        let cleanups = Cleanups()
        let runner = try Runner(config: config, shellFactory: { spec, _ in
            InterposedShell(LocalShell(host: spec), finishAndRemove: Self.slowCleanup(delay: delay, fail: fail, cleanups: cleanups))
        })
        let report = try await runner.run()
        let returned = Date()
        let events = try EventLog.read(runner.runDirectory.appendingPathComponent("events.jsonl"))
        return (report, events, cleanups, returned, runner.runDirectory, host.workRoot)
    }

    /// An event's wall-clock time: the run's start (`runStarted.startedAt`) plus its offset from it.
    private func wallClock(_ events: [RunEvent]) throws -> (RunEvent) -> Date {
        let started = try XCTUnwrap(events.first { if case .runStarted = $0.body { return true }; return false })
        guard case .runStarted(let s) = started.body else { throw XCTSkip("no runStarted") }
        let iso = ISO8601DateFormatter()
        iso.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let origin = try XCTUnwrap(iso.date(from: s.startedAt)).addingTimeInterval(-started.t)
        return { origin.addingTimeInterval($0.t) }
    }

    func testTheVerdictComesBeforeTheCleanupAndTheSlotAndTheLeaseWaitForIt() async throws {
        let r = try await run(delay: 1.5)
        XCTAssertEqual(r.report.exitCode, 0, r.report.verdictLine + " " + r.report.notes.joined(separator: " | "))
        let wall = try wallClock(r.events)
        let ended = r.events.filter { if case .attemptEnded = $0.body { return true }; return false }
        let started = r.events.filter { if case .attemptStarted = $0.body { return true }; return false }
        let finished = try XCTUnwrap(r.events.first { if case .runFinished = $0.body { return true }; return false })
        let spans = r.cleanups.all
        XCTAssertEqual(ended.count, 2)
        XCTAssertEqual(spans.count, 2, "each attempt cleaned up once")
        let ends = spans.compactMap(\.end)
        XCTAssertEqual(ends.count, 2, "every cleanup ended before the run returned")
        // Each attempt's verdict was logged while its cleanup still ran (1.5 s of it).
        for (verdict, span) in zip(ended, spans) {
            XCTAssertLessThan(wall(verdict), span.start.addingTimeInterval(0.2), "the verdict does not wait for the cleanup")
        }
        XCTAssertLessThan(wall(finished), ends[1].addingTimeInterval(-1.0), "the run's verdict comes before its last cleanup ended")
        // The slot's next attempt starts only once the first one's job directory is gone.
        XCTAssertGreaterThanOrEqual(wall(started[1]), ends[0].addingTimeInterval(-0.05), "one slot: the second attempt waited for the first cleanup")
        // The run returned after the cleanups and the lease release: nothing is left on the host.
        XCTAssertGreaterThanOrEqual(r.returned, ends[1])
        let jobs = try FileManager.default.contentsOfDirectory(atPath: r.workRoot + "/jobs")
        XCTAssertEqual(jobs, [], "no job directory left")
        let leases = r.workRoot + "/" + HostLeaseScript.directoryName
        let held = ((try? FileManager.default.contentsOfDirectory(atPath: leases)) ?? []).filter { $0.hasPrefix("slot-") }
        XCTAssertEqual(held, [], "the slot lease was released")
        // No cleanup phase is logged for them (it is no longer on the run's path), and the report
        // on disk is the one events.jsonl rebuilds.
        XCTAssertFalse(r.events.contains { if case .phaseStarted(_, .cleanup) = $0.body { return true }; return false })
        try assertReportIsTheRebuild(r.runDirectory)
    }

    /// A cleanup that fails after the verdict is not lost: its note is logged after the run
    /// finished, and the reports are written again with it (as `report RUN_DIR` rebuilds them).
    /// Both orders: the failure logged after the report was written, and while the history was
    /// still being asked (after the report was collated, before it was written).
    func testACleanupThatFailsAfterTheVerdictStillReachesTheReport() async throws {
        for (delay, history) in [(0.5, nil), (0.3, 2.0)] as [(Double, Double?)] {
            let r = try await run(delay: delay, fail: true, historySeconds: history)
            let name = "cleanup \(delay) s, history \(history.map { "\($0) s" } ?? "none")"
            XCTAssertEqual(r.report.exitCode, 0, "\(name): a cleanup failure does not change the tests' verdict")
            let failures = r.report.notes.filter { $0.contains("cleanup on local failed") && $0.contains("could not be removed (test)") }
            XCTAssertEqual(failures.count, 2, name + ": " + r.report.notes.joined(separator: " | "))
            let json = try String(contentsOf: r.runDirectory.appendingPathComponent("report.json"), encoding: .utf8)
            XCTAssertTrue(json.contains("could not be removed (test)"), "\(name): report.json was written again with the late notes")
            try assertReportIsTheRebuild(r.runDirectory)
        }
    }

    private func assertReportIsTheRebuild(_ runDirectory: URL, file: StaticString = #filePath, line: UInt = #line) throws {
        let events = try EventLog.read(runDirectory.appendingPathComponent("events.jsonl"))
        let mutants = try MutantSpec.all(in: TemplateRoot(url: TestPaths.packageRoot))
        let rebuilt = Collator(mutantFaults: Dictionary(mutants.map { ($0.id, $0.fault) }, uniquingKeysWith: { a, _ in a })).collate(events)
        let other = try TestPaths.temporaryDirectory()
        try ReportWriter.writeAll(rebuilt, to: other)
        for name in ["report.json", "summary.md", "junit.xml"] {
            let a = try Data(contentsOf: runDirectory.appendingPathComponent(name)), b = try Data(contentsOf: other.appendingPathComponent(name))
            XCTAssertEqual(a, b, "\(name) is what events.jsonl rebuilds", file: file, line: line)
        }
    }
}
