import Foundation

/// Folds a run's events (in `seq` order) into a `RunReport`. Pure: the same events always give
/// the same report, which is how `xcfleet report RUN_DIR` rebuilds byte-identical reports.
public struct Collator {
    /// Fault descriptions of mutants by id (for "the suite does not catch: <fault>").
    public var mutantFaults: [String: String]

    /// `xcfleet parse --source-root`: roots for paths in output that came from elsewhere.
    public var sourceRoots: [LocationMapper.SourceRoot]

    public init(mutantFaults: [String: String] = [:], sourceRoots: [LocationMapper.SourceRoot] = []) {
        self.mutantFaults = mutantFaults
        self.sourceRoots = sourceRoots
    }

    fileprivate struct AttemptBuilder {
        var report: AttemptReport
        var current: TestIdentifier?
        var ended = false
        /// Index of each test id in `report.tests`.
        var index: [TestIdentifier: Int] = [:]
        /// Failure and skip lines seen before their test's end line.
        var pendingFailures: [TestIdentifier: [FailureDetail]] = [:]
        var pendingSkips: [TestIdentifier: String] = [:]

        mutating func record(_ result: TestResult) {
            if let i = index[result.id] {
                report.tests[i] = result
            } else {
                index[result.id] = report.tests.count
                report.tests.append(result)
            }
        }

        mutating func apply(_ event: TestEvent) {
            switch event {
            case .suiteStarted, .suiteFinished, .xctestSummary, .swiftTestingSummary:
                break
            case .testStarted(let id, _):
                current = id
            case .testFinished(let id, let status, let seconds, _, let clone):
                // Failure lines usually come before the test's end line: gather them here.
                var failures = index[id].map { report.tests[$0].failures } ?? []
                failures += pendingFailures.removeValue(forKey: id) ?? []
                let skip = index[id].flatMap { report.tests[$0].skipReason } ?? pendingSkips.removeValue(forKey: id)
                record(TestResult(id: id, status: status, seconds: seconds, failures: failures, skipReason: skip, clone: clone))
                if current == id { current = nil }
            case .testFailure(let id, let file, let line, let message):
                let detail = FailureDetail(file: file, line: line, message: message)
                if let target = id ?? current {
                    if let i = index[target] { report.tests[i].failures.append(detail) }
                    else { pendingFailures[target, default: []].append(detail) }
                } else {
                    report.unattributedFailures.append(detail)
                }
            case .testSkipped(let id, let reason):
                if let target = id ?? current {
                    if let i = index[target] { report.tests[i].skipReason = reason }
                    else { pendingSkips[target] = reason ?? "" }
                }
            case .crash(let message):
                report.crashes.append(message)
            case .buildError(let file, let line, let message):
                report.buildErrors.append(FailureDetail(file: file, line: line, message: message))
            case .metric(let metric):
                report.metrics.append(metric)
            }
        }

        mutating func close() {
            // Failures printed for a test that never printed its end still count as a failed test.
            for (id, failures) in pendingFailures.sorted(by: { $0.key < $1.key }) {
                record(TestResult(id: id, status: .failed, failures: failures))
            }
            pendingFailures = [:]
        }

        /// Every location and host path in the attempt's details, as the repository names it.
        mutating func mapLocations(_ mapper: LocationMapper) {
            guard !mapper.isEmpty else { return }
            for i in report.tests.indices { report.tests[i].failures = report.tests[i].failures.map(mapper.map) }
            report.unattributedFailures = report.unattributedFailures.map(mapper.map)
            report.buildErrors = report.buildErrors.map(mapper.map)
            report.crashes = report.crashes.map(mapper.rewrite)
        }
    }

    /// One attempt's report from its parsed events alone (used by the runner to decide retries
    /// with exactly the rules the collated report applies).
    public static func attemptReport(events: [TestEvent], ended: AttemptEnded, host: String, slot: Int, number: Int) -> AttemptReport {
        var builder = AttemptBuilder(report: AttemptReport(number: number, host: host, slot: slot, start: 0, end: nil, phases: [],
                                                           termination: ended.termination, infraError: ended.infraError,
                                                           timedOutPhase: ended.timedOutPhase, tests: [], unattributedFailures: [],
                                                           crashes: [], buildErrors: [], metrics: [], problems: [], lost: false))
        for e in events { builder.apply(e) }
        builder.close()
        return builder.report
    }

