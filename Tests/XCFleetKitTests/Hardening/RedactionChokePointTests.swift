import Foundation
import XCTest
@testable import XCFleetKit
import XCFleetTestSupport

/// Every path into events.jsonl, raw logs and reports is redacted in
/// one place (`EventLog.append` for events, the attempt's stream redactor for raw logs), and
/// plan parameters can be secret.
final class RedactionChokePointTests: XCTestCase {
    static let messageSecret = "hunter2-bundle-SECRET"
    static let nameSecret = "tokQ9zX8wV7"

    /// Every file under `dir`, as text.
    func allText(_ dir: URL) throws -> [(String, String)] {
        let e = FileManager.default.enumerator(at: dir, includingPropertiesForKeys: nil)!
        var out: [(String, String)] = []
        for case let url as URL in e where !url.hasDirectoryPath {
            if let d = FileManager.default.contents(atPath: url.path) { out.append((url.lastPathComponent, String(decoding: d, as: UTF8.self))) }
        }
        return out
    }

    /// An Xcode (macOS destination) attempt whose result bundle carries a secret in a failure
    /// message and in a test name that only the bundle has (so the reconciler's disagreement note
    /// names it): neither reaches events.jsonl or the raw log.
    func testXcodeFlowEventsAndDisagreementNotesAreRedactedInEventsJSONL() async throws {
        let dir = "/Users/ci/xcfleet/jobs/cache-contract-1a2b"
        let bundleJSON = try XcodeFixtures.text("xcresult-test-results.json")
            .replacingOccurrences(of: "stale", with: Self.messageSecret)
            .replacingOccurrences(of: "keyEquality", with: Self.nameSecret)
        XCTAssertTrue(bundleJSON.contains(Self.messageSecret) && bundleJSON.contains(Self.nameSecret))
        let shell = ScriptedShell(host: HostSpec(name: "mac-1", address: "10.0.0.5", user: "ci", labels: ["platform:macos"], slots: 1), script: [
            // The discover step's enumeration (its file is provided below).
            ("*-enumerate-tests", ScriptedShell.Reply()),
            ("xcodebuild -version", ScriptedShell.Reply(stdout: XcodeFixtures.versionOutput("16.4", "16F6"))),
            ("xcodebuild -list -json", ScriptedShell.Reply(stdout: "{\"workspace\":{\"name\":\"xcfleet-cache-contract\",\"schemes\":[\"CacheContract\"]}}")),
            ("xcodebuild build-for-testing", ScriptedShell.Reply()),
            // The host build cache's script (it runs build-for-testing on the host): a finished build.
            ("sh -c ", ScriptedShell.Reply(stdout: "XCFLEET-BUILD origin cold\n")),
            ("ls -1t ", ScriptedShell.Reply(stdout: "CacheContract_macosx15.5-arm64.xctestrun\n")),
            ("xcodebuild test", ScriptedShell.Reply(stdout: XcodebuildJobTests.streamedRun + "printed \(Self.messageSecret)\n", termination: .exited(65), chunkSize: 5)),
            ("xcrun xcresulttool get test-results", ScriptedShell.Reply(stdout: bundleJSON, chunkSize: 500)),
        ])
        shell.provide(XcodebuildJob.enumerationName, Data(XcodebuildJobTests.enumeration.utf8))
        let manifest = SuiteManifest(suite: "cache-contract", template: "cache-contract", testTarget: "CacheContractTests", mutant: nil)
        let spec = SuiteSpec(name: "cache-contract", template: "cache-contract", destination: "platform=macOS")
        let job = PlannedJob(planned: JobPlanned(jobID: "cache-contract", suite: spec.name, kind: .gate, expectedTests: []),
                             spec: spec, workspace: Workspace(files: [WorkspaceFile(path: "xcfleet-manifest.json", contents: try JSONEncoder().encode(manifest))]), requires: [])
        let runDir = try TestPaths.temporaryDirectory("xcode-redaction")
        let log = try EventLog(directory: runDir, secrets: [Self.messageSecret, Self.nameSecret])
        let executor = AttemptExecutor(job: job, ref: AttemptRef(jobID: "cache-contract", attempt: 1), shell: shell, log: log,
                                       logsDirectory: runDir.appendingPathComponent("logs"))
        _ = await executor.execute()
        _ = dir
        let events = try String(contentsOf: log.url, encoding: .utf8)
        // The flow really carried the bundle's events and notes (else the test proves nothing).
        XCTAssertTrue(events.contains("result bundle"), events)
        XCTAssertTrue(events.contains("KeySuite/[redacted]: passed in the result bundle"), events)
        XCTAssertTrue(events.contains("XCTAssertNil failed: \\\"[redacted]\\\""), events)
        for (name, text) in try allText(runDir) {
            XCTAssertFalse(text.contains(Self.messageSecret), "\(name) leaks the secret")
            XCTAssertFalse(text.contains(Self.nameSecret), "\(name) leaks the secret")
        }
        // And what was read back (the reports' source) is redacted too.
        let read = try EventLog.read(log.url)
        XCTAssertFalse("\(read)".contains(Self.nameSecret))
    }

    func testEventLogRedactsJSONEscapedMultiLineSecretsAndTheObserverSeesTheSame() throws {
        let pem = RedactorStreamTests.pem
        let dir = try TestPaths.temporaryDirectory("eventlog-redaction")
        let log = try EventLog(directory: dir, secrets: [pem, "quote\"and\\slash/"])
        final class Seen: @unchecked Sendable { var events: [RunEvent] = [] }
        let seen = Seen()
        log.setObserver { seen.events.append($0) }
        log.append(.note("whole: \(pem)"))
        log.append(.note("one line: \(pem.split(separator: "\n")[1])"))
        log.append(.note("escaped: quote\"and\\slash/ end"))
        let text = try String(contentsOf: log.url, encoding: .utf8)
        for line in pem.split(separator: "\n") { XCTAssertFalse(text.contains(line), String(line)) }
        XCTAssertFalse(text.contains("quote\\\"and"), text)
        XCTAssertEqual(seen.events.map { if case .note(let t) = $0.body { return t } else { return "" } },
                       ["whole: [redacted]", "one line: [redacted]", "escaped: [redacted] end"])
    }

