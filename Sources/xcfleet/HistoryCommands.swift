import Foundation
import XCFleetKit

// `xcfleet history`, `xcfleet history import`, `xcfleet flaky`, and the run's history hooks.

/// Where the history lives for these arguments (nil: off). A URL that is not `postgresql://`, or a
/// password file others can read, is bad input (`HistoryLocationError`, exit 2); a password given
/// in `--history-url` is a warning, since every user of the machine can read it in `ps`.
func historyRecorder(_ args: Arguments, deadline: Double? = nil) throws -> HistoryRecorder? {
    let runs = URL(fileURLWithPath: args.string("runs") ?? ".xcfleet/runs")
    let environment = ProcessInfo.processInfo.environment
    guard let location = try HistoryLocation.resolve(noHistory: args.flag("no-history"), url: args.string("history-url"),
                                                     database: args.string("history-db"), runsDirectory: runs,
                                                     environment: environment) else { return nil }
    if let url = args.string("history-url"), HistoryLocation.hasPassword(url) {
        TerminalOutput.printErr("xcfleet: warning: --history-url holds a password, which other users can read in ps; give it in XCFLEET_HISTORY_URL or a password file (XCFLEET_HISTORY_PASSFILE, PGPASSFILE or ~/.pgpass) instead")
    }
    var options = HistoryDatabase.Options()
    // XCFLEET_HISTORY_TIMEOUT bounds every history step (default 30 s; tests make it short).
    let limit = environment["XCFLEET_HISTORY_TIMEOUT"].flatMap(Double.init) ?? deadline ?? 30
    options.busyTimeout = min(options.busyTimeout, max(0.1, limit / 4))
    options.connectTimeout = max(2, min(options.connectTimeout, Int(limit)))
    if case .postgres = location {
        // libpq reads ~/.pgpass by itself; a named file is checked here so a loose mode is an error, not a silent skip.
        for variable in ["XCFLEET_HISTORY_PASSFILE", "PGPASSFILE"] {
            guard let path = environment[variable], !path.isEmpty else { continue }
            if let problem = HistoryDatabase.passfileProblem(path, variable: variable) { throw HistoryLocationError(TerminalText.sanitize(problem)) }
            options.passfile = path
            break
        }
    }
    let pending: URL? = if case .postgres = location { HistoryLocation.pendingFile(runsDirectory: runs) } else { nil }
    return HistoryRecorder(location: location, pendingFile: pending, options: options, deadline: limit)
}

func historyNote(_ line: String) {
    FileHandle.standardError.write(Data("xcfleet: \(line)\n".utf8))
}

func historyImportCommand(_ args: Arguments) async throws -> Int32 {
    guard !args.positionals.isEmpty else { throw UsageError("history import needs RUN_DIR… (see xcfleet history import --help)") }
    guard let recorder = try historyRecorder(args) else { throw UsageError("history is off (XCFLEET_NO_HISTORY is set; unset it to import)") }
    let store = try await openHistory(recorder)
    var failed = 0
    for path in args.positionals {
        do {
            let record = try await HistoryRecorder.load(runDirectory: URL(fileURLWithPath: path))
            try await recorder.within { try await store.record(record) }
            print("\(path): recorded run \(record.runID) (\(record.testCount) test results)")
        } catch {
            failed += 1
            historyNote("\(path): not imported — \(UserFacingErrors.message(error))")
        }
    }
    await store.close()
    return failed == 0 ? 0 : Verdict.ExitCode.usage
}

func historyCommand(_ args: Arguments) async throws -> Int32 {
    if let word = args.positionals.first {
        let suggestion = Suggestion.clause(for: word, among: ["import"])
        throw UsageError("history takes no arguments (got '\(TerminalText.sanitize(word))')\(suggestion) (see xcfleet history --help)")
    }
    guard let recorder = try historyRecorder(args) else { throw UsageError("history is off (XCFLEET_NO_HISTORY is set; unset it to list runs)") }
    let limit = args.int("limit") ?? 20
    let store = try await openHistory(recorder)
    let runs = try await recorder.within { try await store.runs(limit: limit) }
    await store.close()
    if args.flag("json") {
        TerminalOutput.printJSON(try JSONNumbers.encoder().encode(HistoryDocument(runs)))
    } else {
        print(HistoryListing.format(runs, location: recorder.location, compare: args.flag("compare")))
    }
    return 0
}

func flakyCommand(_ args: Arguments) async throws -> Int32 {
    guard args.positionals.isEmpty else { throw UsageError("flaky takes no arguments (see xcfleet flaky --help)") }
    guard let recorder = try historyRecorder(args) else { throw UsageError("history is off (XCFLEET_NO_HISTORY is set; unset it to list flaky tests)") }
    let days = args.int("days") ?? 30
    let store = try await openHistory(recorder)
    let since = Date().timeIntervalSince1970 - Double(days) * 86_400
    let rows = try await recorder.within { try await store.flakyCandidates(since: since) }
    await store.close()
    let tests = FlakyAnalysis.analyze(rows)
    if args.flag("suggest") {
        // Entries already in a quarantine file are not suggested again (an expired one only warns, as in `run`).
        let quarantined = try args.string("quarantine").map { path -> [QuarantineEntry] in
            guard FileManager.default.fileExists(atPath: path) else {
                throw UsageError("--quarantine \(TerminalText.sanitize(path)): no such file (give a quarantine file, or leave the option out)")
            }
            return try QuarantineLoader.load(path: path, suites: nil).quarantine.entries
        } ?? []
        let owner = args.string("owner")
        if let owner, !QuarantineLoader.ownerLooksReal(owner) {
            throw UsageError("--owner \(TerminalText.sanitize(owner)): name the person or team who will fix the tests (e.g. ana or @org/cache-team), not a placeholder")
        }
        print(QuarantineSuggestion.json(for: tests, minimumRate: args.double("min-rate") ?? 0.02, now: Date(), quarantined: quarantined, owner: owner))
    } else if args.flag("json") {
        TerminalOutput.printJSON(try JSONNumbers.encoder().encode(FlakyDocument(tests, days: days)))
    } else {
        print(FlakyAnalysis.format(tests, days: days))
    }
    return 0
}

func openHistory(_ recorder: HistoryRecorder) async throws -> HistoryDatabase {
    do { return try await recorder.open() } catch {
        throw HistoryCommandError(cause: error)
    }
}

/// The history could not be opened: an infrastructure failure (exit 3) that names the cause.
struct HistoryCommandError: UserFacingError {
    var cause: any Error
    var userMessage: String {
        let text = UserFacingErrors.message(cause)
        return text.hasPrefix("history") ? text : "history: \(text)"
    }
    var exitCode: Int32 { Verdict.ExitCode.infrastructure }
}

/// `hosts check`: each host's record from the history, under the live checks.
func printHostHistory(_ fleet: Fleet, recorder: HistoryRecorder) async {
    let (history, note) = await recorder.hostHistory()
    if let note { historyNote(note); return }
    for host in fleet.hosts {
        if let h = history.first(where: { $0.host == host.name }) {
            print("\(host.name): \(HostHealthGate.describe(h))")
        } else {
            print("\(host.name): history: no runs in the last \(HostHealthGate.days) days")
        }
    }
}
