import Foundation
import XCFleetKit
#if canImport(Glibc)
import Glibc
#endif

// xcfleet's entry point. Turning errors into one-line messages and exit codes happens here only.

let usage = """
usage: xcfleet <command> [options]

commands:
  run PLAN [--fleet FILE] [--runs DIR] [--run-id ID] [--mutants] [--history RUN_DIR|REPORT] [--quiet|--verbose|--json]
                       run a plan (the built-in local host when no fleet is given); the run
                       directory is RUNS/ID (ID: 1-64 of A-Z a-z 0-9 . _ -, default a fresh
                       time-stamped id); an existing run directory is never reused
  plan check PLAN      validate a plan; every problem with file:line:col and JSON path
  render PLAN --out DIR
                       write each suite as a standalone SwiftPM package
  hosts check [--fleet FILE]
                       check every host: reachable, host key, auth, platform, toolchain, disk, latency
  report RUN_DIR [--compare OTHER_RUN_DIR]
                       rebuild every report of a run from its events.jsonl
  parse [LOG|-] [--junit FILE] [--json] [--source-root HOST_PREFIX=REPO_DIR]...
                       parse existing xcodebuild / swift test output; paths under HOST_PREFIX
                       are shown as files of REPO_DIR, relative to its repository (docs/locations.md)
  history [--limit N] [--compare] [--json] | history import RUN_DIR…
                       recorded runs (duration, verdict, cost) / backfill old run directories
  flaky [--days N] [--suggest] [--json]
                       tests by flake rate from the history (--suggest: quarantine entries)
  --version, --help

common options: --templates DIR (where Templates/ and Sources/CacheContract/ are; also XCFLEET_HOME)
history options: --no-history · --history-db FILE (default .xcfleet/history.sqlite) · --history-url postgresql://… (or XCFLEET_HISTORY_URL)
exit codes: 0 all gates green · 1 a gate is red · 2 bad usage or invalid plan/fleet · 3 infrastructure failure · 130 interrupted
"""

enum Exit {
    static func fail(_ message: String, code: Int32) -> Never {
        TerminalOutput.printErr("xcfleet: \(message)")
        exit(code)
    }
}

func loadPlan(_ path: String) throws -> TestPlan {
    try PlanLoader.load(path: path, knownTemplates: TemplateInfo.names)
}

func locateRoot(_ args: Arguments) throws -> TemplateRoot {
    try TemplateRoot.locate(explicit: args.options["templates"])
}

func runCommand(_ argv: ArraySlice<String>) async throws -> Int32 {
    let args = try Arguments(argv, options: Set(["fleet", "runs", "history", "templates", "run-id"]).union(historyOptions),
                             flags: ["mutants", "quiet", "verbose", "json", "help", "no-history"], command: "run")
    if args.flags.contains("help") { print(usage); return 0 }
    guard args.positionals.count == 1 else { throw UsageError("run needs exactly one PLAN file (xcfleet run Plans/cache-contract.json)") }
    if let id = args.options["run-id"], let problem = RunID.problem(id) {
        throw UsageError("--run-id '\(id)' \(problem) (it names the run directory under --runs)")
    }
    let plan = try loadPlan(args.positionals[0])
    let fleet = try args.options["fleet"].map { try FleetLoader.load(path: $0) } ?? .local
    let root = try locateRoot(args)
    let runs = URL(fileURLWithPath: args.options["runs"] ?? ".xcfleet/runs")
    var history = try args.options["history"].map { try DurationHistory(contentsOf: $0) }
    let recorder = historyRecorder(args)
    if history == nil, let recorder {
        let (learned, note) = await recorder.durations(suites: plan.suites.map { $0.name })
        history = learned
        if let note { historyNote(note) }
    }
    var config = RunConfiguration(plan: plan, fleet: fleet, root: root, runsDirectory: runs,
                                  forceMutants: args.flags.contains("mutants"), history: history)
    if let id = args.options["run-id"] { config.runID = id; config.pickNewRunIDIfTaken = false }
    if let recorder {
        let (held, note) = await recorder.hostsToSetAside(fleet)
        config.setAsideByHistory = held
        if let note { historyNote(note) }
    }
    let runner = try Runner(config: config)
    let json = args.flags.contains("json")
    let verbosity: Verbosity = args.flags.contains("quiet") || json ? .quiet : args.flags.contains("verbose") ? .verbose : .normal
    let console = ConsoleProgress(verbosity: verbosity, history: history)
    runner.observe { console.handle($0) }
    Signals.install(onFirst: { runner.interrupt() }, say: { console.announce($0) })
    let report: RunReport
    do { report = try await runner.run() } catch {
        console.finish()
        if let recorder { for note in await recorder.record(runDirectory: runner.runDirectory, pricing: fleet.pricing).notes { historyNote(note) } }
        throw error
    }
    console.finish()
    if let recorder { for note in await recorder.record(runDirectory: runner.runDirectory, pricing: fleet.pricing).notes { historyNote(note) } }
    publishToCI(report, runDirectory: runner.runDirectory, annotationsOnStderr: json)
    if json {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var summary = RunSummaryJSON(report: report, runDirectory: runner.runDirectory.path)
        summary.cost = RunCost.compute(report, pricePerHour: fleet.pricing.perHost, defaultPrice: fleet.pricing.defaultPrice)
        TerminalOutput.printJSON(try encoder.encode(summary))
    } else {
        TerminalOutput.printOut(ConsoleProgress.summary(report, runDirectory: runner.runDirectory),
                                color: ConsoleProgress.colorAllowed(fd: STDOUT_FILENO))
        print("cost: " + RunCost.compute(report, pricePerHour: fleet.pricing.perHost, defaultPrice: fleet.pricing.defaultPrice).summaryLine)
    }
    return report.exitCode
}

