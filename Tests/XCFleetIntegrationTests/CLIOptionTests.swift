import XCTest
@testable import XCFleetKit
import XCFleetTestSupport

/// The real `xcfleet` binary: typed options checked by the argument parser before a command runs
/// (exit 2, one line saying what to fix), "did you mean" for unknown words, and golden help texts
/// (`XCFLEET_UPDATE_GOLDEN=1` rewrites them; review the diff).
final class CLIOptionTests: XCTestCase {
    private func xcfleet(_ args: [String], environment: [String: String] = [:]) throws -> CommandResult {
        var env = ["GITHUB_ACTIONS": "", "GITHUB_STEP_SUMMARY": "", "NO_COLOR": "1", "XCFLEET_HISTORY_URL": "", "XCFLEET_HISTORY_DB": ""]
        for (k, v) in environment { env[k] = v }
        return try runCommand(TestPaths.xcfleetBinary, args, cwd: TestPaths.packageRoot, environment: env)
    }

    /// Exit 2 and exactly `line` on stderr, nothing on stdout.
    private func assertUsage(_ args: [String], _ line: String, file: StaticString = #filePath, lineNumber: UInt = #line) throws {
        let r = try xcfleet(args, environment: ["XCFLEET_NO_HISTORY": "1"])
        XCTAssertEqual(r.status, 2, "\(args): \(r.stderr)", file: file, line: lineNumber)
        XCTAssertEqual(r.stderr, line + "\n", "\(args)", file: file, line: lineNumber)
        XCTAssertEqual(r.stdout, "", "\(args)", file: file, line: lineNumber)
    }

    func testBadValuesOfEachKindAreExitTwoWithWhatToFix() throws {
        // double with a range
        try assertUsage(["flaky", "--min-rate", "abc"], "xcfleet flaky: --min-rate: expected a number between 0 and 1 (got 'abc')")
        try assertUsage(["flaky", "--suggest", "--min-rate=7"], "xcfleet flaky: --min-rate: expected a number between 0 and 1 (got '7')")
        try assertUsage(["flaky", "--min-rate", "-0.1"], "xcfleet flaky: --min-rate: expected a number between 0 and 1 (got '-0.1')")
        try assertUsage(["flaky", "--min-rate", "nan"], "xcfleet flaky: --min-rate: expected a number between 0 and 1 (got 'nan')")
        // int with a range
        try assertUsage(["flaky", "--days", "two"], "xcfleet flaky: --days: expected a whole number between 1 and 3650 (got 'two')")
        try assertUsage(["flaky", "--days", "0"], "xcfleet flaky: --days: expected a whole number between 1 and 3650 (got '0')")
        try assertUsage(["flaky", "--days", "1.5"], "xcfleet flaky: --days: expected a whole number between 1 and 3650 (got '1.5')")
        try assertUsage(["history", "--limit", "100001"], "xcfleet history: --limit: expected a whole number between 1 and 100000 (got '100001')")
        // path and string: a value must be given
        try assertUsage(["run", "Plans/cache-contract.json", "--fleet="], "xcfleet run: --fleet: expected a path (got '')")
        try assertUsage(["run", "Plans/cache-contract.json", "--run-id="], "xcfleet run: --run-id: expected a value ID (got '')")
        try assertUsage(["run", "--fleet"], "xcfleet run: --fleet needs a value FILE (see xcfleet run --help)")
        // flag
        try assertUsage(["flaky", "--json=yes"], "xcfleet flaky: --json takes no value (see xcfleet flaky --help)")
    }

    /// Values inside the range reach the command (which here stops at the switched-off history).
    func testGoodValuesReachTheCommand() throws {
        for args in [["flaky", "--min-rate", "0"], ["flaky", "--min-rate=1", "--days", "3650"], ["flaky", "--min-rate", "0.5", "--days=1"], ["history", "--limit", "1"]] {
            let r = try xcfleet(args, environment: ["XCFLEET_NO_HISTORY": "1"])
            XCTAssertEqual(r.status, 2, "\(args): \(r.stderr)")
            XCTAssertTrue(r.stderr.hasPrefix("xcfleet: history is off"), "\(args): \(r.stderr)")
        }
    }

    func testUnknownWordsGetTheClosestKnownOne() throws {
        try assertUsage(["flaky", "--min-rat", "0.1"], "xcfleet flaky: unknown option --min-rat; did you mean '--min-rate'? (see xcfleet flaky --help)")
        try assertUsage(["run", "--fleat", "f.json"], "xcfleet run: unknown option --fleat; did you mean '--fleet'? (see xcfleet run --help)")
        try assertUsage(["report", "--no-such-option"], "xcfleet report: unknown option --no-such-option (see xcfleet report --help)")
        try assertUsage(["flakey"], "xcfleet: unknown command 'flakey'; did you mean 'flaky'? (xcfleet --help lists them)")
        try assertUsage(["reprot", "x"], "xcfleet: unknown command 'reprot'; did you mean 'report'? (xcfleet --help lists them)")
        try assertUsage(["banana"], "xcfleet: unknown command 'banana' (xcfleet --help lists them)")
        try assertUsage(["hosts", "chek"], "xcfleet: unknown subcommand 'chek' for 'xcfleet hosts'; did you mean 'check'? (subcommands: check, clean; see xcfleet hosts --help)")
        try assertUsage(["plan", "chekc"], "xcfleet: unknown subcommand 'chekc' for 'xcfleet plan'; did you mean 'check'? (subcommands: check; see xcfleet plan --help)")
        try assertUsage(["history", "imprt"], "xcfleet: history takes no arguments (got 'imprt'); did you mean 'import'? (see xcfleet history --help)")
        try assertUsage(["--verison"], "xcfleet: unknown option --verison before a command; did you mean '--version'? (xcfleet --help lists the commands)")
        try assertUsage(["help", "flakey"], "xcfleet: no help for 'flakey'; did you mean 'flaky'? (xcfleet --help lists the commands)")
    }

    /// Errors of the library through the binary: one line, the documented code, no Swift dump.
    func testLibraryErrorsReachTheTerminalAsOneLine() throws {
        let missing = try xcfleet(["report", "/nonexistent-run-dir"])
        XCTAssertEqual(missing.status, 2, missing.stderr)
        XCTAssertEqual(missing.stderr, "xcfleet: /nonexistent-run-dir/events.jsonl: no events.jsonl here; give a run directory written by 'xcfleet run'\n")
        let fleet = try xcfleet(["hosts", "check", "--fleet", "/nonexistent/fleet.json"])
        XCTAssertEqual(fleet.status, 2, fleet.stderr)
        XCTAssertEqual(fleet.stderr.split(separator: "\n").count, 1, fleet.stderr)
        XCTAssertTrue(fleet.stderr.hasPrefix("xcfleet: ") || fleet.stderr.hasPrefix("/nonexistent/fleet.json"), fleet.stderr)
        XCTAssertFalse(fleet.stderr.contains("Error("), fleet.stderr)
    }

    // MARK: Golden help

    private func assertGolden(_ args: [String], _ name: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let r = try xcfleet(args)
        XCTAssertEqual(r.status, 0, r.stderr, file: file, line: line)
        try GoldenFile.assertMatches(r.stdout, name, what: "`xcfleet \(args.joined(separator: " "))`", file: file, line: line)
    }

    func testOverviewHelpMatchesGolden() throws { try assertGolden(["--help"], "help-overview.txt") }
    func testFlakyHelpMatchesGolden() throws { try assertGolden(["flaky", "--help"], "help-flaky.txt") }
}
