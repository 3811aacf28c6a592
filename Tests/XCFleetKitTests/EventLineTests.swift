import Foundation
import XCTest
@testable import XCFleetKit
import XCFleetTestSupport

/// `EventLog.decode` reads the usual test events with `EventLine` and every other line with
/// `JSONDecoder`: what it returns (or the error, with its line number) is what `JSONDecoder` alone
/// returns for the same bytes, on every kind of event and on lines of any other form.
final class EventLineTests: XCTestCase {
    /// The reading before `EventLine`: `JSONDecoder` on every line.
    static func jsonDecoderOnly(_ data: Data, path: String) throws -> [RunEvent] {
        let decoder = JSONDecoder()
        var events: [RunEvent] = []
        let lines = data.split(separator: 0x0A, omittingEmptySubsequences: false)
        for (index, line) in lines.enumerated() where !line.isEmpty {
            do {
                events.append(try decoder.decode(RunEvent.self, from: Data(line)))
            } catch {
                let isLast = index >= lines.count - 2 && data.last != 0x0A
                if isLast { break }
                throw EventLogError.badLine(path, index + 1)
            }
        }
        return events
    }

    /// Both readings of `data`: the same events, or the same error text.
    func assertSameReading(_ data: Data, _ what: String, file: StaticString = #filePath, line: UInt = #line) {
        let expected = Result { try Self.jsonDecoderOnly(data, path: "events.jsonl") }
        let actual = Result { try EventLog.decode(data, path: "events.jsonl") }
        switch (expected, actual) {
        case (.success(let e), .success(let a)):
            XCTAssertEqual(a, e, what, file: file, line: line)
        case (.failure(let e), .failure(let a)):
            XCTAssertEqual("\(a)", "\(e)", what, file: file, line: line)
        default:
            XCTFail("\(what): JSONDecoder gives \(expected), EventLog.decode \(actual)", file: file, line: line)
        }
    }

    /// Every kind written by a real `EventLog` (its encoder, its redaction), read back.
    func written(_ bodies: [RunEvent.Body]) throws -> Data {
        let dir = try TestPaths.temporaryDirectory("eventline")
        let log = try EventLog(directory: dir)
        for b in bodies { log.append(b) }
        return try Data(contentsOf: log.url)
    }

    static let ids = [
        TestIdentifier(suite: "BenchTests.Class0", name: "test0_behaviour_C1"),
        TestIdentifier(suite: "", name: "overwrite()"),
        TestIdentifier(suite: "Module.Suite/Nested", name: "Loader miss path"),
        TestIdentifier(suite: "Ünïcödé.Klasse", name: "testÄrger_日本"),
        TestIdentifier(suite: "Q\"uote", name: "back\\slash"),
        TestIdentifier(suite: "Tab\tLine\nBreak", name: "ctl\u{1}\u{7F}"),
        TestIdentifier(suite: "Slash/Path", name: "emoji 🧪 e\u{301}"),
    ]

