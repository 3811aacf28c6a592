import XCFleetKit

/// The table of every command `xcfleet` has (see `CommandSpec`): dispatch, the help texts and the
/// completion scripts are built from it.
enum CommandTable {
    static let exitCodes = "exit codes: 0 all gates green · 1 a gate is red · 2 bad usage or invalid plan/fleet · 3 infrastructure failure · 130 interrupted"

    static let templates = CommandSpec.Option(name: "templates", value: "DIR",
                                              help: "xcfleet's root (Templates/ and Sources/CacheContract/; default: XCFLEET_HOME, then next to the binary), or a folder of your own templates, one folder of test files each",
                                              completion: .directory)

    /// Where the history lives (docs/history.md); accepted by every command that reads or writes it.
    static let historyDB = CommandSpec.Option(name: "history-db", value: "FILE", help: "the SQLite history database, a file of your own (default: .xcfleet/history.sqlite beside --runs)", completion: .file)
    static let historyURL = CommandSpec.Option(name: "history-url", value: "URL", help: "a PostgreSQL history shared by a team, postgresql://USER@HOST:5432/DB; keep the password out of it (ps shows it): use XCFLEET_HISTORY_URL or a password file (XCFLEET_HISTORY_PASSFILE, PGPASSFILE, ~/.pgpass, mode 0600)")
    static let runsDir = CommandSpec.Option(name: "runs", value: "DIR", help: "the runs directory whose history is used (default: .xcfleet/runs)", completion: .directory)