    public func collate(_ events: [RunEvent]) -> RunReport {
        var start: RunStarted?
        var planned: [JobPlanned] = []
        var attempts: [AttemptRef: AttemptBuilder] = [:]
        var attemptOrder: [AttemptRef] = []
        var unschedulable: [String: String] = [:]
        var setAside: [String: String] = [:]
        var hostChanges: [HostChange] = []
        var notes: [String] = []
        var sourceMaps: [String: SourceMap] = [:]
        var hostPaths: [AttemptRef: [String]] = [:]
        var interrupted = false
        var finished = false
        var lastT = 0.0

        for event in events.sorted(by: { $0.seq < $1.seq }) {
            lastT = max(lastT, event.t)
            switch event.body {
            case .runStarted(let s):
                start = s
            case .jobPlanned(let p):
                planned.append(p)
            case .attemptStarted(let ref, let host, let slot):
                let report = AttemptReport(number: ref.attempt, host: host, slot: slot, start: event.t, end: nil, phases: [],
                                           termination: nil, infraError: nil, timedOutPhase: nil, tests: [],
                                           unattributedFailures: [], crashes: [], buildErrors: [], metrics: [],
                                           problems: [], lost: false)
                attempts[ref] = AttemptBuilder(report: report)
                attemptOrder.append(ref)
            case .phaseStarted(let ref, let phase):
                attempts[ref]?.report.phases.append(PhaseSpan(phase: phase, start: event.t, end: nil))
            case .phaseFinished(let ref, let phase):
                if let i = attempts[ref]?.report.phases.lastIndex(where: { $0.phase == phase && $0.end == nil }) {
                    attempts[ref]?.report.phases[i].end = event.t
                }
            case .test(let ref, let testEvent):
                attempts[ref]?.apply(testEvent)
            case .attemptEnded(let ref, let ended):
                attempts[ref]?.report.end = event.t
                attempts[ref]?.report.termination = ended.termination
                attempts[ref]?.report.infraError = ended.infraError
                attempts[ref]?.report.timedOutPhase = ended.timedOutPhase
                attempts[ref]?.ended = true
            case .jobUnschedulable(let jobID, let reason):
                unschedulable[jobID] = reason
            case .hostSetAside(let host, let reason):
                setAside[host] = reason
                hostChanges.append(HostChange(t: event.t, host: host, change: .setAside, reason: reason))
            case .hostProbation(let host, let reason):
                hostChanges.append(HostChange(t: event.t, host: host, change: .probation, reason: reason))
            case .hostRejoined(let host):
                setAside[host] = nil
                hostChanges.append(HostChange(t: event.t, host: host, change: .rejoined, reason: nil))
            case .note(let text):
                notes.append(text)
            case .runFinished(let wasInterrupted):
                interrupted = interrupted || wasInterrupted
                finished = true
            case .sourceMap(let jobID, let map):
                sourceMaps[jobID] = map
            case .hostPaths(let ref, let prefixes):
                hostPaths[ref, default: []] += prefixes
            }
        }
        // A run without its final event was killed: everything unfinished counts as interrupted.
        if !finished { interrupted = true }

        let expectedByJob = Dictionary(planned.map { ($0.jobID, $0.expectedTests) }, uniquingKeysWith: { a, _ in a })
        var attemptsByJob: [String: [AttemptReport]] = [:]
        for ref in attemptOrder {
            guard var builder = attempts[ref] else { continue }
            builder.close()
            builder.mapLocations(LocationMapper(sourceMap: sourceMaps[ref.jobID], hostPrefixes: hostPaths[ref] ?? [], sourceRoots: sourceRoots))
            var report = builder.report
            if !builder.ended {
                report.lost = true
                report.end = report.end ?? lastT
                if report.infraError == nil { report.infraError = interrupted ? "interrupted" : "attempt never ended" }
            } else if report.infraError != nil {
                report.lost = true
            }
            report.problems = Verdict.problems(of: report, expected: expectedByJob[ref.jobID] ?? [])
            attemptsByJob[ref.jobID, default: []].append(report)
        }
        // Flaky marking: a test that failed in an earlier attempt and passes in a later one.
        for (jobID, list) in attemptsByJob where list.count > 1 {
            var failedBefore = Set<String>()
            var updated = list
            for i in updated.indices {
                for j in updated[i].tests.indices {
                    let key = updated[i].tests[j].id.className + "/" + updated[i].tests[j].id.name
                    if updated[i].tests[j].status == .passed && failedBefore.contains(key) { updated[i].tests[j].flaky = true }
                    if updated[i].tests[j].status == .failed && !updated[i].lost { failedBefore.insert(key) }
                }
            }
            attemptsByJob[jobID] = updated
        }

        let specs = start?.suites ?? []
        var suites: [SuiteReport] = []
        var jobsByState: [String: Int] = [:]
        var totals = Totals(jobs: 0, jobsByState: [:], testsPassed: 0, testsFailed: 0, testsSkipped: 0, flakyTests: 0, attempts: 0)
        for spec in specs {
            var jobs: [JobReport] = []
            for p in planned where p.suite == spec.name {
                let list = attemptsByJob[p.jobID] ?? []
                let (state, reasons) = Verdict.finalState(planned: p, attempts: list, unschedulableReason: unschedulable[p.jobID], runInterrupted: interrupted)
                jobs.append(JobReport(planned: p, attempts: list, finalState: state, reasons: reasons))
                jobsByState[state.rawValue, default: 0] += 1
                totals.jobs += 1
                totals.attempts += list.count
                if let decisive = list.last, p.mutant == nil {
                    totals.testsPassed += decisive.tests.filter { $0.status == .passed }.count
                    totals.testsFailed += decisive.tests.filter { $0.status == .failed }.count
                    totals.testsSkipped += decisive.tests.filter { $0.status == .skipped }.count
                    totals.flakyTests += decisive.tests.filter(\.flaky).count
                }
            }
            let (status, reasons) = Verdict.suiteStatus(spec: spec, jobs: jobs, mutantFaults: mutantFaults)
            suites.append(SuiteReport(spec: spec, status: status, reasons: reasons, jobs: jobs))
        }
        totals.jobsByState = jobsByState
        let hosts = start?.hosts ?? []
        let allUnusable = !hosts.isEmpty && hosts.allSatisfy { setAside[$0] != nil }
        let (code, line) = Verdict.exitCode(suites: suites, interrupted: interrupted, unusableHosts: allUnusable ? setAside : nil)
        return RunReport(runID: start?.runID ?? "unknown", planName: start?.planName ?? "unknown",
                         planPath: start?.planPath ?? "", startedAt: start?.startedAt ?? "",
                         xcfleetVersion: start?.xcfleetVersion ?? "", duration: lastT, interrupted: interrupted,
                         hosts: hosts, hostsSetAside: setAside, suites: suites, totals: totals,
                         exitCode: code, verdictLine: line, notes: notes, forge: start?.forge,
                         hostChanges: hostChanges.isEmpty ? nil : hostChanges)
    }
}