    static var testEvents: [TestEvent] {
        var events: [TestEvent] = []
        for id in ids {
            for framework in [TestFramework.xctest, .swiftTesting] {
                events.append(.testStarted(id, framework: framework))
                for status in TestStatus.allCases {
                    for seconds in [nil, 0, 0.001, 12.5, 1e-05, 123456.789, 3e21] as [Double?] {
                        for clone in [nil, "Clone 1 of iPhone 16 - App (4101)", "\"q\""] as [String?] {
                            events.append(.testFinished(id, status: status, seconds: seconds, framework: framework, clone: clone))
                        }
                    }
                }
            }
            events.append(.suiteStarted(name: id.suite))
            events.append(.suiteFinished(name: id.suite, passed: true))
            events.append(.suiteFinished(name: id.name, passed: false))
            events.append(.testFailure(id, file: "/a/b.swift", line: 3, message: "XCTAssertEqual failed: \(id.name)"))
            events.append(.testFailure(nil, file: nil, line: nil, message: "loose"))
            events.append(.testSkipped(id, reason: "why"))
            events.append(.testSkipped(nil, reason: nil))
            events.append(.failingTestListed(id))
            events.append(.attachmentRecorded(id, name: "shot.png"))
        }
        events += [
            .xctestSummary(executed: 50, skipped: 1, failures: 2, unexpected: 0, seconds: 0.05),
            .xctestSummary(executed: 1, skipped: 0, failures: 0, unexpected: 0, seconds: nil),
            .swiftTestingSummary(tests: 3, suites: 1, passed: false, issues: 2, seconds: 0.4),
            .swiftTestingSummary(tests: 3, suites: nil, passed: true, issues: nil, seconds: nil),
            .crash(message: "Fatal error: boom"),
            .buildError(file: "/x.swift", line: 2, message: "error: no"),
            .buildError(file: nil, line: nil, message: "error: linker"),
            .metric(Metric(name: "get", value: 1.5, unit: "ms", labels: ["size": "4096", "rep": "2"])),
            .runnerStatement(failed: true, message: "** TEST FAILED **"),
            .runnerStatement(failed: false, message: "** TEST SUCCEEDED **"),
            .unreadableResult(line: 12, text: "Test Case '-[A b]' pas"),
            .witnessDisagreement("the bundle says passed"),
            .backtraceFrame(index: 3, symbol: "main", file: "/a/main.swift", line: 9),
            .attachmentRecorded(nil, name: "x"),
        ]
        return events
    }

    static var bodies: [RunEvent.Body] {
        let ref = AttemptRef(jobID: "cache-gate#shard1", attempt: 2)
        var bodies: [RunEvent.Body] = [
            .runStarted(RunStarted(runID: "r", planName: "p", planPath: "p.json", startedAt: "2026-12-01T10:00:00Z", xcfleetVersion: XCFleet.version,
                                   suites: [SuiteSpec(name: "log", template: "parsed")], hosts: ["a", "b"])),
            .jobPlanned(JobPlanned(jobID: "log", suite: "log", kind: .gate, expectedTests: ["A/b"], contentHash: "abc")),
            .jobPlanned(JobPlanned(jobID: "m", suite: "log", kind: .gate, mutant: "key-x", mutantFault: "drops the key", expectedTests: [])),
            .attemptStarted(ref, host: "a", slot: 1),
            .phaseStarted(ref, phase: .build),
            .phaseFinished(ref, phase: .build),
            .attemptEnded(ref, AttemptEnded(termination: .exited(65))),
            .attemptEnded(ref, AttemptEnded(termination: .timedOut("silence"), infraError: "lost", timedOutPhase: .test)),
            .attemptEnded(ref, AttemptEnded()),
            .jobUnschedulable(jobID: "j", reason: "needs combine"),
            .hostSetAside(host: "a", reason: "toolchain"),
            .hostProbation(host: "a", reason: "connection lost"),
            .hostRejoined(host: "a"),
            .note("a note with \"quotes\" and / slashes"),
            .build(ref, BuildRecord(host: "a", key: "k", origin: .cold, seconds: 12.25, waitedSeconds: 0, product: "App")),
            .push(ref, PushRecord(host: "a", bytesSent: 12_345, filesSent: 5, totalFiles: 2_000, totalBytes: 8_000_000)),
            .sourceMap(jobID: "log", map: SourceMap(base: .repository, entries: [])),
            .hostPaths(ref, prefixes: ["/work/job", "/work/build"]),
            .hostAdmitted(HostProfile(host: "a", hostClass: "m2", label: "class m2")),
            .hostProvisioned(host: "a", seconds: 4.5),
            .quarantine([QuarantineEntry(suite: "log", test: "A/b", reason: "races", owner: "ana", expires: "2099-12-31")]),
            .testsDiscovered(ref, TestsDiscovered(tests: ["T.C/testA", "T.S/c()"], selected: ["T.C/testA"])),
            .attachments(ref, AttachmentsCollected(files: [AttachmentFile(name: "a.png", path: "attachments/x/a.png", bytes: 10, kind: .image)],
                                                   leftOut: [AttachmentLeftOut(name: "huge.bin", bytes: 30 << 20, reason: "over the cap")])),
        ]
        for e in testEvents { bodies.append(.test(ref, event: e)) }
        bodies.append(.test(AttemptRef(jobID: "", attempt: 0), event: .testStarted(ids[0], framework: .xctest)))
        bodies.append(.runFinished(interrupted: true))
        return bodies
    }

