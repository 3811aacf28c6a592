import XCTest
@testable import XCFleetBasics
@testable import XCFleetModel
@testable import XCFleetCore
import XCFleetTestSupport

/// The terminal and junit.xml show the same mapped locations as the other reports.
final class LocationOutputTests: XCTestCase {
    private let map = SourceMap(base: .repository, entries: [
        SourceMapEntry(path: "Tests/CacheContractTests/MemoryKeyTests.swift", origin: .template("Templates/cache-contract/MemoryKeyTests.swift")),
        SourceMapEntry(path: "Sources/CacheContract/MemoryKey.swift", origin: .core("Sources/CacheContract/MemoryKey.swift")),
    ])
    private let job = "/tmp/xcfleet-local/jobs/cache-gate-89ca937b"

    private func events() -> [RunEvent] {
        let ref = AttemptRef(jobID: "cache-gate", attempt: 1)
        let id = TestIdentifier(suite: "CacheContractTests.MemoryKeyTests", name: "testC1_x")
        let bodies: [RunEvent.Body] = [
            .runStarted(RunStarted(runID: "r", planName: "p", planPath: "p.json", startedAt: "", xcfleetVersion: "0",
                                   suites: [SuiteSpec(name: "cache-gate", template: "cache-contract")], hosts: ["local"])),
            .jobPlanned(JobPlanned(jobID: "cache-gate", suite: "cache-gate", kind: .gate, expectedTests: ["MemoryKeyTests/testC1_x"])),
            .sourceMap(jobID: "cache-gate", map: map),
            .attemptStarted(ref, host: "local", slot: 0),
            .hostPaths(ref, prefixes: [job]),
            .test(ref, event: .testStarted(id, framework: .xctest)),
            .test(ref, event: .testFailure(id, file: "\(job)/Tests/CacheContractTests/MemoryKeyTests.swift", line: 72, message: "account differs")),
            .test(ref, event: .testFinished(id, status: .failed, seconds: 0, framework: .xctest, clone: nil)),
            .test(ref, event: .buildError(file: "\(job)/Sources/CacheContract/MemoryKey.swift", line: 30, message: "warning treated as error")),
            .test(ref, event: .crash(message: "CacheContract/MemoryKey.swift:31: Fatal error: boom")),
            .attemptEnded(ref, AttemptEnded(termination: .exited(1))),
            .runFinished(interrupted: false),
        ]
        return bodies.enumerated().map { RunEvent(seq: $0.offset + 1, t: 0, body: $0.element) }
    }

    func testTheTerminalShowsRepositoryPaths() {
        var narrator = ProgressNarrator(verbosity: .normal, live: false)
        let text = events().flatMap { narrator.lines(for: $0) }.map(\.text).joined(separator: "\n")
        XCTAssertTrue(text.contains("cache-gate   Templates/cache-contract/MemoryKeyTests.swift:72: account differs"), text)
        XCTAssertTrue(text.contains("cache-gate build error: Sources/CacheContract/MemoryKey.swift:30: warning treated as error"), text)
        XCTAssertTrue(text.contains("cache-gate crash: Sources/CacheContract/MemoryKey.swift:31: Fatal error: boom"), text)
        XCTAssertFalse(text.contains(job), text)
    }

    func testJUnitCarriesTheLocationInTheFailureTextOnly() {
        let xml = JUnitReportRenderer().xml(Collator().collate(events()))
        XCTAssertTrue(xml.contains(">Templates/cache-contract/MemoryKeyTests.swift:72: account differs</failure>"), xml)
        XCTAssertTrue(xml.contains("build error: Sources/CacheContract/MemoryKey.swift:30: warning treated as error"), xml)
        XCTAssertFalse(xml.contains(job), xml)
        XCTAssertFalse(xml.contains(" file=\""), "no file attribute: junit-10.xsd does not allow one on testcase")
    }
}
