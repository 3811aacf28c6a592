import XCTest
@testable import XCFleetKit
import XCFleetTestSupport
@testable import XCFleetCore
@testable import XCFleetBasics

/// Every public error type of the library through the one mapper the executable uses
/// (`UserFacingErrors.report`): its message is one line that says what to fix and its exit code
/// is the documented one (README "Exit codes"). A public error type added to Sources without a row
/// here fails `testEveryPublicErrorTypeOfTheLibraryHasARow`.
final class UserFacingErrorTests: XCTestCase {
    private let usage = Verdict.ExitCode.usage, infrastructure = Verdict.ExitCode.infrastructure

    /// Type name (as declared in Sources) → an instance, the exit code, and a phrase of the line.
    private var table: [(type: String, error: any Error, code: Int32, says: String)] {
        [
            ("DurationHistoryError", DurationHistoryError.missing(path: "old/report.json"), usage, "pass a run directory or its report.json"),
            ("XcodeDestinationError", XcodeDestinationError(destination: "platform=iOS", problem: "name= is missing"), usage, "write it like"),
            ("SimctlJSONError", SimctlJSONError(what: "simctl list devices", detail: "not an object", head: "oops"), infrastructure, "did not print the expected JSON"),
            ("XCResultError", XCResultError(what: "xcresulttool get", detail: "no actions"), infrastructure, "xcresulttool get: no actions"),
            ("XctestrunError", XctestrunError(productsPath: "/p", sdks: ["iphonesimulator"], candidates: []), infrastructure, "no .xctestrun for iphonesimulator"),
            ("EventLogError", EventLogError.missing("runs/x/events.jsonl"), usage, "give a run directory written by 'xcfleet run'"),
            ("SQLError", SQLError(.busy, "database is locked\nsecond line"), infrastructure, "history database: database is locked"),
            ("HistoryError", HistoryError(.newerSchema, "schema version 99, newer than this xcfleet"), infrastructure, "history: schema version 99"),
            ("HistoryLocationError", HistoryLocationError("--history-url must be postgresql:// or postgres:// (got postgresq://…); name a SQLite file with --history-db FILE"), usage, "history: --history-url must be postgresql://"),
            ("ProvisionError", ProvisionError(.create, host: "prov-1", command: ["./create-mac.sh", "--image", "sonoma"], "exited 1"), infrastructure, "prov-1: provisioner create command"),
            ("HostLeaseError", HostLeaseError(host: "mac1", "perl not found"), infrastructure, "the host needs perl"),
            ("RenderError", RenderError.unknownTemplate("nope"), usage, "no template 'nope' under Templates/"),
            ("WorkspaceError", WorkspaceError.unsafePath("../x", "goes outside the package"), usage, "refusing workspace entry"),
            ("RemoteShellError", RemoteShellError(.connect, host: "mac1", "connection refused"), infrastructure, "mac1: connect: connection refused"),
            ("JSONSyntaxError", JSONSyntaxError("expected ',' or '}'", at: JSONPosition(line: 3, column: 7)), usage, "JSON syntax error at 3:7: expected ',' or '}'"),
            ("ValidationError", ValidationError(problems: [ValidationProblem(file: "p.json", path: "name", line: 2, column: 3, message: "must not be empty")]), usage, "p.json:2:3: name: must not be empty"),
            ("InputFileError", InputFileError(path: "fleet.json", kind: .missing), usage, "fleet.json: cannot read the file: no such file; check the path"),
            ("SafePathError", SafePathError(path: "/", message: "refusing to remove / (not inside --out)"), usage, "refusing to remove /"),
            ("DiscoveryFileError", DiscoveryFileError(file: "App.xctestplan", line: 3, message: "a test target without target.name"), usage, "App.xctestplan:3: a test target without target.name"),
        ]
    }

    func testEveryErrorTypeSaysOneLineAndItsDocumentedExitCode() {
        for row in table {
            let (message, code) = UserFacingErrors.report(row.error)
            XCTAssertEqual(code, row.code, "\(row.type): exit code")
            XCTAssertEqual(message.split(whereSeparator: \.isNewline).count, 1, "\(row.type): not one line: \(message)")
            XCTAssertTrue(message.contains(row.says), "\(row.type): \(message)")
            if row.type != "ValidationError" { XCTAssertTrue(message.hasPrefix("xcfleet: "), "\(row.type): \(message)") }
            for dump in ["Kind.", "(kind:", "Error(", "CodingKeys", "unexpected error"] {
                XCTAssertFalse(message.contains(dump), "\(row.type): a Swift value dump: \(message)")
            }
        }
    }

