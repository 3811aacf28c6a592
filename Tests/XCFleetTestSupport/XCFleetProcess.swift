import Foundation
import XCTest
import XCFleetKit

/// The real `xcfleet` binary running `run PLAN --fleet FILE` in the background, watched from a
/// test: its events as they are appended, its exit status, its report, and samples of its memory
/// and thread count from `/proc`. Every wait has a deadline; `deinit` kills a process still running.
package final class XCFleetProcess: @unchecked Sendable {
    package let runDirectory: URL
    package let outputFile: URL
    private let process = Process()
    private let lock = NSLock()
    private var peakRSSKiB = 0
    private var peakThreadsSeen = 0

    package static var binary: URL {
        let dir = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for c in [dir.appendingPathComponent("xcfleet"), dir.deletingLastPathComponent().appendingPathComponent("xcfleet")]
        where FileManager.default.isExecutableFile(atPath: c.path) { return c }
        return TestHosts.packageRoot.appendingPathComponent(".build/debug/xcfleet")
    }

    /// Starts `xcfleet run plan --fleet fleet --runs <workDir>/runs --run-id run --quiet`.
    package init(plan: String, fleet: String, workDir: URL, runID: String = "run") throws {
        let runs = workDir.appendingPathComponent("runs")
        runDirectory = runs.appendingPathComponent(runID)
        outputFile = workDir.appendingPathComponent(runID == "run" ? "xcfleet-output.txt" : "xcfleet-output-\(runID).txt")
        _ = FileManager.default.createFile(atPath: outputFile.path, contents: nil)
        let out = try FileHandle(forWritingTo: outputFile)
        process.executableURL = Self.binary
        process.arguments = ["run", plan, "--fleet", fleet, "--runs", runs.path, "--run-id", runID, "--quiet"]
        process.currentDirectoryURL = TestHosts.packageRoot
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = out
        process.standardError = out
        try process.run()
        try? out.close()
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }

    package var pid: Int32 { process.processIdentifier }

    /// The exit status once the process has ended, nil while it runs (never kills it).
    package var exitStatusIfEnded: Int32? { process.isRunning ? nil : process.terminationStatus }
    package var output: String { (try? String(contentsOf: outputFile, encoding: .utf8)) ?? "" }

    /// Every complete event line written so far (a partly written last line is skipped).
    package func events() -> [RunEvent] {
        guard let data = FileManager.default.contents(atPath: runDirectory.appendingPathComponent("events.jsonl").path) else { return [] }
        let decoder = JSONDecoder()
        return data.split(separator: UInt8(ascii: "\n")).compactMap { try? decoder.decode(RunEvent.self, from: Data($0)) }
    }

    /// Polls the events (every 50 ms, sampling /proc meanwhile) until `condition` holds; nil after `timeout` seconds.
    package func waitForEvents(timeout: Double, _ condition: ([RunEvent]) -> Bool) -> [RunEvent]? {
        let end = Date().addingTimeInterval(timeout)
        while Date() < end {
            sample()
            let events = self.events()
            if condition(events) { return events }
            if !process.isRunning { return condition(self.events()) ? self.events() : nil }
            Thread.sleep(forTimeInterval: 0.05)
        }
        return nil
    }

    /// Waits for the exit (sampling /proc every 50 ms); on timeout kills the process and returns nil.
    package func waitForExit(timeout: Double) -> Int32? {
        let end = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < end {
            sample()
            Thread.sleep(forTimeInterval: 0.05)
        }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            let hard = Date().addingTimeInterval(5)
            while process.isRunning && Date() < hard { Thread.sleep(forTimeInterval: 0.05) }
            return nil
        }
        return process.terminationStatus
    }

    package func report() throws -> RunReport {
        let data = try Data(contentsOf: runDirectory.appendingPathComponent("report.json"))
        return try JSONDecoder().decode(RunReport.self, from: data)
    }

    /// Peak resident set (VmHWM, KiB) and most threads seen while sampling.
    package var peaks: (rssKiB: Int, threads: Int) {
        lock.lock(); defer { lock.unlock() }
        return (peakRSSKiB, peakThreadsSeen)
    }

    /// Reads VmHWM and Threads from /proc/<pid>/status.
    package func sample() {
        guard process.isRunning,
              let text = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8) else { return }
        var hwm = 0, threads = 0
        for line in text.split(separator: "\n") {
            let parts = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard parts.count >= 2 else { continue }
            if parts[0] == "VmHWM:" { hwm = Int(parts[1]) ?? 0 }
            if parts[0] == "Threads:" { threads = Int(parts[1]) ?? 0 }
        }
        lock.lock()
        peakRSSKiB = max(peakRSSKiB, hwm)
        peakThreadsSeen = max(peakThreadsSeen, threads)
        lock.unlock()
    }
}

/// Queries over a run's events, for assertions.
extension Array where Element == RunEvent {
    package func attemptsStarted() -> [(ref: AttemptRef, host: String, t: Double)] {
        compactMap { e in
            if case let .attemptStarted(ref, host, _) = e.body { return (ref, host, e.t) }
            return nil
        }
    }

    package func attemptEnded(_ ref: AttemptRef) -> (ended: AttemptEnded, t: Double)? {
        for e in self { if case let .attemptEnded(r, ended) = e.body, r == ref { return (ended, e.t) } }
        return nil
    }

    /// Tests that finished in attempt `ref`.
    package func testsFinished(_ ref: AttemptRef) -> Int {
        filter { e in
            if case let .test(r, event) = e.body, r == ref, case .testFinished = event { return true }
            return false
        }.count
    }

    package func setAside() -> [String: String] {
        var out: [String: String] = [:]
        for e in self { if case let .hostSetAside(host, reason) = e.body { out[host] = reason } }
        return out
    }

    package var lastT: Double { map(\.t).max() ?? 0 }
}