    func testEveryKindReadsAsJSONDecoderReadsIt() throws {
        let data = try written(Self.bodies)
        let events = try EventLog.decode(data, path: "events.jsonl")
        XCTAssertEqual(events, try Self.jsonDecoderOnly(data, path: "events.jsonl"))
        XCTAssertEqual(events.map(\.body), Self.bodies)
        // The usual kinds are the ones read without JSONDecoder (else this compares JSONDecoder with itself).
        var fast = 0
        for line in data.split(separator: 0x0A) {
            let event = Data(line).withUnsafeBytes { EventLine.decode($0) }
            guard let event else { continue }
            fast += 1
            XCTAssertEqual(event, try JSONDecoder().decode(RunEvent.self, from: Data(line)), String(decoding: line, as: UTF8.self))
            guard case .test(_, let e) = event.body else { return XCTFail("read a non-test event: \(event)") }
            switch e {
            case .testStarted, .testFinished, .suiteStarted, .suiteFinished: break
            default: XCTFail("read a kind it does not know: \(e)")
            }
        }
        // Every testStarted/testFinished/suite event of an id without escapes in its strings.
        XCTAssertGreaterThan(fast, 400)
    }

    func testSecondsAndTimesOfAnyMagnitude() throws {
        var generator = SystemRandomNumberGenerator()
        var values: [Double] = [0, 1, 0.1, 0.2, 0.3, 1.0 / 3, 2.0 / 3, 1e-7, 9.999999999999999e22, 1e23, 5e-324, 2.2250738585072014e-308,
                                Double.greatestFiniteMagnitude, Double.leastNormalMagnitude, 4.35, 0.000_123]
        for _ in 0..<3000 {
            let bits = UInt64.random(in: 0...UInt64.max, using: &generator) & 0x7FEF_FFFF_FFFF_FFFF
            values.append(Double(bitPattern: bits))
            values.append(Double.random(in: 0..<1000, using: &generator))
            values.append((Double.random(in: 0..<100, using: &generator) * 1000).rounded() / 1000)
        }
        let id = Self.ids[0]
        var lines: [String] = []
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        for (i, v) in values.enumerated() where v.isFinite {
            let event = RunEvent(seq: i + 1, t: v, body: .test(AttemptRef(jobID: "log", attempt: 1),
                                                                event: .testFinished(id, status: .passed, seconds: v, framework: .xctest, clone: nil)))
            lines.append(String(decoding: try encoder.encode(event), as: UTF8.self))
        }
        let data = Data((lines.joined(separator: "\n") + "\n").utf8)
        let events = try EventLog.decode(data, path: "x")
        XCTAssertEqual(events, try Self.jsonDecoderOnly(data, path: "x"))
        XCTAssertEqual(events.count, lines.count)
        for line in lines.prefix(50) {
            XCTAssertNotNil(Data(line.utf8).withUnsafeBytes { EventLine.decode($0) }, line)
        }
    }

