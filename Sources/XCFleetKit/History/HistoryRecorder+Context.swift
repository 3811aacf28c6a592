import Foundation
import XCFleetModel
import XCFleetCore

extension HistoryRecorder {
    /// The history's view of a run that just ended (trends over the plan's last runs, known-flaky
    /// tests among its tests), queried before its reports are written. Like every recorder call it
    /// never throws and never waits past the deadline: on any problem, nil and a one-line note.
    public func context(for report: RunReport, now: Date = Date()) async -> (HistoryContext.Trends?, [HistoryContext.KnownFlaky]?, String?) {
        do {
            let store = try await open()
            defer { Task { await store.close() } }
            let plan = report.planName, runID = report.runID
            let earlier = try await within { try await store.trends(planName: plan, lastRuns: HistoryContext.window) }
            let since = now.timeIntervalSince1970 - Double(HistoryContext.flakyDays) * 86_400
            let candidates = try await within { try await store.flakyCandidates(since: since) }
            let (trends, flaky) = try await offPool { () -> (HistoryContext.Trends, [HistoryContext.KnownFlaky]) in
                (TrendRule.trends(earlier: earlier, report: report),
                 Self.knownFlaky(FlakyAnalysis.analyze(candidates.filter { $0.runID != runID }), in: report))
            }
            return (trends, flaky, nil)
        } catch {
            return (nil, nil, "history: no trends or flaky marks in this run's report (\(Self.oneLine(error)))")
        }
    }

    /// The flaky tests that this run ran (any job that is not a mutant), as the report marks them.
    public static func knownFlaky(_ tests: [FlakyTest], in report: RunReport) -> [HistoryContext.KnownFlaky] {
        guard !tests.isEmpty else { return [] }
        var ran = Set<String>()
        for suite in report.suites {
            for job in suite.jobs where job.planned.mutant == nil {
                for a in job.attempts { for t in a.tests { ran.insert(job.planned.suite + "\u{1F}" + t.id.description) } }
            }
        }
        let iso = ISO8601DateFormatter()
        iso.formatOptions = [.withInternetDateTime]
        return tests.filter { ran.contains($0.suite + "\u{1F}" + $0.test) }.map {
            HistoryContext.KnownFlaky(suite: $0.suite, test: $0.test, rate: $0.rate, flakes: $0.flakes, executions: $0.executions,
                                      lastSeen: iso.string(from: Date(timeIntervalSince1970: $0.lastSeen)))
        }.sorted { ($0.suite, $0.test) < ($1.suite, $1.test) }
    }

    /// The whole context for a run: its cost (always) and, with a history and a run that was not
    /// interrupted, trends and flaky marks.
    public static func runContext(_ report: RunReport, pricing: HistoryPricing, recorder: HistoryRecorder?) async -> (HistoryContext, String?) {
        var context = HistoryContext(cost: RunCost.compute(report, pricePerHour: pricing.perHost, defaultPrice: pricing.defaultPrice))
        // An interrupted run (Ctrl-C) does not wait for the history again: cost only.
        guard let recorder, !report.interrupted else { return (context, nil) }
        let (trends, flaky, note) = await recorder.context(for: report)
        context.trends = trends
        context.knownFlaky = flaky
        return (context, note)
    }
}
