import Foundation
import XCFleetKit
#if canImport(Glibc)
import Glibc
#endif

// xcfleet's entry point. Turning errors into one-line messages and exit codes happens here only:
// `main`'s catch, through `UserFacingErrors.report` (each error type says its message and code).

/// `xcfleet --help`; each command's own help comes from `CommandTable`.
let usage = CommandTable.overview

/// With `--templates DIR`, a plan may also name the templates found there (`TemplateCatalog`).
func loadPlan(_ path: String, _ args: Arguments) throws -> TestPlan {
    let known = args.string("templates") == nil ? TemplateInfo.names : try locateCatalog(args).names
    return try PlanLoader.load(path: path, knownTemplates: known)
}

func locateCatalog(_ args: Arguments) throws -> TemplateCatalog {
    try TemplateCatalog.locate(explicit: args.string("templates"))
}

func runCommand(_ args: Arguments) async throws -> Int32 {
    guard args.positionals.count == 1 else { throw UsageError("run needs exactly one PLAN file (see xcfleet run --help)") }
    if let id = args.string("run-id"), let problem = RunID.problem(id) {
        throw UsageError("--run-id '\(id)' \(problem) (it names the run directory under --runs; see xcfleet run --help)")
    }
    let plan = try loadPlan(args.positionals[0], args)
    let quarantine = try loadQuarantine(args, plan: plan)
    let fleet = try args.string("fleet").map { try FleetLoader.load(path: $0) } ?? .local
    let catalog = try locateCatalog(args)
    let root = catalog.root
    let runs = URL(fileURLWithPath: args.string("runs") ?? ".xcfleet/runs")
    var history = try args.string("history").map { try DurationHistory(contentsOf: $0) }
    let recorder = try historyRecorder(args)
    var readable = recorder // nil once the history failed to answer: the report's trends do not ask again
    if history == nil, let recorder {
        let (learned, note) = await recorder.durations(suites: plan.suites.map { $0.name }, hosts: fleet.hosts.map(\.name))
        history = learned
        if let note { historyNote(note); readable = nil }
    }
    var config = RunConfiguration(plan: plan, fleet: fleet, root: root, runsDirectory: runs,
                                  forceMutants: args.flag("mutants"), history: history)
    config.userTemplates = catalog.userTemplates
    if let id = args.string("run-id") { config.runID = id; config.pickNewRunIDIfTaken = false }
    config.quarantine = quarantine
    if let recorder {
        let (held, note) = await recorder.hostsToSetAside(fleet)
        config.setAsideByHistory = held
        if let note { historyNote(note) }
    }
    // The builds xcfleet recorded making on the hosts: a cached build is reused only against them
    // (a history that did not answer has said so once already).
    if let recorder = readable {
        let (trusted, note) = await recorder.trustedBuilds(hosts: fleet.hosts.map(\.name))
        config.trustedBuilds = trusted
        if let note { historyNote(note) }
    }
    let pricing = fleet.pricing, trendsFrom = readable
    config.historyContext = { report in // cost always; trends and flaky marks from the history
        let (context, note) = await HistoryRecorder.runContext(report, pricing: pricing, recorder: trendsFrom)
        if let note { historyNote(note) }
        return context
    }
    let runner = try Runner(config: config)
    let json = args.flag("json")
    let verbosity: Verbosity = args.flag("quiet") || json ? .quiet : args.flag("verbose") ? .verbose : .normal
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
    // The report collated for report.json is recorded as it is (events.jsonl is not read again).
    if let recorder { for note in await recorder.record(runDirectory: runner.runDirectory, report: report, pricing: fleet.pricing).notes { historyNote(note) } }
    let cost = RunCost.of(report, pricing: fleet.pricing)
    publishToCI(report, runDirectory: runner.runDirectory, annotationsOnStderr: json)
    if json {
        var summary = RunSummaryDocument(report: report, runDirectory: runner.runDirectory.path, command: "run")
        summary.cost = cost
        TerminalOutput.printJSON(try JSONNumbers.encoder().encode(summary))
    } else {
        TerminalOutput.printOut(ConsoleProgress.summary(report, runDirectory: runner.runDirectory.path),
                                color: ConsoleProgress.colorAllowed(fd: STDOUT_FILENO))
        print("cost: " + cost.summaryLine)
        if let line = TrendSummary.terminalLine(report) { print(TerminalText.sanitize(line)) }
    }
    return report.exitCode
}