    /// A usual line changed in every way that leaves its form: same events or the same error.
    func testLinesOfAnyOtherForm() throws {
        let usual = #"{"body":{"test":{"_0":{"attempt":1,"jobID":"log"},"event":{"testFinished":{"_0":{"name":"test0","suite":"A.B"},"framework":"xctest","seconds":0.001,"status":"passed"}}}},"seq":8,"t":0.003}"#
        let started = #"{"body":{"test":{"_0":{"attempt":1,"jobID":"log"},"event":{"testStarted":{"_0":{"name":"test0","suite":"A.B"},"framework":"xctest"}}}},"seq":7,"t":0.003}"#
        func replacing(_ a: String, _ b: String) -> String { usual.replacingOccurrences(of: a, with: b) }
        let variants = [
            usual, started,
            " " + usual, usual + " ", usual + "\r", replacing(":", " : "), replacing(",", ", "),
            replacing(#""seq":8"#, #""seq":08"#), replacing(#""seq":8"#, #""seq":-8"#), replacing(#""seq":8"#, #""seq":8.0"#),
            replacing(#""seq":8"#, #""seq":8e0"#), replacing(#""seq":8"#, #""seq":1234567890123456789"#),
            replacing(#""seq":8"#, #""seq":99999999999999999999"#), replacing(#""seq":8"#, #""seq":"8""#),
            replacing(#""t":0.003"#, #""t":3e-3"#), replacing(#""t":0.003"#, #""t":3E-3"#), replacing(#""t":0.003"#, #""t":0.3e+2"#),
            replacing(#""t":0.003"#, #""t":-0.003"#), replacing(#""t":0.003"#, #""t":.003"#), replacing(#""t":0.003"#, #""t":0.003.1"#),
            replacing(#""t":0.003"#, #""t":1e400"#), replacing(#""t":0.003"#, #""t":00.003"#), replacing(#""t":0.003"#, #""t":3."#),
            replacing(#""t":0.003"#, #""t":null"#), replacing(#""t":0.003"#, #""t":0.003,"t":0.004"#),
            replacing(#""seconds":0.001"#, #""seconds":null"#), replacing(#""seconds":0.001,"#, ""),
            replacing(#""name":"test0""#, #""name":"te\"st0""#), replacing(#""name":"test0""#, #""name":"te\u0041st0""#),
            replacing(#""name":"test0""#, #""name":"a\/b""#), replacing(#""name":"test0""#, "\"tab\there\""),
            replacing(#""name":"test0""#, "\"\u{E9}t\u{E9}\""), replacing(#""name":"test0""#, #""name":"test0","extra":1"#),
            replacing(#""name":"test0","suite":"A.B""#, #""suite":"A.B","name":"test0""#),
            replacing(#""status":"passed""#, #""status":"passing""#), replacing(#""framework":"xctest""#, #""framework":"XCTest""#),
            replacing(#""framework":"xctest","#, #""clone":"c","framework":"xctest","#),
            replacing(#""framework":"xctest","#, #""clone":null,"framework":"xctest","#),
            replacing(#""jobID":"log""#, #""jobID":"""#), replacing(#""attempt":1"#, #""attempt":0"#),
            replacing("testFinished", "testStarted"), replacing("testFinished", "suiteStarted"),
            String(usual.dropLast()), String(usual.dropLast(30)), usual + "}", "{}", "[]", "null", "garbage",
        ]
        for v in variants {
            // In the middle of a log (an error names its line), and as its torn last line.
            assertSameReading(Data((started + "\n" + v + "\n" + started + "\n").utf8), "middle: \(v)")
            assertSameReading(Data((started + "\n" + v).utf8), "last: \(v)")
        }
        // Bytes that are not UTF-8 inside a string.
        var bad = Data(started.utf8)
        bad[bad.range(of: Data("test0".utf8))!.lowerBound] = 0xFF
        assertSameReading(bad + Data("\n".utf8) + Data(started.utf8) + Data("\n".utf8), "invalid UTF-8")
    }

    /// A damaged line is an error naming its line number; a torn last line is skipped.
    func testDamagedLinesGiveTheirLineNumber() throws {
        let data = try written([.note("one"), .test(AttemptRef(jobID: "log", attempt: 1), event: .testStarted(Self.ids[0], framework: .xctest)), .note("three")])
        var lines = String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        lines[1] = String(lines[1].dropLast(5))
        let damaged = Data(lines.joined(separator: "\n").utf8)
        XCTAssertThrowsError(try EventLog.decode(damaged, path: "run/events.jsonl")) { error in
            XCTAssertEqual("\(error)", "run/events.jsonl:2: not a valid xcfleet event; the run directory is damaged")
        }
        assertSameReading(damaged, "damaged second line")
        let torn = Data(String(decoding: data, as: UTF8.self).dropLast(9).utf8)
        XCTAssertEqual(try EventLog.decode(torn, path: "x").count, 2)
        assertSameReading(torn, "torn last line")
        assertSameReading(Data(), "empty")
        assertSameReading(Data("\n\n".utf8), "empty lines")
    }
}