/// GitHub Actions: the summary is appended to `GITHUB_STEP_SUMMARY`, failures become `::error` annotations
/// (on stderr with `--json`, which keeps stdout for the one JSON document; the runner reads both).
func publishToCI(_ report: RunReport, runDirectory: URL, annotationsOnStderr: Bool = false,
                 environment: [String: String] = ProcessInfo.processInfo.environment) {
    if let path = environment["GITHUB_STEP_SUMMARY"], !path.isEmpty,
       let summary = FileManager.default.contents(atPath: runDirectory.appendingPathComponent("summary.md").path) {
        if let handle = FileHandle(forWritingAtPath: path) {
            handle.seekToEndOfFile()
            handle.write(summary)
            try? handle.close()
        } else {
            _ = FileManager.default.createFile(atPath: path, contents: summary)
        }
    }
    if environment["GITHUB_ACTIONS"] == "true" {
        for line in GitHubAnnotations.lines(report) {
            if annotationsOnStderr { TerminalOutput.printErr(line) } else { TerminalOutput.printOut(line) }
        }
    }
}

/// `--json`: one machine-readable summary on stdout.
struct RunSummaryJSON: Encodable {
    var runID: String
    var runDirectory: String
    var exitCode: Int32
    var verdict: String
    var interrupted: Bool
    var totals: Totals
    var suites: [Suite]
    /// Host-seconds by phase and price (fleet `pricePerHour`).
    var cost: RunCost?
    struct Suite: Encodable { var name: String; var kind: SuiteKind; var status: SuiteStatus; var reasons: [String] }

    init(report: RunReport, runDirectory: String) {
        runID = report.runID
        self.runDirectory = runDirectory
        exitCode = report.exitCode
        verdict = report.verdictLine
        interrupted = report.interrupted
        totals = report.totals
        suites = report.suites.map { Suite(name: $0.spec.name, kind: $0.spec.kind, status: $0.status, reasons: $0.reasons) }
    }
}

func planCommand(_ argv: ArraySlice<String>) throws -> Int32 {
    guard argv.first == "check" else { throw UsageError("usage: xcfleet plan check PLAN") }
    let args = try Arguments(argv.dropFirst(), options: [], flags: [], command: "plan check")
    guard !args.positionals.isEmpty else { throw UsageError("plan check needs a PLAN file") }
    for path in args.positionals {
        let plan = try loadPlan(path)
        TerminalOutput.printOut([ConsoleLine("\(path): ok — plan '\(plan.name)', \(plan.suites.count) suite\(plan.suites.count == 1 ? "" : "s"): " +
              plan.suites.map { "\($0.name) (\($0.kind.rawValue), \($0.template))" }.joined(separator: ", "))])
    }
    return 0
}

func renderCommand(_ argv: ArraySlice<String>) throws -> Int32 {
    let args = try Arguments(argv, options: ["out", "templates", "mutant"], flags: [], command: "render")
    guard args.positionals.count == 1, let out = args.options["out"] else { throw UsageError("usage: xcfleet render PLAN --out DIR") }
    let plan = try loadPlan(args.positionals[0])
    let root = try locateRoot(args)
    let renderer = Renderer(root: root)
    let mutant = try args.options["mutant"].map { id -> MutantSpec in
        guard let m = try MutantSpec.all(in: root).first(where: { $0.id == id }) else { throw UsageError("no mutant '\(id)' under Templates/mutants") }
        return m
    }
    // Each suite replaces only its own folder, proven to be strictly inside --out (RenderOutput).
    let output = RenderOutput(directory: URL(fileURLWithPath: out))
    for suite in plan.suites {
        let rendered = try renderer.render(suite, mutant: mutant.flatMap { $0.template == suite.template ? $0 : nil })
        let dir = try output.write(rendered)
        TerminalOutput.printOut([ConsoleLine("\(dir.path): \(rendered.workspace.files.count) files, \(rendered.manifest.tests.count) tests (cd \(dir.path) && swift test)")])
    }
    return 0
}

