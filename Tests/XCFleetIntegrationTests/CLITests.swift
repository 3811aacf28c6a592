import XCTest
@testable import XCFleetKit
import XCFleetTestSupport

/// The command line through the real `xcfleet` binary: help for every command, usage errors that
/// point to help that exists, shell completion, `parse --json` under GitHub Actions, a bad
/// `--history` file, and the verdict told the same way by terminal, report.html, summary.md and
/// the exit code.
final class CLITests: XCTestCase {
    private var dir: URL!

    override func setUpWithError() throws {
        dir = try TestPaths.temporaryDirectory()
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: dir)
    }

    private func xcfleet(_ args: [String], environment: [String: String] = [:], stdin: Data? = nil) throws -> CommandResult {
        var env = ["GITHUB_ACTIONS": "", "GITHUB_STEP_SUMMARY": "", "NO_COLOR": "1"]
        for (k, v) in environment { env[k] = v }
        return try runCommand(TestPaths.xcfleetBinary, args, cwd: TestPaths.packageRoot, environment: env, stdin: stdin)
    }

    // MARK: Help (golden: every command and its options)

    /// Every command and the options its help must name. A new command goes into the binary's
    /// CommandTable and here; `testOverviewListsExactlyTheseCommands` fails until both agree.
    private let golden: [String: [String]] = [
        "run": ["--fleet", "--runs", "--history", "--run-id", "--templates", "--mutants", "--quiet", "--verbose", "--json",
                "--history-db", "--history-url", "--no-history", "--quarantine", "--no-quarantine"],
        "plan check": [],
        "render": ["--out", "--mutant", "--templates"],
        "hosts check": ["--fleet", "--runs", "--history-db", "--history-url", "--no-history", "--json", "--deep", "--destination"],
        "hosts clean": ["--fleet"],
        "report": ["--compare", "--json"],
        "parse": ["--junit", "--source-root", "--json", "--allow-flaky", "--quarantine"],
        "history": ["--limit", "--compare", "--json", "--runs", "--history-db", "--history-url"],
        "history import": ["--runs", "--history-db", "--history-url"],
        "flaky": ["--days", "--min-rate", "--suggest", "--quarantine", "--owner", "--json", "--runs", "--history-db", "--history-url"],
        "completion": [],
    ]

    func testEveryCommandsHelpExitsZeroAndNamesItsOptions() throws {
        for (command, options) in golden.sorted(by: { $0.key < $1.key }) {
            let words = command.split(separator: " ").map(String.init)
            for flag in ["--help", "-h"] {
                let r = try xcfleet(words + [flag])
                XCTAssertEqual(r.status, 0, "\(command) \(flag): \(r.stderr)")
                XCTAssertTrue(r.stdout.hasPrefix("usage: xcfleet \(command)"), "\(command) \(flag):\n\(r.stdout)")
                XCTAssertTrue(r.stdout.contains("example"), "\(command) help has no example:\n\(r.stdout)")
                let examples = r.stdout.components(separatedBy: "example").last ?? ""
                XCTAssertTrue(examples.contains("xcfleet \(command)"), "\(command)'s example does not use it:\n\(r.stdout)")
                for option in options + ["--help"] {
                    XCTAssertTrue(r.stdout.contains("  \(option)"), "\(command) help does not name \(option):\n\(r.stdout)")
                }
                XCTAssertEqual(r.stderr, "")
            }
            // `xcfleet help CMD` is the same text.
            XCTAssertEqual(try xcfleet(["help"] + words).stdout, try xcfleet(words + ["--help"]).stdout)
        }
        // Help wins over missing arguments and over other options.
        XCTAssertEqual(try xcfleet(["render", "--out", "x", "--help"]).status, 0)
        // Group words have their own help.
        for group in ["plan", "hosts"] {
            let r = try xcfleet([group, "--help"])
            XCTAssertEqual(r.status, 0, r.stderr)
            XCTAssertTrue(r.stdout.contains("check"), r.stdout)
        }
    }

    func testOverviewListsExactlyTheseCommands() throws {
        let r = try xcfleet(["--help"])
        XCTAssertEqual(r.status, 0)
        let listed = Set(r.stdout.split(separator: "\n").filter { $0.hasPrefix("  ") && !$0.hasPrefix("   ") && !$0.hasPrefix("  --") }
            .map { line in line.trimmingCharacters(in: .whitespaces).split(separator: " ").prefix { !$0.hasPrefix("[") && $0.uppercased() != $0 }.joined(separator: " ") })
        XCTAssertEqual(listed, Set(golden.keys), r.stdout)
    }

    func testEveryUsageErrorPointsToHelpThatExists() throws {
        var cases: [[String]] = golden.keys.sorted().map { $0.split(separator: " ").map(String.init) + ["--no-such-option"] }
        cases += [["hosts"], ["hosts", "clean-everything"], ["plan"], ["plan", "lint"], ["run"], ["render", "Plans/cache-contract.json"],
                  ["report"], ["completion"], ["completion", "tcsh"], ["run", "--fleet"], ["parse", "a", "b"], ["hosts", "check", "extra"]]
        for args in cases {
            let r = try xcfleet(args)
            XCTAssertEqual(r.status, 2, "\(args): \(r.stdout) \(r.stderr)")
            let lines = r.stderr.split(separator: "\n")
            XCTAssertEqual(lines.count, 1, "\(args): not one line: \(r.stderr)")
            guard let range = r.stderr.range(of: #"xcfleet [a-z ]+--help"#, options: .regularExpression) else {
                XCTFail("\(args): the message points to no help: \(r.stderr)")
                continue
            }
            let helpArgs = r.stderr[range].split(separator: " ").dropFirst().map(String.init)
            let help = try xcfleet(helpArgs)
            XCTAssertEqual(help.status, 0, "\(args) points to `xcfleet \(helpArgs.joined(separator: " "))`, which fails: \(help.stderr)")
            XCTAssertTrue(help.stdout.hasPrefix("usage: xcfleet"), help.stdout)
        }
    }

    // MARK: Completion

    func testBashCompletionOffersCommandsOptionsAndPlanFiles() throws {
        let script = try xcfleet(["completion", "bash"])
        XCTAssertEqual(script.status, 0, script.stderr)
        let file = dir.appendingPathComponent("xcfleet.bash")
        try script.stdout.write(to: file, atomically: true, encoding: .utf8)
        let work = dir.appendingPathComponent("work")
        try FileManager.default.createDirectory(at: work.appendingPathComponent("Plans"), withIntermediateDirectories: true)
        try Data("{}".utf8).write(to: work.appendingPathComponent("Plans/nightly.json"))
        try Data("x".utf8).write(to: work.appendingPathComponent("Plans/notes.txt"))
        // Each line: the words typed so far (the last is being completed) → what the function offers.
        let driver = """
        set -u
        source "\(file.path)"
        complete -p xcfleet
        offer() { COMP_WORDS=("$@"); COMP_CWORD=$(( $# - 1 )); COMPREPLY=(); _xcfleet; echo "[$*] ${COMPREPLY[*]}"; }
        offer xcfleet ''
        offer xcfleet hosts ''
        offer xcfleet hosts check --
        offer xcfleet run --
        offer xcfleet run Plans/
        offer xcfleet run x --fleet Plans/n
        offer xcfleet completion ''
        offer xcfleet parse --j
        """
        let r = try runCommand(URL(fileURLWithPath: "/bin/bash"), ["--norc", "--noprofile", "-c", driver], cwd: work)
        XCTAssertEqual(r.status, 0, r.stderr)
        let lines = r.stdout.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.first, "complete -F _xcfleet xcfleet")
        func offered(_ typed: String) -> Set<String> {
            guard let line = lines.first(where: { $0.hasPrefix("[\(typed)] ") || $0 == "[\(typed)]" }) else { return [] }
            return Set(line.dropFirst(typed.count + 2).split(separator: " ").map(String.init))
        }
        XCTAssertTrue(Set(golden.keys.map { String($0.split(separator: " ")[0]) }).isSubset(of: offered("xcfleet ")), r.stdout)
        XCTAssertEqual(offered("xcfleet hosts "), ["check", "clean", "--help"], r.stdout)
        XCTAssertEqual(offered("xcfleet hosts check --"), Set(golden["hosts check"]! + ["--help"]), r.stdout)
        XCTAssertEqual(offered("xcfleet run --"), Set(golden["run"]! + ["--help"]), r.stdout)
        XCTAssertEqual(offered("xcfleet run Plans/"), ["Plans/nightly.json"], "only plan files (.json) are offered: \(r.stdout)")
        XCTAssertEqual(offered("xcfleet run x --fleet Plans/n"), ["Plans/nightly.json"], r.stdout)
        XCTAssertEqual(offered("xcfleet completion "), ["bash", "zsh", "fish"], r.stdout)
        XCTAssertEqual(offered("xcfleet parse --j"), ["--json", "--junit"], r.stdout)
    }

    func testZshAndFishCompletionScriptsParseAndRegister() throws {
        var checked = 0
        for (shell, path) in [("zsh", "/usr/bin/zsh"), ("fish", "/usr/bin/fish")] {
            guard FileManager.default.isExecutableFile(atPath: path) else {
                if ProcessInfo.processInfo.environment["CI"] == "true" { XCTFail("\(path) is missing (scripts/install-deps.sh --test installs it)") }
                continue
            }
            let script = try xcfleet(["completion", shell])
            XCTAssertEqual(script.status, 0, script.stderr)
            let file = dir.appendingPathComponent("xcfleet.\(shell)")
            try script.stdout.write(to: file, atomically: true, encoding: .utf8)
            let syntax = try runCommand(URL(fileURLWithPath: path), ["-n", file.path])
            XCTAssertEqual(syntax.status, 0, "\(shell) -n: \(syntax.stderr)")
            if shell == "zsh" {
                let r = try runCommand(URL(fileURLWithPath: path), ["-f", "-c", "autoload -U compinit && compinit -u -D && source \(file.path) && print -r -- $_comps[xcfleet]"])
                XCTAssertEqual(r.stdout.trimmingCharacters(in: .whitespacesAndNewlines), "_xcfleet", r.stderr)
            } else {
                let r = try runCommand(URL(fileURLWithPath: path), ["--no-config", "-c", "source \(file.path); complete -C 'xcfleet hosts check --'; complete -C 'xcfleet '"])
                XCTAssertTrue(r.stdout.contains("--fleet"), r.stdout + r.stderr)
                XCTAssertTrue(r.stdout.contains("completion\t"), r.stdout + r.stderr)
            }
            checked += 1
        }
        if checked == 0 { throw XCTSkip("neither zsh nor fish is installed (apt-get install zsh fish)") }
    }

    // MARK: parse --json and --history

    func testParseJSONUnderGitHubActionsKeepsStdoutOneJSONDocument() throws {
        let log = """
        Test Case '-[CacheContractTests.KeyTests testC1_identity]' started.
        /tmp/x/KeyTests.swift:42: error: -[CacheContractTests.KeyTests testC1_identity] : XCTAssertEqual failed: ("1") is not equal to ("2")
        Test Case '-[CacheContractTests.KeyTests testC1_identity]' failed (0.010 seconds).
        """
        let file = dir.appendingPathComponent("test.log")
        try log.write(to: file, atomically: true, encoding: .utf8)
        let r = try xcfleet(["parse", file.path, "--json"], environment: ["GITHUB_ACTIONS": "true"])
        XCTAssertEqual(r.status, 1, r.stderr)
        XCTAssertNoThrow(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)), "stdout is not one JSON document:\n\(r.stdout.prefix(300))")
        XCTAssertFalse(r.stdout.contains("::error"), r.stdout)
        XCTAssertTrue(r.stderr.contains("::error"), "the annotations belong on stderr: \(r.stderr)")
        // Without --json the annotations stay on stdout, where the text summary is.
        let text = try xcfleet(["parse", file.path], environment: ["GITHUB_ACTIONS": "true"])
        XCTAssertTrue(text.stdout.contains("::error"), text.stdout)
    }

    func testBadHistoryFileExitsTwoWithOneLine() throws {
        let cases: [(String, String)] = [
            ("not-json.json", "this is not json"),
            ("wrong-shape.json", #"{"runID": 5}"#),
            ("missing-key.json", #"{"runID": "r"}"#),
        ]
        for (name, content) in cases {
            let file = dir.appendingPathComponent(name)
            try content.write(to: file, atomically: true, encoding: .utf8)
            let r = try xcfleet(["run", "Plans/cache-contract.json", "--history", file.path, "--runs", dir.appendingPathComponent("runs").path])
            XCTAssertEqual(r.status, 2, "\(name): \(r.stderr)")
            XCTAssertEqual(r.stderr.split(separator: "\n").count, 1, "\(name): \(r.stderr)")
            XCTAssertTrue(r.stderr.hasPrefix("xcfleet: history: \(file.path)"), r.stderr)
            for dump in ["CodingKeys", "Context(", "keyNotFound", "typeMismatch", "dataCorrupted", "debugDescription"] {
                XCTAssertFalse(r.stderr.contains(dump), "\(name): Swift enum dump: \(r.stderr)")
            }
        }
        let missing = try xcfleet(["run", "Plans/cache-contract.json", "--history", dir.appendingPathComponent("nope").path])
        XCTAssertEqual(missing.status, 2, missing.stderr)
        XCTAssertTrue(missing.stderr.contains("does not exist"), missing.stderr)
    }

    // MARK: One verdict, told the same everywhere

    private func writeRun(_ name: String, exit: Int32) throws -> URL {
        let run = dir.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: run, withIntermediateDirectories: true)
        var events: [RunEvent] = []
        func add(_ body: RunEvent.Body) { events.append(RunEvent(seq: events.count + 1, t: Double(events.count), body: body)) }
        let gate = SuiteSpec(name: "gate", template: "cache-contract")
        let combine = SuiteSpec(name: "combine", template: "combine-lifetime", requires: ["combine"])
        let suites = exit == 3 ? [gate, combine] : [gate]
        add(.runStarted(RunStarted(runID: name, planName: "p", planPath: "p.json", startedAt: "2026-12-01T00:00:00Z", xcfleetVersion: "0", suites: suites, hosts: ["h1"])))
        add(.jobPlanned(JobPlanned(jobID: "gate", suite: "gate", kind: .gate, expectedTests: ["KeyTests/testC1_a"])))
        if exit == 3 {
            add(.jobPlanned(JobPlanned(jobID: "combine", suite: "combine", kind: .gate,
                                       expectedTests: (1...5).map { "LifetimeTests/testK\($0)_x" })))
            add(.jobUnschedulable(jobID: "combine", reason: "needs combine, platform:macos"))
        }
        let ref = AttemptRef(jobID: "gate", attempt: 1)
        add(.attemptStarted(ref, host: "h1", slot: 0))
        let id = TestIdentifier(suite: "CacheContractTests.KeyTests", name: "testC1_a")
        add(.test(ref, event: .testStarted(id, framework: .xctest)))
        if exit == 1 { add(.test(ref, event: .testFailure(id, file: "K.swift", line: 3, message: "XCTAssertEqual failed"))) }
        add(.test(ref, event: .testFinished(id, status: exit == 1 ? .failed : .passed, seconds: 0.01, framework: .xctest, clone: nil)))
        add(.attemptEnded(ref, AttemptEnded(termination: .exited(exit == 1 ? 1 : 0))))
        if exit != 130 { add(.runFinished(interrupted: false)) } // no final event: the run was killed
        let encoder = JSONEncoder()
        let lines = try events.map { String(decoding: try encoder.encode($0), as: UTF8.self) + "\n" }.joined()
        try lines.write(to: run.appendingPathComponent("events.jsonl"), atomically: true, encoding: .utf8)
        return run
    }

    func testTerminalBannerSummaryAndExitCodeTellTheSameStory() throws {
        let expected: [(code: Int32, word: String, title: String, tone: String)] = [
            (0, "GREEN", "✔ All gates green", "green"),
            (1, "RED", "✘ Gates red", "red"),
            (3, "NOT RUN", "⚠ Not run: infrastructure failure", "not-run"),
            (130, "INTERRUPTED", "■ Run interrupted", "interrupted"),
        ]
        for e in expected {
            let run = try writeRun("run-\(e.code)", exit: e.code)
            let r = try xcfleet(["report", run.path])
            XCTAssertEqual(r.status, e.code, r.stdout + r.stderr)
            let report = try JSONReportRenderer.decode(Data(contentsOf: run.appendingPathComponent("report.json")))
            let terminal = r.stdout.split(separator: "\n").first.map(String.init) ?? ""
            XCTAssertEqual(terminal, "xcfleet \(e.word): \(report.verdictLine)")
            let summary = try String(contentsOf: run.appendingPathComponent("summary.md"), encoding: .utf8)
            let headline = summary.split(separator: "\n").first.map(String.init) ?? ""
            XCTAssertTrue(headline.hasSuffix(" xcfleet \(e.word): \(ReportText.markdown(report.verdictLine))"), "exit \(e.code): \(headline)")
            let html = try String(contentsOf: run.appendingPathComponent("report.html"), encoding: .utf8)
            XCTAssertTrue(html.contains("<header id=\"verdict\" class=\"banner \(e.tone)\">"), "exit \(e.code): banner tone")
            XCTAssertTrue(html.contains("<h1>\(e.title)</h1>"), "exit \(e.code): banner title")
            for other in expected where other.code != e.code {
                XCTAssertFalse(html.contains("<h1>\(other.title)</h1>"), "exit \(e.code) banner says \(other.title)")
                XCTAssertFalse(headline.contains("xcfleet \(other.word):"), "exit \(e.code) summary.md says \(other.word)")
            }
            // The JSON summary carries the same verdict line and exit code.
            let json = try xcfleet(["report", run.path, "--json"])
            let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any], json.stdout)
            let verdict = try XCTUnwrap(object["verdict"] as? [String: Any], json.stdout)
            XCTAssertEqual(verdict["exitCode"] as? Int, Int(e.code))
            XCTAssertEqual(verdict["word"] as? String, e.word)
        }
    }

    func testUnschedulableReasonIsSaidOncePerSuiteWithoutADoubledWord() throws {
        let run = try writeRun("unschedulable", exit: 3)
        _ = try xcfleet(["report", run.path])
        for file in ["summary.md", "report.html", "junit.xml", "report.json"] {
            let text = try String(contentsOf: run.appendingPathComponent(file), encoding: .utf8)
            XCTAssertFalse(text.contains("unschedulable: unschedulable"), "\(file) doubles the word")
        }
        let summary = try String(contentsOf: run.appendingPathComponent("summary.md"), encoding: .utf8)
        XCTAssertTrue(summary.contains("5 tests not run: unschedulable: needs combine, platform:macos"), summary)
        // The five tests are not each listed with the reason: the headline, Why, Failures and
        // Infrastructure say it once each.
        XCTAssertLessThanOrEqual(summary.components(separatedBy: "needs combine").count - 1, 4, summary)
        let html = try String(contentsOf: run.appendingPathComponent("report.html"), encoding: .utf8)
        XCTAssertLessThanOrEqual(html.components(separatedBy: "needs combine").count - 1, 3)
        XCTAssertFalse(html.contains("not run: unschedulable"), "each test repeats the reason")
    }
}