    static let commands: [CommandSpec] = [
        CommandSpec(path: ["run"], arguments: "PLAN",
                    summary: "Run a plan's suites — rendered templates or your own SwiftPM packages (\"package\": a folder) — on a fleet (the built-in local host when no fleet is given) and write the run's reports.",
                    options: [
                        .init(name: "fleet", value: "FILE", help: "fleet file naming the hosts (default: the built-in local host)", completion: .json),
                        .init(name: "runs", value: "DIR", help: "where run directories are created (default: .xcfleet/runs)", completion: .directory),
                        .init(name: "history", value: "RUN_DIR|REPORT", help: "an earlier run (or its report.json) whose durations balance shards (a package suite's discovered tests too)", completion: .jsonOrDirectory),
                        .init(name: "run-id", value: "ID", help: "name of the run directory RUNS/ID: 1-64 of A-Z a-z 0-9 . _ - (default: a fresh time-stamped id); an existing run directory is never reused"),
                        templates,
                        .flag("mutants", "also run every mutant of the plan's templates"),
                        .flag("quiet", "no progress output, only the final summary"),
                        .flag("verbose", "more progress detail"),
                        .flag("json", "print one JSON summary on stdout (implies --quiet; CI annotations go to stderr)"),
                        historyDB, historyURL,
                        .flag("no-history", "do not read or record the history database"),
                        .init(name: "quarantine", value: "FILE", help: "quarantined tests: they run, their failures do not make a gate red (default: quarantine.json beside the plan, when it exists)", completion: .json),
                        .flag("no-quarantine", "ignore the quarantine file"),
                    ],
                    positional: .json,
                    examples: ["xcfleet run Plans/cache-contract.json --fleet fleet.json",
                               "xcfleet run Ci/xcfleet.json --fleet fleet.json   # a plan whose suite names \"package\": \"..\""],
                    run: runCommand),
        CommandSpec(path: ["plan", "check"], arguments: "PLAN...",
                    summary: "Validate plans without running them (templates, subjects, packages with their filter and skip); every problem is listed with file:line:col and its JSON path. The quarantine file beside each plan (or --quarantine FILE) is checked too, expiry dates included.",
                    options: [
                        .init(name: "quarantine", value: "FILE", help: "check this quarantine file against every plan (default: quarantine.json beside each plan, when it exists)", completion: .json),
                        .flag("no-quarantine", "do not check a quarantine file"),
                        templates,
                    ], positional: .json,
                    examples: ["xcfleet plan check Plans/cache-contract.json", "xcfleet plan check Plans/my-tests.json --templates ci/templates"],
                    run: planCheckCommand),
        CommandSpec(path: ["render"], arguments: "PLAN --out DIR",
                    summary: "Write each suite of a plan as a standalone SwiftPM package, exactly as it would be pushed to a host.",
                    options: [
                        .init(name: "out", value: "DIR", help: "directory that receives one package per suite (required)", completion: .directory),
                        .init(name: "mutant", value: "ID", help: "render with this mutant (Templates/mutants, or a subject's own) applied"),
                        templates,
                    ],
                    positional: .json,
                    examples: ["xcfleet render Plans/cache-contract.json --out rendered"],
                    run: renderCommand),
        CommandSpec(path: ["hosts", "check"], arguments: "",
                    summary: "Check every host of a fleet with the probe a run admits hosts by: reachable, host key, auth, system and labels, free disk, private work root, toolchain and Xcode, CPU, latency. Exit 0 when every host passes, 3 otherwise.",
                    options: [
                        .init(name: "fleet", value: "FILE", help: "fleet file naming the hosts (default: the built-in local host)", completion: .json),
                        runsDir, historyDB, historyURL,
                        .flag("no-history", "do not show the hosts' history"),
                        .flag("json", "print one JSON document (hosts, their checks with name, ok and detail, a top-level ok) instead of lines"),
                        .flag("deep", "also run the whole test path once on a tiny generated package (build, test discovery, test run; on Apple hosts build-for-testing, -enumerate-tests, test-without-building, xcresulttool, a simulator boot with --destination) and report each step as proven or failed with its command"),
                        .init(name: "destination", value: "DEST", help: "with --deep on Apple hosts: the simulator destination to boot, e.g. 'platform=iOS Simulator,name=iPhone 16'"),
                    ],
                    positional: .none,
                    examples: ["xcfleet hosts check --fleet fleet.json", "xcfleet hosts check --fleet fleet.json --json",
                               "xcfleet hosts check --fleet fleet.json --deep --destination 'platform=iOS Simulator,name=iPhone 16'"],
                    run: hostsCheckCommand),
        CommandSpec(path: ["history"], arguments: "",
                    summary: "List recorded runs with duration, verdict and cost (docs/history.md).",
                    options: [
                        .int("limit", "N", 1...100_000, "how many recent runs (default 20)"),
                        .flag("compare", "show the change of each run against the one before"),
                        .flag("json", "print the runs as JSON"),
                        runsDir, historyDB, historyURL,
                    ],
                    positional: .none,
                    examples: ["xcfleet history --limit 10", "xcfleet history --history-url postgresql://xcfleet@db/xcfleet"],
                    run: historyCommand),
        CommandSpec(path: ["history", "import"], arguments: "RUN_DIR...",
                    summary: "Record old run directories into the history (runs already recorded are kept once).",
                    options: [runsDir, historyDB, historyURL],
                    positional: .directory,
                    examples: ["xcfleet history import .xcfleet/runs/*"],
                    run: historyImportCommand),
        CommandSpec(path: ["flaky"], arguments: "",
                    summary: "List tests by flake rate from the history, with counts, last seen, hosts and first-seen commit.",
                    options: [
                        .int("days", "N", 1...3650, "look back N days (default 30)"),
                        .double("min-rate", "RATE", 0...1, "with --suggest: the lowest flake rate to suggest (default 0.02)"),
                        .flag("suggest", "print quarantine entries to add"),
                        .init(name: "quarantine", value: "FILE", help: "with --suggest: leave out tests this quarantine file already holds", completion: .json),
                        .init(name: "owner", value: "NAME", help: "with --suggest: the person or team who will fix the tests (without it, each entry's owner is left to fill in)"),
                        .flag("json", "print the tests as JSON"),
                        runsDir, historyDB, historyURL,
                    ],
                    positional: .none,
                    examples: ["xcfleet flaky --days 14", "xcfleet flaky --suggest --owner @org/cache-team --quarantine Plans/quarantine.json"],
                    run: flakyCommand),
        CommandSpec(path: ["hosts", "clean"], arguments: "",
                    summary: "Empty every host's build cache (<workRoot>/builds) and push cache (<workRoot>/.cache); builds a running job of any xcfleet process uses stay. Exit 0 when every host was cleaned, 3 otherwise.",
                    options: [
                        .init(name: "fleet", value: "FILE", help: "fleet file naming the hosts (default: the built-in local host)", completion: .json),
                    ],
                    positional: .none,
                    examples: ["xcfleet hosts clean --fleet fleet.json"],
                    run: hostsCleanCommand),
        CommandSpec(path: ["report"], arguments: "RUN_DIR",
                    summary: "Rebuild every report of a run (report.json, junit.xml, summary.md, report.html) from its events.jsonl.",
                    options: [
                        .init(name: "compare", value: "OTHER_RUN_DIR", help: "also compare with an earlier run: what got worse, what got better", completion: .directory),
                        .flag("json", "print one JSON summary on stdout instead of the text summary"),
                    ],
                    positional: .directory,
                    examples: ["xcfleet report .xcfleet/runs/20261201-101500-ab12", "xcfleet report RUN_DIR --compare OTHER_RUN_DIR"],
                    run: reportCommand),
        CommandSpec(path: ["parse"], arguments: "[LOG|-]",
                    summary: "Parse existing xcodebuild / swift test output (a file, or stdin) and summarise it as a run would.",
                    options: [
                        .init(name: "junit", value: "FILE", help: "also write JUnit XML to FILE", completion: .file),
                        .init(name: "source-root", value: "HOST_PREFIX=REPO_DIR", help: "show paths under HOST_PREFIX as files of REPO_DIR, relative to its repository (repeatable; docs/locations.md)"),
                        .flag("json", "print the collated report as JSON on stdout (CI annotations go to stderr)"),
                        .flag("allow-flaky", "a test that failed and then passed in the log does not make the verdict red"),
                        .init(name: "quarantine", value: "FILE", help: "quarantined tests (any suite's entries apply to the log): their failures do not make the verdict red", completion: .json),
                    ],
                    positional: .file,
                    examples: ["swift test 2>&1 | xcfleet parse - --junit junit.xml"],
                    run: parseCommand),
        CommandSpec(path: ["completion"], arguments: "SHELL",
                    summary: "Print a completion script for bash, zsh or fish.",
                    options: [], positional: .words(["bash", "zsh", "fish"]),
                    examples: ["source <(xcfleet completion bash)",
                               "xcfleet completion zsh > \"${fpath[1]}/_xcfleet\"",
                               "xcfleet completion fish > ~/.config/fish/completions/xcfleet.fish"],
                    run: completionCommand),
    ]