    /// `{"value": …, "secret": true}` parameters reach the generated settings file (the test
    /// process) but not events.jsonl, report.json, junit.xml, summary.md or report.html.
    func testSecretPlanParametersNeverReachEventsOrReports() async throws {
        let secret = "param-SECRET-7f3a9"
        let plan = try PlanLoader.parse(Data("""
        {"name": "p", "defaults": {"parameters": {"apiKey": {"value": "\(secret)", "secret": true}}},
         "suites": [{"name": "s", "template": "cache-contract", "requires": ["capability-nobody-has"],
                     "parameters": {"visible": "plain-value"}}]}
        """.utf8), path: "p.json", knownTemplates: ["cache-contract"])
        XCTAssertEqual(plan.suites[0].secretParameters, ["apiKey"])
        XCTAssertEqual(plan.secretValues, [secret])
        // It still reaches the test process, through the generated settings file.
        let rendered = try Renderer(root: TemplateRoot(url: TestPaths.packageRoot)).render(plan.suites[0])
        XCTAssertTrue(rendered.workspace.files.contains { String(decoding: $0.contents, as: UTF8.self).contains(secret) })

        let runs = try TestPaths.temporaryDirectory("secret-param-runs")
        var host = HostSpec.local
        host.workRoot = runs.appendingPathComponent("work").path
        let config = RunConfiguration(plan: plan, fleet: Fleet(hosts: [host]), root: TemplateRoot(url: TestPaths.packageRoot), runsDirectory: runs)
        let runner = try Runner(config: config)
        let report = try await runner.run()
        XCTAssertEqual(report.suites.first?.status, .unschedulable)
        let files = try allText(runner.runDirectory)
        XCTAssertTrue(files.contains { $0.0 == "events.jsonl" && $0.1.contains("plain-value") }, "the plan is in the events")
        XCTAssertTrue(files.contains { $0.0 == "report.json" })
        for (name, text) in files { XCTAssertFalse(text.contains(secret), "\(name) leaks the secret parameter") }
    }
}

extension RedactionChokePointTests {
    /// The attempt's raw log and events: a PEM secret from the fleet printed by the test process
    /// line by line, in 3-byte chunks, never lands in `logs/…log` or events.jsonl; a plan secret
    /// given only to the event log (not to the host) is masked in the raw log too.
    func testRawLogOfAnAttemptRedactsAMultiLineSecretPrintedLineByLine() async throws {
        let pem = RedactorStreamTests.pem
        let planSecret = "plan-param-SECRET-55"
        var host = HostSpec(name: "linux-1", address: "10.0.0.6", user: "ci", slots: 1)
        host.environment["KEY"] = EnvironmentValue(pem, secret: true)
        // Re-wrapped with \r\n (as a pty does), so the whole key never appears verbatim: each line must be caught.
        let printed = pem.split(separator: "\n").map { "\($0)\r\n" }.joined() + "param=\(planSecret)\n"
        let shell = ScriptedShell(host: host, script: [
            // `*`: the rendered command contains the text (the health check and the build cache script).
            ("*@@toolchain", ScriptedShell.Reply(stdout: "@@uname 0\nLinux x86_64\n@@toolchain 0\nSwift version 6.3.1 (swift-6.3.1-RELEASE)\n@@end\n")),
            ("*XCFLEET-BUILD", ScriptedShell.Reply(stdout: "XCFLEET-BUILD origin cold\nXCFLEET-BUILD product /w/builds/k/.build/debug/xcfleet-sPackageTests.xctest\nBuild complete!\n")),
            // The discover step's listing of the built bundle.
            ("*--list-tests", ScriptedShell.Reply(stdout: "CacheContractTests.MemoryKeyTests/testC1_freshEqualKeyHits\n")),
            ("", ScriptedShell.Reply(stdout: "Test Suite 'All tests' started at 2025-06-01 12:00:00.000\n" + printed, termination: .exited(0), chunkSize: 3)),
        ])
        let spec = SuiteSpec(name: "s", template: "cache-contract")
        let job = PlannedJob(planned: JobPlanned(jobID: "s", suite: "s", kind: .gate, expectedTests: []),
                             spec: spec, workspace: Workspace(files: []), requires: [])
        let runDir = try TestPaths.temporaryDirectory("rawlog-redaction")
        let log = try EventLog(directory: runDir, secrets: [planSecret])
        let logs = runDir.appendingPathComponent("logs")
        _ = await AttemptExecutor(job: job, ref: AttemptRef(jobID: "s", attempt: 1), shell: shell, log: log, logsDirectory: logs).execute()
        let raw = try String(contentsOf: logs.appendingPathComponent("s-a1.log"), encoding: .utf8)
        XCTAssertTrue(raw.contains("Test Suite 'All tests' started"), raw)
        XCTAssertEqual(raw.components(separatedBy: "[redacted]").count - 1, pem.split(separator: "\n").count + 1, raw.debugDescription)
        for (name, text) in try allText(runDir) {
            for line in pem.split(separator: "\n") { XCTAssertFalse(text.contains(line), "\(name) leaks \(line)") }
            XCTAssertFalse(text.contains(planSecret), "\(name) leaks the plan secret")
        }
    }
}