func reportCommand(_ argv: ArraySlice<String>) throws -> Int32 {
    let args = try Arguments(argv, options: ["compare"], flags: ["json"], command: "report")
    guard args.positionals.count == 1 else { throw UsageError("usage: xcfleet report RUN_DIR [--compare OTHER_RUN_DIR]") }
    let dir = URL(fileURLWithPath: args.positionals[0])
    let report = try ReportWriter.rebuild(runDirectory: dir)
    try ReportWriter.writeAll(report, to: dir)
    if let other = args.options["compare"] {
        let base = try ReportWriter.rebuild(runDirectory: URL(fileURLWithPath: other))
        TerminalOutput.printOut(try ReportWriter.writeComparison(base: base, head: report, to: dir))
    }
    TerminalOutput.printOut(ConsoleProgress.summary(report, runDirectory: dir))
    return report.exitCode
}

func parseCommand(_ argv: ArraySlice<String>) async throws -> Int32 {
    let args = try Arguments(argv, options: ["junit", "source-root"], flags: ["json"], command: "parse")
    let cwd = FileManager.default.currentDirectoryPath
    let roots = try (args.repeated["source-root"] ?? []).map { arg -> LocationMapper.SourceRoot in
        guard let root = LogParse.sourceRoot(argument: arg, currentDirectory: cwd) else {
            throw UsageError("--source-root \(arg): give HOST_PREFIX=REPO_DIR, an absolute path as the log prints it and a folder here (e.g. --source-root /Users/runner/work/app/app=.)")
        }
        return root
    }
    let input: FileHandle
    var name = "stdin"
    if let path = args.positionals.first, path != "-" {
        guard let h = FileHandle(forReadingAtPath: path) else { throw UsageError("\(path): cannot read (give a log file, or - for stdin)") }
        input = h
        name = path
    } else {
        input = FileHandle.standardInput
    }
    let report = await LogParse.report(reading: input, name: name, sourceRoots: roots)
    if let junit = args.options["junit"] {
        try ReportWriter.junit(report).write(to: URL(fileURLWithPath: junit))
    }
    if ProcessInfo.processInfo.environment["GITHUB_ACTIONS"] == "true" {
        for line in GitHubAnnotations.lines(report) { TerminalOutput.printOut([ConsoleLine(line)]) }
    }
    if args.flags.contains("json") {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        TerminalOutput.printJSON(try encoder.encode(report))
    } else {
        TerminalOutput.printOut(Array(ConsoleProgress.summary(report, runDirectory: URL(fileURLWithPath: ".")).dropLast()))
    }
    return report.exitCode
}

func hostsCommand(_ argv: ArraySlice<String>) async throws -> Int32 {
    guard argv.first == "check" else { throw UsageError("usage: xcfleet hosts check [--fleet FILE]") }
    let args = try Arguments(argv.dropFirst(), options: Set(["fleet"]).union(historyOptions), flags: ["no-history"], command: "hosts check")
    let fleet = try args.options["fleet"].map { try FleetLoader.load(path: $0) } ?? .local
    let results = await HostChecker.check(fleet.hosts, timeouts: .defaults)
    for r in results { TerminalOutput.printOut([ConsoleLine(HostChecker.format(r))]) }
    if let recorder = historyRecorder(args, deadline: 10) { await printHostHistory(fleet, recorder: recorder) }
    return results.allSatisfy(\.ok) ? 0 : Verdict.ExitCode.infrastructure
}

func main() async -> Int32 {
    let argv = CommandLine.arguments.dropFirst()
    do {
        switch argv.first {
        case "run": return try await runCommand(argv.dropFirst())
        case "plan": return try planCommand(argv.dropFirst())
        case "render": return try renderCommand(argv.dropFirst())
        case "report": return try reportCommand(argv.dropFirst())
        case "parse": return try await parseCommand(argv.dropFirst())
        case "hosts": return try await hostsCommand(argv.dropFirst())
        case "history": return try await historyCommand(argv.dropFirst())
        case "flaky": return try await flakyCommand(argv.dropFirst())
        case "--version", "version": print("xcfleet \(XCFleet.version)"); return 0
        case "--help", "-h", "help", nil: print(usage); return argv.first == nil ? Verdict.ExitCode.usage : 0
        case let other?: throw UsageError("unknown command '\(other)' (xcfleet --help lists them)")
        }
    } catch let error as UsageError {
        Exit.fail(error.description, code: Verdict.ExitCode.usage)
    } catch let error as PlanValidationError {
        TerminalOutput.printErr(error.description)
        return Verdict.ExitCode.usage
    } catch let error as RenderError {
        Exit.fail(error.description, code: Verdict.ExitCode.usage)
    } catch let error as EventLogError {
        Exit.fail(error.description, code: Verdict.ExitCode.usage)
    } catch let error as HistoryCommandError {
        Exit.fail(error.description, code: Verdict.ExitCode.infrastructure)
    } catch let error as SafePathError {
        Exit.fail(error.description, code: Verdict.ExitCode.usage)
    } catch let error as RemoteShellError {
        Exit.fail(error.description, code: Verdict.ExitCode.infrastructure)
    } catch {
        Exit.fail("\(error)", code: Verdict.ExitCode.infrastructure)
    }
}

exit(await main())
