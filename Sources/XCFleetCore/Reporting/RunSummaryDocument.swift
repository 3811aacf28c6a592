import Foundation
import XCFleetModel

/// The verdict as every `--json` document carries it (docs/xcfleet-json.schema.json, `verdict`).
public struct JSONVerdict: Codable, Equatable, Sendable {
    public var exitCode: Int32
    /// `GREEN`, `RED`, `NOT RUN`, `INTERRUPTED` (`Verdict.headline`).
    public var word: String
    /// The one-line verdict (`all 2 gates green`, or why not).
    public var line: String
    public var interrupted: Bool

    public init(exitCode: Int32, line: String, interrupted: Bool = false) {
        self.exitCode = exitCode
        self.word = Verdict.headline(exitCode: exitCode).word
        self.line = line
        self.interrupted = interrupted
    }

    public init(_ report: RunReport) {
        self.init(exitCode: report.exitCode, line: report.verdictLine, interrupted: report.interrupted)
    }
}

/// Numbers in `--json` documents: durations in seconds rounded to the millisecond (no
/// `0.10400000000000004`), times as ISO-8601 UTC text.
public enum JSONNumbers {
    public static func seconds(_ value: Double) -> Double {
        guard value.isFinite else { return 0 }
        return (value * 1000).rounded() / 1000
    }

    public static func iso8601(epoch: Double) -> String {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime]
        f.timeZone = TimeZone(identifier: "UTC")
        return f.string(from: Date(timeIntervalSince1970: epoch))
    }

    /// The encoder of every `--json` document: sorted keys, one line, `/` unescaped.
    public static func encoder() -> JSONEncoder {
        let e = JSONEncoder()
        e.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        e.nonConformingFloatEncodingStrategy = .convertToString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        return e
    }
}

/// `run --json`, `report --json` and `parse --json`: one document on stdout with the run's verdict,
/// its figures (the same as every report's), each suite's, and the list of red tests.
public struct RunSummaryDocument: Encodable, Sendable {
    public static let currentSchemaVersion = 1

    /// A red test: failed, crashed, timed out or not run (`TestCategory.countsAgainstGate`).
    public struct Failure: Codable, Equatable, Sendable {
        public var suite: String
        public var job: String
        public var host: String?
        public var test: String
        public var category: String
        public var message: String?
        /// `file:line` as the repository names it, where known.
        public var location: String?
        /// A crashed test's backtrace excerpt (frames in the repository first).
        public var backtrace: String?
    }

    public struct Suite: Encodable, Sendable {
        var name: String
        var kind: SuiteKind
        var status: SuiteStatus
        var reasons: [String]
        var figures: TestFigures
    }

    public var schemaVersion = RunSummaryDocument.currentSchemaVersion
    /// `run`, `report` or `parse`.
    public var command: String
    public var runID: String
    public var runDirectory: String?
    /// ISO-8601 start of the run, as `events.jsonl` records it.
    public var startedAt: String
    public var durationSeconds: Double
    public var verdict: JSONVerdict
    public var figures: TestFigures
    public var jobs: Int
    public var attempts: Int
    public var jobsByState: [String: Int]
    public var suites: [Suite]
    public var failures: [Failure]
    /// Host-seconds by phase and price (fleet `pricePerHour`), `run` only.
    public var cost: RunCost?
    /// Trend regressions against the recent median (absent when none or no history).
    public var regressions: [String]?