/// `--quarantine FILE` (must exist), else `quarantine.json` beside the plan when it exists;
/// `--no-quarantine`: none. Warnings (entries for suites the plan lacks) go to stderr.
/// `strict` (`plan check`): an expired entry is an error; in runs it is a warning and the entry forgives nothing.
func loadQuarantine(_ args: Arguments, plan: TestPlan, strict: Bool = false) throws -> Quarantine? {
    if args.flag("no-quarantine") {
        if args.string("quarantine") != nil { throw UsageError("--quarantine and --no-quarantine contradict each other; give one of them") }
        return nil
    }
    let path: String
    if let explicit = args.string("quarantine") {
        guard FileManager.default.fileExists(atPath: explicit) else {
            throw UsageError("--quarantine \(TerminalText.sanitize(explicit)): no such file (give a quarantine file, or leave the option out; see xcfleet run --help)")
        }
        path = explicit
    } else {
        path = QuarantineLoader.defaultPath(forPlan: plan.sourcePath)
        guard FileManager.default.fileExists(atPath: path) else { return nil }
    }
    let loaded = try QuarantineLoader.load(path: path, suites: plan.suites.map(\.name), strict: strict)
    for warning in loaded.warnings { TerminalOutput.printErr("xcfleet: warning: " + warning) }
    return loaded.quarantine
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

func planCheckCommand(_ args: Arguments) throws -> Int32 {
    guard !args.positionals.isEmpty else { throw UsageError("plan check needs a PLAN file (see xcfleet plan check --help)") }
    for path in args.positionals {
        let plan = try loadPlan(path, args)
        TerminalOutput.printOut([ConsoleLine("\(path): ok — plan '\(plan.name)', \(plan.suites.count) suite\(plan.suites.count == 1 ? "" : "s"): " +
              plan.suites.map { "\($0.name) (\($0.kind.rawValue), \(suiteSource($0)))" }.joined(separator: ", "))])
        if let quarantine = try loadQuarantine(args, plan: plan, strict: true) {
            let file = args.string("quarantine") ?? QuarantineLoader.defaultPath(forPlan: plan.sourcePath)
            let next = quarantine.entries.min { $0.expires < $1.expires }
            TerminalOutput.printOut([ConsoleLine("\(file): ok — \(quarantine.entries.count) quarantined test\(quarantine.entries.count == 1 ? "" : "s")" +
                (next.map { ", first to expire: \($0.suite) \($0.test) on \($0.expires) (owner \($0.owner))" } ?? ""))])
        }
    }
    return 0
}

/// What `plan check` says a suite runs: its template (and subject), or its package (and selection).
func suiteSource(_ suite: SuiteSpec) -> String {
    if let p = suite.package {
        let narrowed = [p.filter.map { "filter \($0.count)" }, p.skip.map { "skip \($0.count)" }].compactMap { $0 }
        return "package \(p.path)" + (narrowed.isEmpty ? "" : " (" + narrowed.joined(separator: ", ") + ")")
    }
    if let x = suite.xcodeProject {
        var parts = ["scheme \(x.scheme)"]
        if let plan = x.testPlan { parts.append("test plan \(plan)") }
        if let c = x.configurations { parts.append("\(c.count) configuration\(c.count == 1 ? "" : "s"): \(c.joined(separator: ", "))") }
        if let f = x.filter { parts.append("filter \(f.count)") }
        if let k = x.skip { parts.append("skip \(k.count)") }
        return "\(x.kind.rawValue) \(x.path) (" + parts.joined(separator: ", ") + ")"
    }
    return suite.template + (suite.subject.map { ", subject \($0.module) in \($0.package)" } ?? "")
}

func renderCommand(_ args: Arguments) throws -> Int32 {
    guard args.positionals.count == 1, let out = args.string("out") else { throw UsageError("render needs one PLAN and --out DIR (see xcfleet render --help)") }
    let plan = try loadPlan(args.positionals[0], args)
    let catalog = try locateCatalog(args)
    let renderer = catalog.renderer
    let ours = try MutantSpec.all(in: catalog.root)
    // A suite with a subject takes only its own mutants (of the team's files); others ours of their template.
    func mutant(for suite: SuiteSpec, _ id: String) -> MutantSpec? {
        if let subject = suite.subject { return subject.mutants.first { $0.id == id } }
        return ours.first { $0.id == id && $0.template == suite.template }
    }
    if let id = args.string("mutant"), !plan.suites.contains(where: { mutant(for: $0, id) != nil }) {
        throw UsageError("no mutant '\(id)' for the plan's suites (under Templates/mutants, or a subject's mutants; see xcfleet render --help)")
    }
    // Each suite replaces only its own folder, proven to be strictly inside --out (RenderOutput).
    let output = RenderOutput(directory: URL(fileURLWithPath: out))
    for suite in plan.suites {
        if let package = suite.package {
            TerminalOutput.printOut([ConsoleLine("\(suite.name): package \(package.path) runs as it is (nothing to render)")])
            continue
        }
        if let project = suite.xcodeProject {
            TerminalOutput.printOut([ConsoleLine("\(suite.name): \(project.kind.rawValue) \(project.path) runs as it is (nothing to render)")])
            continue
        }
        let rendered = try renderer.render(suite, mutant: args.string("mutant").flatMap { mutant(for: suite, $0) })
        let dir = try output.write(rendered)
        TerminalOutput.printOut([ConsoleLine("\(dir.path): \(rendered.workspace.files.count) files; its tests are listed once it is built (cd \(dir.path) && swift build --build-tests && swift test list)")])
    }
    return 0
}

func reportCommand(_ args: Arguments) throws -> Int32 {
    guard args.positionals.count == 1 else { throw UsageError("report needs one RUN_DIR (see xcfleet report --help)") }
    // Named in the output as the user gave it (`report: runs/r1/`), not made absolute.
    var shown = args.positionals[0]
    while shown.count > 1 && shown.hasSuffix("/") { shown.removeLast() }
    let dir = URL(fileURLWithPath: shown)
    let report = try ReportWriter.rebuild(runDirectory: dir)
    try ReportWriter.writeAll(report, to: dir)
    if let other = args.string("compare") {
        let base = try ReportWriter.rebuild(runDirectory: URL(fileURLWithPath: other))
        TerminalOutput.printOut(try ReportWriter.writeComparison(base: base, head: report, to: dir))
    }
    if args.flag("json") {
        TerminalOutput.printJSON(try JSONNumbers.encoder().encode(RunSummaryDocument(report: report, runDirectory: shown, command: "report")))
    } else {
        TerminalOutput.printOut(ConsoleProgress.summary(report, runDirectory: shown))
        if let line = TrendSummary.terminalLine(report) { print(TerminalText.sanitize(line)) }
    }
    return report.exitCode
}

func parseCommand(_ args: Arguments) async throws -> Int32 {
    guard args.positionals.count <= 1 else { throw UsageError("parse reads one LOG (or - for stdin) (see xcfleet parse --help)") }
    let cwd = FileManager.default.currentDirectoryPath
    let roots = try (args.strings("source-root")).map { arg -> LocationMapper.SourceRoot in
        guard let root = LogParse.sourceRoot(argument: arg, currentDirectory: cwd) else {
            throw UsageError("--source-root \(arg): give HOST_PREFIX=REPO_DIR, an absolute path as the log prints it and a folder here (e.g. --source-root /Users/runner/work/app/app=.; see xcfleet parse --help)")
        }
        return root
    }
    let input: FileHandle
    var name = "stdin"
    if let path = args.positionals.first, path != "-" {
        guard let h = FileHandle(forReadingAtPath: path) else { throw UsageError("\(path): cannot read (give a log file, or - for stdin; see xcfleet parse --help)") }
        input = h
        name = path
    } else {
        input = FileHandle.standardInput
    }
    let quarantine = try args.string("quarantine").map { path -> Quarantine in
        let loaded = try QuarantineLoader.load(path: path, suites: nil)
        for warning in loaded.warnings { TerminalOutput.printErr("xcfleet: warning: " + warning) }
        // A log has one suite ("log"): every entry applies to it.
        return Quarantine(entries: loaded.quarantine.entries.map { var e = $0; e.suite = "log"; return e })
    }
    let report = await LogParse.report(reading: input, name: name, sourceRoots: roots, allowFlaky: args.flag("allow-flaky"),
                                       quarantine: quarantine)
    if let junit = args.string("junit") {
        try ReportWriter.junit(report).write(to: URL(fileURLWithPath: junit))
    }
    let json = args.flag("json")
    if ProcessInfo.processInfo.environment["GITHUB_ACTIONS"] == "true" {
        // With --json, stdout holds the one JSON document: annotations go to stderr (as for `run --json`).
        for line in GitHubAnnotations.lines(report) {
            if json { TerminalOutput.printErr(line) } else { TerminalOutput.printOut([ConsoleLine(line)]) }
        }
    }
    if json {
        TerminalOutput.printJSON(try JSONNumbers.encoder().encode(RunSummaryDocument(report: report, runDirectory: nil, command: "parse")))
    } else {
        // Each failure with its place and message first (as a reader of the log needs it), then the verdict.
        let failures = FailureListing.lines(report)
        if !failures.isEmpty { TerminalOutput.printOut(failures, color: ConsoleProgress.colorAllowed(fd: STDOUT_FILENO)) }
        TerminalOutput.printOut(Array(ConsoleProgress.summary(report, runDirectory: ".").dropLast()))
    }
    return report.exitCode
}

func hostsCleanCommand(_ args: Arguments) async throws -> Int32 {
    guard args.positionals.isEmpty else { throw UsageError("hosts clean takes no arguments, the hosts come from --fleet FILE (see xcfleet hosts clean --help)") }
    let fleet = try args.string("fleet").map { try FleetLoader.load(path: $0) } ?? .local
    let results = await HostCacheCleaner.clean(fleet.hosts)
    for r in results { TerminalOutput.printOut([ConsoleLine(HostCacheCleaner.format(r))]) }
    return results.allSatisfy { $0.problem == nil } ? 0 : Verdict.ExitCode.infrastructure
}

func hostsCheckCommand(_ args: Arguments) async throws -> Int32 {
    guard args.positionals.isEmpty else { throw UsageError("hosts check takes no arguments, the hosts come from --fleet FILE (see xcfleet hosts check --help)") }
    let fleet = try args.string("fleet").map { try FleetLoader.load(path: $0) } ?? .local
    let simulator = try args.string("destination").map { text -> XcodeDestination in
        do { return try XcodeDestination.parse(text) } catch { throw UsageError("--destination \(text): \(error) (see xcfleet hosts check --help)") }
    }
    if simulator != nil && !args.flag("deep") { throw UsageError("--destination is for --deep (see xcfleet hosts check --help)") }
    let results = await HostChecker.check(fleet.hosts, timeouts: .defaults,
                                          minimumFreeBytes: fleet.minFreeDiskBytes ?? HostProbe.defaultMinimumFreeBytes,
                                          deep: args.flag("deep"), simulator: simulator)
    if args.flag("json") {
        print(HostChecker.json(results))
    } else {
        for r in results { TerminalOutput.printOut(HostChecker.format(r).split(separator: "\n").map { ConsoleLine(String($0)) }) }
        if let recorder = try historyRecorder(args, deadline: 10) { await printHostHistory(fleet, recorder: recorder) }
    }
    return results.allSatisfy(\.ok) ? 0 : Verdict.ExitCode.infrastructure
}

func completionCommand(_ args: Arguments) throws -> Int32 {
    guard args.positionals.count == 1, let script = CompletionScript.script(for: args.positionals[0]) else {
        throw UsageError("completion needs one SHELL: \(CompletionScript.shells.joined(separator: ", ")) (see xcfleet completion --help)")
    }
    print(script, terminator: "")
    return 0
}

/// `xcfleet CMD --help` / `-h` and `xcfleet help [CMD]`, for every command in the table; nil when
/// `argv` asks for no help (or names a command the table does not know: dispatch then says so).
func help(_ argv: ArraySlice<String>) throws -> String? {
    if argv.first == "help" {
        let rest = argv.dropFirst()
        guard let first = rest.first else { return usage }
        if let spec = CommandTable.find(rest) { return spec.help }
        if let group = CommandTable.groupHelp(first) { return group }
        let suggestion = Suggestion.clause(for: first, among: CommandTable.topLevel)
        throw UsageError("no help for '\(TerminalText.sanitize(rest.joined(separator: " ")))'\(suggestion) (xcfleet --help lists the commands)")
    }
    guard let first = argv.first, !first.hasPrefix("-"), CommandTable.wantsHelp(argv) else { return nil }
    if let spec = CommandTable.find(argv) { return spec.help }
    return CommandTable.groupHelp(first)
}

func main() async -> Int32 {
    let argv = CommandLine.arguments.dropFirst()
    do {
        if let text = try help(argv) {
            print(text)
            return 0
        }
        switch argv.first {
        case "--version", "version": print("xcfleet \(XCFleet.version)"); return 0
        case "--help", "-h", "help", nil: print(usage); return argv.first == nil ? Verdict.ExitCode.usage : 0
        default: break
        }
        // One table: the words name the spec, the spec's options parse the rest, the spec runs it.
        let spec = try CommandTable.resolve(argv)
        let args = try Arguments(argv.dropFirst(spec.path.count), spec: spec)
        return try await spec.run(args)
    } catch {
        // The one place errors become text and exit codes (UserFacingErrors.report).
        let (message, code) = UserFacingErrors.report(error)
        TerminalOutput.printErr(message)
        // `--json` promises one document on stdout: a command that could not run still writes one.
        if argv.contains("--json") {
            let command = CommandTable.find(argv)?.path.joined(separator: " ") ?? argv.first ?? ""
            let problems = message.split(separator: "\n").map { line in
                line.hasPrefix("xcfleet: ") ? String(line.dropFirst("xcfleet: ".count)) : String(line)
            }
            if let data = try? JSONNumbers.encoder().encode(ProblemDocument(command: command, exitCode: code, problems: problems)) {
                TerminalOutput.printJSON(data)
            }
        }
        return code
    }
}

exit(await main())
