import Foundation
import XCTest
@testable import XCFleetKit

/// Fixture locations and compact event descriptions shared by the OutputParser tests.
package enum ParserFixtures {
    /// The package root: the folder holding `Package.swift` above this file.
    package static let packageRoot: URL = TestPaths.packageRoot

    /// Self-written fixtures inside the repository.
    package static let repoLogs = TestPaths.fixtures.appendingPathComponent("logs")

    /// The recorded logs: `../shared/fixtures/logs` from the package root; from a worktree
    /// nested one level deeper (`wt/<name>`), the same folder two levels up.
    package static func sharedLogs() throws -> URL {
        for up in ["../shared", "../../shared"] {
            let dir = packageRoot.appendingPathComponent(up).appendingPathComponent("fixtures/logs").standardizedFileURL
            if FileManager.default.fileExists(atPath: dir.path) { return dir }
        }
        throw XCTSkip("recorded logs not found: expected ../shared/fixtures/logs next to the package root (\(packageRoot.path))")
    }

    package static func data(_ url: URL) throws -> Data {
        guard let data = FileManager.default.contents(atPath: url.path) else {
            throw XCTSkip("cannot read \(url.path)")
        }
        return data
    }

    package static func repoLog(_ name: String) throws -> Data {
        let url = repoLogs.appendingPathComponent(name)
        guard let data = FileManager.default.contents(atPath: url.path) else {
            XCTFail("repository fixture missing: \(url.path)")
            return Data()
        }
        return data
    }

    package static func repoLogNames() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: repoLogs.path).filter { $0.hasSuffix(".txt") }.sorted()
    }
}

/// Test results counted from `.testFinished` events, per framework.
package struct ResultCounts: Equatable, CustomStringConvertible {
    package var passed = 0
    package var failed = 0
    package var skipped = 0

    package init(passed: Int = 0, failed: Int = 0, skipped: Int = 0) {
        self.passed = passed
        self.failed = failed
        self.skipped = skipped
    }

    package init(_ events: [TestEvent], framework: TestFramework) {
        for case let .testFinished(_, status, _, fw, _) in events where fw == framework {
            switch status {
            case .passed: passed += 1
            case .failed: failed += 1
            case .skipped: skipped += 1
            }
        }
    }

    package var description: String { "\(passed) passed / \(failed) failed / \(skipped) skipped" }
}

/// One short line per event, so expected streams read like the logs they come from.
package func compact(_ event: TestEvent) -> String {
    func secs(_ s: Double?) -> String { s.map { " \($0)s" } ?? "" }
    func id(_ i: TestIdentifier?) -> String { i.map { $0.suite.isEmpty ? $0.name : "\($0.suite)|\($0.name)" } ?? "-" }
    switch event {
    case let .suiteStarted(name):
        return "suite+ \(name)"
    case let .suiteFinished(name, passed):
        return "suite- \(name) \(passed ? "passed" : "failed")"
    case let .testStarted(i, fw):
        return "start \(fw.rawValue) \(id(i))"
    case let .testFinished(i, status, seconds, fw, clone):
        return "end \(fw.rawValue) \(id(i)) \(status.rawValue)\(secs(seconds))\(clone.map { " on \($0)" } ?? "")"
    case let .testFailure(i, file, line, message):
        return "fail \(id(i)) \(file ?? "-"):\(line.map(String.init) ?? "-") \(message)"
    case let .testSkipped(i, reason):
        return "skip \(id(i)) \(reason ?? "-")"
    case let .xctestSummary(executed, skipped, failures, unexpected, seconds):
        return "xctest-summary \(executed)/\(skipped)/\(failures)/\(unexpected)\(secs(seconds))"
    case let .swiftTestingSummary(tests, suites, passed, issues, seconds):
        return "st-summary \(tests) in \(suites.map(String.init) ?? "-") \(passed ? "passed" : "failed") issues \(issues.map(String.init) ?? "-")\(secs(seconds))"
    case let .crash(message):
        return "crash \(message)"
    case let .buildError(file, line, message):
        return "build-error \(file ?? "-"):\(line.map(String.init) ?? "-") \(message)"
    case let .metric(m):
        let labels = m.labels.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        return "metric \(m.name)=\(m.value) \(m.unit)\(labels.isEmpty ? "" : " " + labels)"
    case let .runnerStatement(failed, message):
        return "runner \(failed ? "failed" : "succeeded") \(message)"
    case let .failingTestListed(i):
        return "listed-failing \(id(i))"
    case let .unreadableResult(line, text):
        return "unreadable \(line) \(text)"
    case let .witnessDisagreement(text):
        return "disagree \(text)"
    case let .backtraceFrame(index, symbol, file, line):
        return "frame \(index) \(symbol) \(file):\(line)"
    case let .attachmentRecorded(i, name):
        return "attached \(id(i)) \(name)"
    }
}

/// Feeds `data` through one parser in the chunk sizes `sizes` yields (cycled), then finishes.
package func parseChunked(_ data: Data, sizes: () -> Int) -> [TestEvent] {
    let bytes = [UInt8](data)
    var parser = OutputParser()
    var events: [TestEvent] = []
    var offset = 0
    while offset < bytes.count {
        let end = min(bytes.count, offset + max(1, sizes()))
        events += parser.consume(bytes[offset..<end])
        offset = end
    }
    events += parser.finish()
    return events
}

