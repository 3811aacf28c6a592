import Foundation
import XCFleetModel

/// What changed between two runs of a plan: new failures, fixed tests, newly flaky tests,
/// tests that got slower, and probe metric changes. Pure; built by `compare`.
///
/// Tests are matched by suite name + `Suite/test` (+ mutant); a test's status in a run is the
/// worst over its decisive results on every host (failed/not run > flaky > passed > skipped).
public struct RunComparison: Equatable, Codable, Sendable {
    public struct TestChange: Equatable, Codable, Sendable {
        public var suite: String
        public var test: String
        /// Status in each run (`passed`, `failed`, `not run`, `flaky`, `skipped`, `absent`).
        public var baseStatus: String
        public var headStatus: String
        /// The head run's first failure as `file:line: message` (new failures only).
        public var message: String?
    }

    public struct TimingChange: Equatable, Codable, Sendable {
        public var suite: String
        public var test: String
        /// Mean seconds over the run's passing results.
        public var baseSeconds: Double
        public var headSeconds: Double
        /// `head / base - 1`.
        public var relative: Double
    }

    public struct MetricChange: Equatable, Codable, Sendable {
        public var suite: String
        public var metric: String
        public var unit: String
        public var host: String
        /// Labels without the repetition label, `key=value` sorted by key.
        public var labels: String
        /// Mean over repetitions (nil: absent in that run).
        public var baseMean: Double?
        public var headMean: Double?
        public var delta: Double?
        public var relative: Double?
    }

    /// Build cost in each run (nil when neither recorded builds).
    public struct BuildChange: Equatable, Codable, Sendable {
        public var baseCompileSeconds: Double
        public var headCompileSeconds: Double
        public var base: String
        public var head: String
    }

    public var builds: BuildChange? = nil
    /// Cost and build-phase host-seconds of both runs (from their `historyContext` events); nil
    /// when neither run has one.
    public var cost: CostChange? = nil

    public struct CostChange: Equatable, Codable, Sendable {
        public var baseHostSeconds: Double?
        public var headHostSeconds: Double?
        public var baseCost: Double?
        public var headCost: Double?
        /// Host-seconds in the `build` phase.
        public var baseBuildSeconds: Double?
        public var headBuildSeconds: Double?
        public var currency: String
    }
    public var baseRunID: String
    public var headRunID: String
    public var baseExitCode: Int32
    public var headExitCode: Int32
    /// Each run's figures (`Totals.tests`), as its own reports print them.
    public var baseFigures: TestFigures
    public var headFigures: TestFigures
    /// `newFailures` by the head run's category.
    public var newlyRed: TestFigures
    public var newFailures: [TestChange]
    public var fixed: [TestChange]
    public var newlyFlaky: [TestChange]
    public var slower: [TimingChange]
    public var metricChanges: [MetricChange]
    public var slowerThreshold: Double
    public var minimumSlowerSeconds: Double