    /// A plan with several problems keeps every problem, one line each, printed as they are.
    func testValidationErrorsKeepEveryProblem() {
        let error = ValidationError(problems: [
            ValidationProblem(file: "p.json", path: "name", line: 2, column: 3, message: "must not be empty"),
            ValidationProblem(file: "p.json", path: "suites[0].template", line: 5, column: 9, message: "no template 'x'"),
        ])
        let (message, code) = UserFacingErrors.report(error)
        XCTAssertEqual(code, 2)
        XCTAssertEqual(message, "p.json:2:3: name: must not be empty\np.json:5:9: suites[0].template: no template 'x'")
    }

    func testUnknownErrorsAreOneGenericLineWithExitThree() {
        struct Surprise: Error { var payload = [1, 2, 3] }
        let (message, code) = UserFacingErrors.report(Surprise())
        XCTAssertEqual(code, 3)
        XCTAssertTrue(message.hasPrefix("xcfleet: unexpected error (Surprise): "), message)
        XCTAssertFalse(message.contains("payload"), "the value is dumped: \(message)")
        XCTAssertEqual(message.split(separator: "\n").count, 1)
        let cocoa = UserFacingErrors.report(CocoaError(.fileReadNoSuchFile))
        XCTAssertEqual(cocoa.exitCode, 3)
        XCTAssertEqual(cocoa.message.split(separator: "\n").count, 1, cocoa.message)
        XCTAssertEqual(UserFacingErrors.report(CancellationError()).exitCode, 130)
    }

    func testAMessageAboutACommandNamesIt() {
        struct Bad: UserFacingError {
            var userMessage: String { "--min-rate: expected a number between 0 and 1 (got 'abc')" }
            var exitCode: Int32 { 2 }
            var commandPath: String? { "flaky" }
        }
        XCTAssertEqual(UserFacingErrors.report(Bad()).message, "xcfleet flaky: --min-rate: expected a number between 0 and 1 (got 'abc')")
    }

    /// Every `public struct/enum X: Error` in Sources (but SSHClient's, checked in SSHClientTests)
    /// has a row above: a new error type cannot fall through to the generic message unnoticed.
    func testEveryPublicErrorTypeOfTheLibraryHasARow() throws {
        let sources = TestPaths.packageRoot.appendingPathComponent("Sources")
        let pattern = try NSRegularExpression(pattern: #"public (?:struct|enum|final class|class) (\w+)\s*:[^{]*\bError\b"#)
        var declared = Set<String>()
        let files = FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil)
        while let url = files?.nextObject() as? URL {
            guard url.pathExtension == "swift", !url.path.contains("/SSHClient/"), !url.path.contains("/xcfleet/") else { continue }
            let text = try String(contentsOf: url, encoding: .utf8)
            for m in pattern.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                declared.insert((text as NSString).substring(with: m.range(at: 1)))
            }
        }
        XCTAssertFalse(declared.isEmpty)
        XCTAssertEqual(declared, Set(table.map(\.type)), "public error types without a row (or rows without a type)")
        for row in table { XCTAssertTrue(row.error is any UserFacingError, "\(row.type) does not adopt UserFacingError") }
    }

    func testSuggestionPicksTheClosestWordWhenItIsClose() {
        XCTAssertEqual(Suggestion.closest(to: "flakey", among: ["run", "flaky", "history"]), "flaky")
        XCTAssertEqual(Suggestion.closest(to: "min-rat", among: ["days", "min-rate", "suggest"]), "min-rate")
        XCTAssertNil(Suggestion.closest(to: "banana", among: ["run", "flaky", "history"]))
        XCTAssertEqual(Suggestion.distance("kitten", "sitting"), 3)
        XCTAssertEqual(Suggestion.distance("", "abc"), 3)
        XCTAssertEqual(Suggestion.distance("chekc", "check"), 1)
        XCTAssertEqual(Suggestion.closest(to: "chekc", among: ["check", "clean"]), "check")
        XCTAssertNil(Suggestion.closest(to: "run", among: ["flaky"]))
    }
}