    /// The command `argv` names (its longest path match), with how many words it took.
    static func find(_ argv: ArraySlice<String>) -> CommandSpec? {
        commands.filter { Array(argv.prefix($0.path.count)) == $0.path }.max { $0.path.count < $1.path.count }
    }

    /// The command `argv` names, or a usage error that says what is wrong with the words: an
    /// unknown command or subcommand, with the closest known word when one is near.
    static func resolve(_ argv: ArraySlice<String>) throws -> CommandSpec {
        if let spec = find(argv) { return spec }
        guard let first = argv.first else { throw UsageError("give a command (xcfleet --help lists them)") }
        if groups.contains(where: { $0.name == first }) {
            throw UsageError(unknownSubcommand(first, argv.dropFirst().first))
        }
        if first.hasPrefix("-") {
            throw UsageError("unknown option \(TerminalText.sanitize(first)) before a command\(Suggestion.clause(for: first, among: ["--help", "--version"])) (xcfleet --help lists the commands)")
        }
        let suggestion = Suggestion.clause(for: first, among: topLevel + ["help", "version"])
        throw UsageError("unknown command '\(TerminalText.sanitize(first))'\(suggestion) (xcfleet --help lists them)")
    }

    /// The message for `xcfleet GROUP` with a missing or unknown subcommand.
    static func unknownSubcommand(_ group: String, _ word: String?) -> String {
        let subs = groups.first { $0.name == group }?.commands.map { $0.path.dropFirst().joined(separator: " ") } ?? []
        let what = word.map { "unknown subcommand '\(TerminalText.sanitize($0))' for 'xcfleet \(group)'\(Suggestion.clause(for: $0, among: subs))" }
            ?? "'xcfleet \(group)' needs a subcommand"
        return "\(what) (subcommands: \(subs.joined(separator: ", ")); see xcfleet \(group) --help)"
    }

    /// First words that group subcommands (`plan`, `hosts`), with their subcommands.
    static var groups: [(name: String, commands: [CommandSpec])] {
        var out: [(String, [CommandSpec])] = []
        for c in commands where c.path.count > 1 {
            if let i = out.firstIndex(where: { $0.0 == c.path[0] }) { out[i].1.append(c) } else { out.append((c.path[0], [c])) }
        }
        return out
    }

    /// Top-level words in table order (`run`, `plan`, `render`, …).
    static var topLevel: [String] {
        var seen: [String] = []
        for c in commands where !seen.contains(c.path[0]) { seen.append(c.path[0]) }
        return seen
    }

    /// Whether `--help` or `-h` appears before a `--` separator.
    static func wantsHelp(_ argv: ArraySlice<String>) -> Bool {
        for a in argv {
            if a == "--" { return false }
            if a == "--help" || a == "-h" { return true }
        }
        return false
    }

    /// Help for a group word alone (`xcfleet hosts --help`).
    static func groupHelp(_ group: String) -> String? {
        guard let g = groups.first(where: { $0.name == group }) else { return nil }
        var lines = ["usage: xcfleet \(group) <subcommand> [options]", "", "subcommands:"]
        for c in g.commands { lines.append("  \(c.path.dropFirst().joined(separator: " ").padding(toLength: 10, withPad: " ", startingAt: 0))\(c.summary)") }
        lines.append("")
        lines.append("xcfleet \(group) <subcommand> --help shows a subcommand's options")
        return lines.joined(separator: "\n")
    }

    /// `xcfleet --help`.
    static var overview: String {
        var lines = ["usage: xcfleet <command> [options]", "", "commands:"]
        for c in commands {
            lines.append("  " + c.usageLine.dropFirst("xcfleet ".count))
            lines.append("      " + c.summary)
        }
        lines.append("  --version, --help")
        lines.append("")
        lines.append("xcfleet <command> --help shows a command's options and an example.")
        lines.append(exitCodes)
        return lines.joined(separator: "\n")
    }
}