    /// Compares `head` against `base`. A test is slower when its mean duration grew by more
    /// than `slowerThreshold` (relative) and by at least `minimumSlowerSeconds`.
    public static func compare(base: RunReport, head: RunReport, slowerThreshold: Double = 0.2,
                               minimumSlowerSeconds: Double = 0.05) -> RunComparison {
        let b = TestIndex(base), h = TestIndex(head)
        var newFailures: [TestChange] = [], fixed: [TestChange] = [], flaky: [TestChange] = [], slower: [TimingChange] = []
        for key in Set(b.entries.keys).union(h.entries.keys).sorted() {
            let be = b.entries[key], he = h.entries[key]
            let bs = be?.status ?? .absent, hs = he?.status ?? .absent
            let suite = he?.suite ?? be?.suite ?? ""
            let test = he?.test ?? be?.test ?? key
            if hs.isRed && !bs.isRed {
                newFailures.append(TestChange(suite: suite, test: test, baseStatus: bs.rawValue, headStatus: hs.rawValue, message: he?.message))
            } else if bs.isRed && (hs == .passed || hs == .flaky) {
                fixed.append(TestChange(suite: suite, test: test, baseStatus: bs.rawValue, headStatus: hs.rawValue, message: nil))
            }
            if hs == .flaky && bs != .flaky {
                flaky.append(TestChange(suite: suite, test: test, baseStatus: bs.rawValue, headStatus: hs.rawValue, message: nil))
            }
            if let bt = be?.meanSeconds, let ht = he?.meanSeconds, bt > 0, ht - bt >= minimumSlowerSeconds, ht / bt - 1 > slowerThreshold {
                slower.append(TimingChange(suite: suite, test: test, baseSeconds: bt, headSeconds: ht, relative: ht / bt - 1))
            }
        }
        slower.sort { $0.relative != $1.relative ? $0.relative > $1.relative : ($0.suite, $0.test) < ($1.suite, $1.test) }

        var metrics: [MetricChange] = []
        var bm: [String: ProbeSummary.Series] = [:], hm: [String: ProbeSummary.Series] = [:]
        func key(_ s: ProbeSummary.Series) -> String { [s.suite, s.name, s.unit, s.host, s.labelText].joined(separator: "\u{1}") }
        // Order: the head run's series as its charts show them (sizes numerically), then base-only ones.
        var order: [String] = []
        for g in ProbeSummary(head).groups { for s in g.series { hm[key(s)] = s; order.append(key(s)) } }
        for g in ProbeSummary(base).groups {
            for s in g.series {
                bm[key(s)] = s
                if hm[key(s)] == nil { order.append(key(s)) }
            }
        }
        for k in order {
            guard let any = hm[k] ?? bm[k] else { continue }
            let bmean = bm[k].map(\.mean).flatMap { $0.isFinite ? $0 : nil }
            let hmean = hm[k].map(\.mean).flatMap { $0.isFinite ? $0 : nil }
            var delta: Double?, rel: Double?
            if let x = bmean, let y = hmean {
                delta = y - x
                rel = x != 0 ? y / x - 1 : nil
            }
            metrics.append(MetricChange(suite: any.suite, metric: any.name, unit: any.unit, host: any.host, labels: any.labelText,
                                        baseMean: bmean, headMean: hmean, delta: delta, relative: rel))
        }
        var newlyRed = TestFigures()
        for change in newFailures { if let c = TestCategory(rawValue: change.headStatus) { newlyRed[c] += 1 } }
        var comparison = RunComparison(baseRunID: base.runID, headRunID: head.runID, baseExitCode: base.exitCode, headExitCode: head.exitCode,
                                       baseFigures: base.totals.tests, headFigures: head.totals.tests, newlyRed: newlyRed,
                                       newFailures: newFailures, fixed: fixed, newlyFlaky: flaky, slower: slower, metricChanges: metrics,
                                       slowerThreshold: slowerThreshold, minimumSlowerSeconds: minimumSlowerSeconds)
        let bb = BuildSummary(base), hb = BuildSummary(head)
        if !bb.rows.isEmpty || !hb.rows.isEmpty {
            comparison.builds = BuildChange(baseCompileSeconds: bb.compileSeconds, headCompileSeconds: hb.compileSeconds, base: bb.line, head: hb.line)
        }
        let bc = base.history?.cost, hc = head.history?.cost
        if bc != nil || hc != nil {
            comparison.cost = CostChange(baseHostSeconds: bc?.hostSeconds, headHostSeconds: hc?.hostSeconds, baseCost: bc?.total, headCost: hc?.total,
                                         baseBuildSeconds: bc.map { $0.byPhase["build"] ?? 0 }, headBuildSeconds: hc.map { $0.byPhase["build"] ?? 0 },
                                         currency: hc?.currency ?? bc?.currency ?? "USD")
        }
        return comparison
    }

    /// Nothing got worse: no new failure, no newly flaky test, no slower test.
    public var isClean: Bool { newFailures.isEmpty && newlyFlaky.isEmpty && slower.isEmpty }
}

/// Per-run index of test outcomes for comparison: each test's `TestCategory` (the worst over the
/// suite's jobs, e.g. repetitions), as the run's figures count it.
private struct TestIndex {
    enum Status: Equatable {
        case absent
        case test(TestCategory)
        var rawValue: String {
            switch self {
            case .absent: return "absent"
            case .test(let c): return c.rawValue
            }
        }
        var isRed: Bool { if case .test(let c) = self { return c.countsAgainstGate } else { return false } }
        var rank: Int {
            switch self {
            case .absent: return 0
            case .test(let c):
                switch c {
                case .skipped: return 1
                case .passed: return 2
                case .quarantined: return 3
                case .flaky: return 4
                case .notRun: return 5
                case .timedOut: return 6
                case .failed: return 7
                case .crashed: return 8
                }
            }
        }
        static let passed = Status.test(.passed), flaky = Status.test(.flaky), failed = Status.test(.failed)
    }

    struct Entry {
        package var suite: String
        package var test: String
        package var status: Status = .absent
        package var message: String?
        package var seconds: [Double] = []
        package var meanSeconds: Double? { seconds.isEmpty ? nil : seconds.reduce(0, +) / Double(seconds.count) }
    }

    var entries: [String: Entry] = [:]

    init(_ report: RunReport) {
        for suite in report.suites {
            for job in suite.jobs {
                if let mutant = job.planned.mutant {
                    let test = "mutant \(mutant)"
                    let k = suite.spec.name + "\u{1}" + test
                    var e = entries[k] ?? Entry(suite: suite.spec.name, test: test)
                    let s: Status = ReportFacts.isRed(job) ? .failed : .passed
                    if s.rank > e.status.rank { e.status = s; e.message = ReportFacts.isRed(job) ? ReportFacts.reason(job) : nil }
                    entries[k] = e
                    continue
                }
                for o in ReportFacts.outcomes(job) {
                    let test = o.id.description
                    let k = suite.spec.name + "\u{1}" + test
                    var e = entries[k] ?? Entry(suite: suite.spec.name, test: test)
                    let s = Status.test(o.category)
                    if s.rank > e.status.rank {
                        e.status = s
                        if o.status == .failed { e.message = o.failures.first.map(ReportText.failureLine) ?? "failed" }
                        if o.status == .notRun { e.message = o.notRunReason }
                    }
                    if o.status == .passed, let sec = o.seconds, sec.isFinite, sec >= 0 { e.seconds.append(sec) }
                    entries[k] = e
                }
            }
        }
    }
}
