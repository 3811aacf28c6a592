import Foundation
import XCTest
@testable import XCFleetKit

/// Small run directories written through the real `EventLog` (made by hand here: one gate suite,
/// one job, attempts with the given outcomes per test), for the history tests.
package enum HistoryFixtures {
    package struct Test {
        package var name: String            // `Class/test`
        package var statuses: [TestStatus]  // one per attempt
        package var seconds: Double

        package init(name: String, statuses: [TestStatus], seconds: Double) {
            self.name = name
            self.statuses = statuses
            self.seconds = seconds
        }
    }

    @discardableResult
    package static func writeRun(in runs: URL, runID: String, startedAt: Date, plan: String = "plan", suite: String = "gate",
                         host: String = "mac-1", contentHash: String = "hash-1", tests: [Test],
                         metric: Double? = nil, infraErrorFirst: Bool = false,
                         hostClass: String? = nil, build: BuildOrigin? = nil, buildSeconds: Double = 1,
                         buildKey: String? = nil, product: String? = nil) throws -> URL {
        let dir = runs.appendingPathComponent(runID)
        let log = try EventLog(directory: dir)
        let iso = ISO8601DateFormatter()
        iso.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let spec = SuiteSpec(name: suite, template: "cache-contract", kind: .gate, retries: RetryPolicy(infrastructure: 2, testFailures: 2))
        log.append(.runStarted(RunStarted(runID: runID, planName: plan, planPath: "Plans/\(plan).json", startedAt: iso.string(from: startedAt),
                                          xcfleetVersion: XCFleet.version, suites: [spec], hosts: [host])))
        log.append(.jobPlanned(JobPlanned(jobID: suite, suite: suite, kind: .gate, expectedTests: tests.map(\.name), contentHash: contentHash)))
        if let hostClass { log.append(.hostAdmitted(HostProfile(host: host, hostClass: hostClass, label: "class \(hostClass)"))) }
        var attempt = 1
        if infraErrorFirst {
            let ref = AttemptRef(jobID: suite, attempt: attempt)
            log.append(.attemptStarted(ref, host: host, slot: 0))
            log.append(.attemptEnded(ref, AttemptEnded(infraError: "\(host): connection lost (dead peer)")))
            attempt += 1
        }
        let attempts = tests.map(\.statuses.count).max() ?? 1
        for a in 0..<attempts {
            let ref = AttemptRef(jobID: suite, attempt: attempt)
            attempt += 1
            log.append(.attemptStarted(ref, host: host, slot: 0))
            for phase in [Phase.connect, .push, .build, .test] {
                log.append(.phaseStarted(ref, phase: phase))
                log.append(.phaseFinished(ref, phase: phase))
            }
            if let build {
                log.append(.build(ref, BuildRecord(host: host, key: buildKey ?? "key-\(contentHash)", origin: build, seconds: buildSeconds,
                                                   waitedSeconds: 0, product: product)))
            }
            var failed = false
            for t in tests where a < t.statuses.count {
                let parts = t.name.split(separator: "/", maxSplits: 1).map(String.init)
                let id = TestIdentifier(suite: parts[0], name: parts.count > 1 ? parts[1] : "")
                log.append(.test(ref, event: .testStarted(id, framework: .xctest)))
                if t.statuses[a] == .failed {
                    failed = true
                    log.append(.test(ref, event: .testFailure(id, file: "T.swift", line: 1, message: "boom")))
                }
                log.append(.test(ref, event: .testFinished(id, status: t.statuses[a], seconds: t.seconds, framework: .xctest, clone: nil)))
            }
            if let metric { log.append(.test(ref, event: .metric(Metric(name: "hit_ns", value: metric, unit: "ns")))) }
            log.append(.attemptEnded(ref, AttemptEnded(termination: .exited(failed ? 1 : 0))))
        }
        log.append(.runFinished(interrupted: false))
        return dir
    }

    package static let day: Double = 86_400
}

/// A PostgreSQL server for the store tests: `XCFLEET_TEST_PG_URL`, or one started by
/// `scripts/testpg.sh` for this test process (stopped when it exits). Each test gets its own database.
package enum TestPostgres {
    private static let directory = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("xcfleet-testpg-\(getpid())")
    nonisolated(unsafe) private static var stopPath = ""

    /// Starts the server (call from a synchronous class `setUp`: `Process` is run to its end there).
    package static func prepare() { _ = base }

    private static let base: Result<String, TestPostgresError> = {
        if let url = ProcessInfo.processInfo.environment["XCFLEET_TEST_PG_URL"], !url.isEmpty { return .success(url) }
        let script = TestPaths.packageRoot.appendingPathComponent("scripts/testpg.sh")
        guard (try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql"))?.isEmpty == false else {
            return .failure(TestPostgresError(message: "no PostgreSQL server installed (apt-get install postgresql, or set XCFLEET_TEST_PG_URL)"))
        }
        guard let result = try? runCommand(URL(fileURLWithPath: "/bin/bash"), [script.path, "start", directory.path]), result.status == 0 else {
            return .failure(TestPostgresError(message: "scripts/testpg.sh could not start a server in \(directory.path)"))
        }
        stopPath = directory.path
        atexit {
            _ = try? runCommand(URL(fileURLWithPath: "/bin/bash"), [TestPaths.packageRoot.appendingPathComponent("scripts/testpg.sh").path, "stop", TestPostgres.stopPath])
            try? FileManager.default.removeItem(atPath: TestPostgres.stopPath)
        }
        return .success(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
    }()

    /// A fresh, empty database's URL. Skips (or fails when CI is set) without a server.
    package static func freshDatabase() throws -> String {
        switch base {
        case .failure(let error):
            if ProcessInfo.processInfo.environment["CI"] != nil { XCTFail("PostgreSQL needed in CI: \(error.message)") }
            throw XCTSkip("PostgreSQL backend not tested: \(error.message)")
        case .success(let url):
            let name = "t_" + UUID().uuidString.prefix(12).lowercased().filter { $0.isLetter || $0.isNumber }
            let admin = try PostgresConnection(url: url)
            try admin.execute("CREATE DATABASE \(name)")
            admin.close()
            guard let slash = url.range(of: "/", options: .backwards) else { return url }
            return String(url[..<slash.lowerBound]) + "/" + name
        }
    }

    /// The server's address with a wrong password (for the redaction tests).
    package static func baseURL() throws -> String {
        switch base {
        case .failure(let error): throw XCTSkip("PostgreSQL backend not tested: \(error.message)")
        case .success(let url): return url
        }
    }
}

package struct TestPostgresError: Error {
    package var message: String
    package init(message: String) { self.message = message }
}

/// Runs a command on its own thread (async tests must not wait for a `Process` on the pool).
package func runCommandOffPool(_ executable: URL, _ args: [String]) async throws -> CommandResult {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread {
            do { continuation.resume(returning: try runCommand(executable, args)) } catch { continuation.resume(throwing: error) }
        }
    }
}