    public init(report: RunReport, runDirectory: String?, command: String = "run") {
        self.command = command
        runID = report.runID
        self.runDirectory = runDirectory
        startedAt = report.startedAt
        durationSeconds = JSONNumbers.seconds(report.duration)
        verdict = JSONVerdict(report)
        figures = report.totals.tests
        jobs = report.totals.jobs
        attempts = report.totals.attempts
        jobsByState = report.totals.jobsByState
        regressions = report.history?.trends.flatMap { $0.regressions.isEmpty ? nil : $0.regressions }
        suites = report.suites.map { Suite(name: $0.spec.name, kind: $0.spec.kind, status: $0.status, reasons: $0.reasons, figures: $0.figures ?? TestFigures()) }
        var failures: [Failure] = []
        for suite in report.suites {
            for job in suite.jobs where job.planned.mutant == nil {
                for o in ReportFacts.ordered(ReportFacts.outcomes(job)) where o.category.countsAgainstGate {
                    let first = o.failures.first
                    var message = first?.message ?? o.notRunReason
                    if message?.hasPrefix("crashed: ") == true { message?.removeFirst("crashed: ".count) }
                    failures.append(Failure(suite: suite.spec.name, job: job.planned.jobID, host: job.decisive?.host, test: o.id.description,
                                            category: o.category.rawValue, message: message,
                                            location: first.flatMap(ReportText.location),
                                            backtrace: o.category == .crashed ? ReportText.backtraceExcerpt(job.decisive?.backtrace) : nil))
                }
            }
        }
        self.failures = failures
    }
}

/// What a command that could not start writes with `--json` (exit 2: bad input; exit 3:
/// infrastructure): the verdict and every problem, so a tool reading stdout always gets a document.
public struct ProblemDocument: Encodable, Sendable {
    public var schemaVersion = RunSummaryDocument.currentSchemaVersion
    public var command: String
    public var verdict: JSONVerdict
    public var problems: [String]

    public init(command: String, exitCode: Int32, problems: [String]) {
        self.command = command
        verdict = JSONVerdict(exitCode: exitCode, line: problems.first ?? "not run")
        self.problems = problems
    }
}

/// `history --json`: the recorded runs, newest first, each with the verdict object of every document.
public struct HistoryDocument: Encodable, Sendable {
    public struct Run: Encodable, Sendable {
        var runID: String
        var planName: String
        var startedAt: String
        var durationSeconds: Double
        var verdict: JSONVerdict
        var gitCommit: String?
        var hostSeconds: Double?
        var cost: Double?
        var buildSeconds: Double?
        /// Test results recorded for the run (executions).
        var tests: Int
        /// The run's figures, as its reports printed them (absent for runs recorded before they were kept).
        var figures: TestFigures?
    }

    public var schemaVersion = RunSummaryDocument.currentSchemaVersion
    public var command = "history"
    public var runs: [Run]

    public init(_ runs: [HistoryRun]) {
        self.runs = runs.map { r in
            Run(runID: r.runID, planName: r.planName, startedAt: r.startedAt, durationSeconds: JSONNumbers.seconds(r.duration),
                verdict: JSONVerdict(exitCode: Int32(clamping: r.exitCode), line: r.verdict, interrupted: r.interrupted),
                gitCommit: r.gitCommit, hostSeconds: r.hostSeconds.map(JSONNumbers.seconds), cost: r.cost.map { ($0 * 10_000).rounded() / 10_000 },
                buildSeconds: r.buildSeconds.map(JSONNumbers.seconds), tests: r.tests, figures: r.figures)
        }
    }
}

/// `flaky --json`: tests by flake rate, with ISO-8601 times.
public struct FlakyDocument: Encodable, Sendable {
    public struct Test: Encodable, Sendable {
        var suite: String
        var test: String
        var executions: Int
        var flakes: Int
        var withinRun: Int
        var acrossRuns: Int
        /// Flakes over executions, rounded to 4 decimals.
        var rate: Double
        var lastSeen: String
        var hosts: [String]
        var firstSeenCommit: String?
    }

    public var schemaVersion = RunSummaryDocument.currentSchemaVersion
    public var command = "flaky"
    public var days: Int
    public var tests: [Test]

    public init(_ tests: [FlakyTest], days: Int) {
        self.days = days
        self.tests = tests.map { t in
            Test(suite: t.suite, test: t.test, executions: t.executions, flakes: t.flakes, withinRun: t.withinRun, acrossRuns: t.acrossRuns,
                 rate: (t.rate * 10_000).rounded() / 10_000, lastSeen: JSONNumbers.iso8601(epoch: t.lastSeen), hosts: t.hosts,
                 firstSeenCommit: t.firstSeenCommit)
        }
    }
}
