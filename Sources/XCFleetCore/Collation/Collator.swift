import Foundation
import XCFleetModel

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
        /// `key(current)`, made when it started.
        var currentKey = ""
        var ended = false
        /// Index of each test id's latest execution in `report.tests`; see `latest`.
        var index: [TestIdentifier: Int] = [:]
        /// Until the first lookup (a failure or skip line after its test's end, rare) the
        /// assignments are only listed, in order: no hashing per test for a lookup that never comes.
        var unindexed: [(TestIdentifier, Int)] = []
        var indexed = false
        /// Failure and skip lines seen before their test's end line.
        var pendingFailures: [TestIdentifier: [FailureDetail]] = [:]
        var pendingSkips: [TestIdentifier: String] = [:]
        /// What the runner said about itself (totals, statements, …); see `RunnerEvidence`.
        var evidence = RunnerEvidence()
        /// The index of the last backtrace frame kept; a frame index that does not grow starts
        /// another thread's (or another crash's) backtrace, which is not kept.
        var lastBacktraceFrame: Int?
        var backtraceClosed = false
        /// The attempt's `attachments` events, given to its tests when it is closed.
        var attachments = AttachmentsCollected()
        /// Executions per test key printed in the classic form and in the `… on 'Device'` form that
        /// are not yet paired: Xcode 16+ prints a UI test's result in both forms (one execution).
        var unpairedClassic = Unpaired()
        var unpairedOn = Unpaired()
        /// Tests started and not yet ended (by key), and the order tests were first started in.
        var running: [String: TestIdentifier] = [:]
        var startedOrder: [(String, TestIdentifier)] = []
        /// Per key, whether a test of that key started (`Seen.started`) and ended (`Seen.finished`):
        /// one table for both.
        var seen: [String: Seen] = [:]
        /// Tests a crash was attributed to (by key).
        var crashed: Set<String> = []
        /// The last suite end was an outermost one (`All tests` / `Selected tests`): the next
        /// `Executed …` line is a process total.
        var outermostSuiteEnded = false
        var largestXCTestSummary: RunnerCount?

        struct Seen: OptionSet {
            let rawValue: UInt8
            static let started = Seen(rawValue: 1)
            static let finished = Seen(rawValue: 2)
        }

        static func key(_ id: TestIdentifier) -> String { Verdict.testKey(id) }

        func hasFinished(_ key: String) -> Bool { seen[key]?.contains(.finished) ?? false }

        mutating func markFinished(_ key: String) { seen[key, default: []].insert(.finished) }

        mutating func setIndex(_ id: TestIdentifier, _ i: Int) {
            if indexed { index[id] = i } else { unindexed.append((id, i)) }
        }

        /// Index of the id's latest execution in `report.tests`.
        mutating func latest(_ id: TestIdentifier) -> Int? {
            if !indexed {
                indexed = true
                for (id, i) in unindexed { index[id] = i }
                unindexed = []
            }
            return index[id]
        }

        mutating func record(_ result: TestResult) {
            setIndex(result.id, report.tests.count)
            report.tests.append(result)
        }

        /// A test's end: a new execution, unless it is the second printing of one already counted.
        mutating func finish(_ id: TestIdentifier, _ status: TestStatus, _ seconds: Double?, _ framework: TestFramework, _ clone: String?) {
            // The test that started last is usually the one ending: its key is already made.
            let key = current == id ? currentKey : Self.key(id)
            let k = framework == .swiftTesting ? "st:" + key : key
            var failures = pendingFailures.isEmpty ? [] : pendingFailures.removeValue(forKey: id) ?? []
            let skip = pendingSkips.isEmpty ? nil : pendingSkips.removeValue(forKey: id)
            running[key] = nil
            markFinished(key)
            if current == id { current = nil }
            // Pair the classic `Test Case '-[M.C t]' passed` with `Test case 'C.t()' passed on '…'`.
            let other = clone == nil ? unpairedOn.first(k) : unpairedClassic.first(k)
            if framework == .xctest, let i = other {
                if clone == nil { unpairedOn.removeFirst(k) } else { unpairedClassic.removeFirst(k) }
                var merged = report.tests[i]
                if status == .failed { merged.status = .failed }
                merged.failures += failures.filter { f in !merged.failures.contains { Self.sameFailure($0, f) } }
                merged.clone = merged.clone ?? clone
                if merged.skipReason == nil { merged.skipReason = skip }
                if clone == nil { merged.id = id }   // the classic form carries the module
                report.tests[i] = merged
                setIndex(id, i)
                return
            }
            // The same assertion printed twice (a UI test's activity log and its failure line).
            var unique: [FailureDetail] = []
            for f in failures where !unique.contains(where: { Self.sameFailure($0, f) }) { unique.append(f) }
            failures = unique
            if framework == .xctest {
                if clone == nil { unpairedClassic.append(k, report.tests.count) }
                else { unpairedOn.append(k, report.tests.count) }
            }
            record(TestResult(id: id, status: status, seconds: seconds, failures: failures, skipReason: skip, clone: clone))
            switch (framework, status) {
            case (.xctest, .passed): evidence.sawXCTest.passed += 1
            case (.xctest, .failed): evidence.sawXCTest.failed += 1
            case (.xctest, .skipped): evidence.sawXCTest.skipped += 1
            case (.swiftTesting, .passed): evidence.sawSwiftTesting.passed += 1
            case (.swiftTesting, .failed): evidence.sawSwiftTesting.failed += 1
            case (.swiftTesting, .skipped): evidence.sawSwiftTesting.skipped += 1
            }
        }

        static func sameFailure(_ a: FailureDetail, _ b: FailureDetail) -> Bool { Collator.sameFailure(a, b) }

        mutating func addAttachments(_ c: AttachmentsCollected) {
            attachments.files += c.files
            attachments.leftOut += c.leftOut
        }

        mutating func apply(_ event: TestEvent) {
            switch event {
            case .suiteStarted:
                outermostSuiteEnded = false
            case .suiteFinished(let name, _):
                outermostSuiteEnded = name == "All tests" || name == "Selected tests"
            case .xctestSummary(let executed, let skipped, let failures, _, _):
                let count = RunnerCount(tests: executed, failures: failures, skipped: skipped, failed: failures > 0, overall: true)
                if outermostSuiteEnded {
                    var total = evidence.xctest.flatMap { $0.overall ? $0 : nil } ?? RunnerCount(tests: 0, failures: 0, failed: false, overall: true)
                    total.tests += count.tests
                    total.failures += count.failures
                    total.skipped += count.skipped
                    total.failed = total.failed || count.failed
                    evidence.xctest = total
                } else if largestXCTestSummary.map({ executed > $0.tests }) ?? true {
                    largestXCTestSummary = RunnerCount(tests: executed, failures: failures, skipped: skipped, failed: failures > 0, overall: false)
                }
                outermostSuiteEnded = false
            case .swiftTestingSummary(let tests, _, let passed, let issues, _):
                var total = evidence.swiftTesting ?? RunnerCount(tests: 0, failures: 0, failed: false, overall: true)
                total.tests += tests
                total.failures += passed ? 0 : (issues ?? 0)
                total.failed = total.failed || !passed
                evidence.swiftTesting = total
            case .testStarted(let id, _):
                let k = Self.key(id)
                if running[k] != nil, let died = pendingFailures[id], !died.isEmpty {
                    // Started again without an end after a crash or timeout (a relaunch, the next
                    // iteration): the execution before ended there, failed.
                    pendingFailures[id] = nil
                    pendingSkips[id] = nil
                    record(TestResult(id: id, status: .failed, failures: died))
                    evidence.failedWithoutEnd += 1
                    crashed.remove(k)
                }
                current = id
                currentKey = k
                // First start of this key (a key finished before is left out when closing).
                if seen[k, default: []].insert(.started).inserted { startedOrder.append((k, id)) }
                running[k] = id
            case .testFinished(let id, let status, let seconds, let framework, let clone):
                finish(id, status, seconds, framework, clone)
            case .testFailure(let id, let file, let line, let message):
                let detail = FailureDetail(file: file, line: line, message: message)
                if let target = id ?? current {
                    // Before its end line (or while it runs again) a failure waits for that end;
                    // after it, it belongs to the execution that just ended.
                    if running[Self.key(target)] == nil, let i = latest(target) {
                        if !report.tests[i].failures.contains(where: { Self.sameFailure($0, detail) }) {
                            report.tests[i].failures.append(detail)
                        }
                    } else {
                        pendingFailures[target, default: []].append(detail)
                    }
                } else {
                    report.unattributedFailures.append(detail)
                }
            case .testSkipped(let id, let reason):
                if let target = id ?? current {
                    if running[Self.key(target)] == nil, let i = latest(target) { report.tests[i].skipReason = reason }
                    else { pendingSkips[target] = reason ?? "" }
                }
            case .crash(let message):
                report.crashes.append(message)
                attributeCrash(message)
            case .buildError(let file, let line, let message):
                report.buildErrors.append(FailureDetail(file: file, line: line, message: message))
            case .metric(let metric):
                report.metrics.append(metric)
            case .runnerStatement(let failed, let message):
                if !failed { evidence.succeeded = true }
                else if !evidence.failureStatements.contains(message) { evidence.failureStatements.append(message) }
            case .failingTestListed(let id):
                evidence.failingTests = (evidence.failingTests ?? []) + [id]
            case .unreadableResult(let line, let text):
                evidence.unreadable.append("line \(line): \(text)")
            case .witnessDisagreement(let text):
                evidence.disagreements.append(text)
            case .backtraceFrame(let index, let symbol, let file, let line):
                // The crashed thread's frames only (the backtracer prints it first; its frames
                // without a source location are not events, so it may start past 0), a few frames.
                if backtraceClosed { break }
                if let last = lastBacktraceFrame, index <= last { backtraceClosed = true; break }
                lastBacktraceFrame = index
                let frames = report.backtrace ?? []
                if frames.count < AttemptReport.backtraceLimit, report.crashes.count <= 3 {
                    report.backtrace = frames + [FailureDetail(file: file, line: line, message: symbol)]
                }
            case .attachmentRecorded:
                break // the collect step attributes the file (`AttachmentAttribution`)
            }
        }

        /// A crash fails the test that was running (or the one xcodebuild names in `Restarting
        /// after … in Class/test()`), with the crash as its message and location where printed.
        mutating func attributeCrash(_ message: String) {
            var target: TestIdentifier?
            if let named = CrashText.restartedTest(message) {
                let k = Self.key(named)
                target = running[k] ?? (hasFinished(k) ? nil : named)
            } else if let current, running[Self.key(current)] != nil {
                target = current
            } else if running.count == 1 {
                // Tests that run concurrently (Swift Testing) end out of order: when exactly one
                // is still running, it is the one the crash stopped.
                target = running.first?.value
            }
            guard let target, !crashed.contains(Self.key(target)) else { return }
            crashed.insert(Self.key(target))
            let (file, line) = CrashText.location(message)
            pendingFailures[target, default: []].append(FailureDetail(file: file, line: line, message: "crashed: \(message)"))
        }

        mutating func close() {
            // Failures printed for a test that never printed its end still count as a failed test
            // (a crash while it ran, or an assertion line whose end line was lost).
            for (id, failures) in pendingFailures.sorted(by: { $0.key < $1.key }) {
                var unfinished = TestResult(id: id, status: .failed, failures: failures)
                unfinished.unfinished = true
                record(unfinished)
                markFinished(Self.key(id))
                evidence.failedWithoutEnd += 1
            }
            pendingFailures = [:]
            // Tests that xcodebuild's `Failing tests:` recap names and that printed no result at
            // all (a device or clone that failed to prepare, a lost end): failed.
            if let listed = evidence.failingTests {
                var seen = Set(report.tests.map { Self.key($0.id) })
                for id in listed where seen.insert(Self.key(id)).inserted {
                    record(TestResult(id: id, status: .failed, failures: [FailureDetail(message: "listed as failing by xcodebuild (no result line in the output)")]))
                    markFinished(Self.key(id))
                    evidence.failedWithoutEnd += 1
                }
            }
            evidence.unfinished = startedOrder.filter { !hasFinished($0.0) && !crashed.contains($0.0) }.map(\.1)
            if evidence.xctest == nil { evidence.xctest = largestXCTestSummary }
            // One result per test (and device), its executions counted; failed, then passed last
            // within this attempt: flaky.
            for i in report.tests.indices where report.tests[i].failures.contains(where: Collator.isTimeAllowance) {
                report.tests[i].timedOut = true
                report.tests[i].status = .failed
            }
            Collator.foldExecutions(&report.tests)
            var flakyKeys: Set<String> = []
            evidence.flakyInAttempt = report.tests.compactMap { t in
                t.flaky && flakyKeys.insert(Self.key(t.id)).inserted ? Self.key(t.id) : nil
            }
            evidence.sawSwiftTesting.distinct = Set(report.tests.filter { $0.id.suite.isEmpty }.map(\.id.name)).count
            report.evidence = evidence.isEmpty ? nil : evidence
        }

        /// Every location and host path in the attempt's details, as the repository names it.
        mutating func mapLocations(_ mapper: LocationMapper) {
            guard !mapper.isEmpty else { return }
            for i in report.tests.indices { report.tests[i].failures = report.tests[i].failures.map(mapper.map) }
            report.unattributedFailures = report.unattributedFailures.map(mapper.map)
            report.buildErrors = report.buildErrors.map(mapper.map)
            report.crashes = report.crashes.map(mapper.rewrite)
            report.backtrace = report.backtrace?.map(mapper.map)
        }
    }

    /// Indices waiting for a partner, per key, oldest first: one dictionary entry per key, and an
    /// array only for the rare key with more than one waiting (no allocation per test).
    /// Executions waiting for their twin in the other form, oldest first per key. Until the first
    /// lookup (most logs print only one form, so there never is one) they are only listed, not
    /// indexed: no hashing per test for a pairing that never comes.
    fileprivate struct Unpaired {
        var oldest: [String: Int] = [:]
        var more: [String: [Int]] = [:]
        private var listed: [(String, Int)] = []
        var indexed = false

        mutating func first(_ k: String) -> Int? {
            if !indexed { index() }
            return oldest[k]
        }

        private mutating func index() {
            indexed = true
            for (k, i) in listed { insert(k, i) }
            listed = []
        }

        mutating func append(_ k: String, _ i: Int) {
            if indexed { insert(k, i) } else { listed.append((k, i)) }
        }

        private mutating func insert(_ k: String, _ i: Int) {
            if oldest[k] == nil { oldest[k] = i } else { more[k, default: []].append(i) }
        }

        /// Only after `first(k)` returned an index.
        mutating func removeFirst(_ k: String) {
            if var rest = more[k], !rest.isEmpty {
                oldest[k] = rest.removeFirst()
                more[k] = rest.isEmpty ? nil : rest
            } else {
                oldest[k] = nil
            }
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
        // Builders by attempt: the table gives a builder's place, the last attempt seen is looked up
        // without hashing (a log's test events come in long runs of one attempt).
        var builders: [AttemptBuilder] = []
        var builderIndex: [AttemptRef: Int] = [:]
        var lastRef: AttemptRef?
        var lastIndex = 0
        func place(_ ref: AttemptRef) -> Int? {
            if ref == lastRef { return lastIndex }
            guard let i = builderIndex[ref] else { return nil }
            lastRef = ref
            lastIndex = i
            return i
        }
        var attemptOrder: [AttemptRef] = []
        var unschedulable: [String: String] = [:]
        var setAside: [String: String] = [:]
        var hostChanges: [HostChange] = []
        var notes: [String] = []
        var sourceMaps: [String: SourceMap] = [:]
        var hostPaths: [AttemptRef: [String]] = [:]
        var leases: [HostTimeline] = []
        func lease(_ host: String, _ change: (inout HostTimeline) -> Void) {
            if let i = leases.firstIndex(where: { $0.host == host }) { change(&leases[i]) } else {
                var l = HostTimeline(host: host)
                change(&l)
                leases.append(l)
            }
        }
        var quarantine: [QuarantineEntry]?
        var interrupted = false
        var finished = false
        var lastT = 0.0
        var history: HistoryContext?

        // Logs are written in `seq` order: sort (a copy of every event) only when they are not.
        let inOrder = zip(events, events.dropFirst()).allSatisfy { $0.seq < $1.seq }
        for event in inOrder ? events : events.sorted(by: { $0.seq < $1.seq }) {
            // The history context is written after the run ended: it does not lengthen the run.
            if case .historyContext = event.body {} else { lastT = max(lastT, event.t) }
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
                if let i = builderIndex[ref] { builders[i] = AttemptBuilder(report: report) } else {
                    builderIndex[ref] = builders.count
                    builders.append(AttemptBuilder(report: report))
                }
                attemptOrder.append(ref)
            case .phaseStarted(let ref, let phase):
                if let b = place(ref) { builders[b].report.phases.append(PhaseSpan(phase: phase, start: event.t, end: nil)) }
            case .phaseFinished(let ref, let phase):
                if let b = place(ref), let i = builders[b].report.phases.lastIndex(where: { $0.phase == phase && $0.end == nil }) {
                    builders[b].report.phases[i].end = event.t
                }
            case .test(let ref, let testEvent):
                if let b = place(ref) { builders[b].apply(testEvent) }
            case .attemptEnded(let ref, let ended):
                if let b = place(ref) {
                    builders[b].report.end = event.t
                    builders[b].report.termination = ended.termination
                    builders[b].report.infraError = ended.infraError
                    builders[b].report.timedOutPhase = ended.timedOutPhase
                    builders[b].ended = true
                }
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
            case .build(let ref, let record):
                if let b = place(ref) { builders[b].report.build = record }
            case .push(let ref, let record):
                if let b = place(ref) { builders[b].report.push = record }
            case .runFinished(let wasInterrupted):
                interrupted = interrupted || wasInterrupted
                finished = true
            case .sourceMap(let jobID, let map):
                sourceMaps[jobID] = map
            case .hostPaths(let ref, let prefixes):
                hostPaths[ref, default: []] += prefixes
            case .historyContext(let context):
                history = context
            case .hostAdmitted(let profile):
                lease(profile.host) { l in
                    if l.admittedAt == nil { l.admittedAt = event.t }
                    l.hostClass = profile.hostClass ?? l.hostClass
                    l.label = profile.label ?? l.label
                }
            case .hostProvisioned(let host, let seconds):
                lease(host) { l in
                    l.provisionedAt = event.t
                    l.provisionSeconds = seconds
                }
            case .quarantine(let entries):
                quarantine = entries
            case .testsDiscovered(let ref, let discovered):
                if let b = place(ref) { builders[b].report.discovery = discovered }
            case .attachments(let ref, let collected):
                if let b = place(ref) { builders[b].addAttachments(collected) }
            }
        }
        // A run without its final event was killed: everything unfinished counts as interrupted.
        if !finished { interrupted = true }

        let expectedByJob = Dictionary(planned.map { ($0.jobID, $0.expectedTests) }, uniquingKeysWith: { a, _ in a })
        // Quarantine entries per job (the real code's jobs only: a mutant must still be killed).
        let quarantinedByJob = Dictionary(planned.map { p in (p.jobID, p.mutant == nil ? (quarantine ?? []).filter { $0.suite == p.suite } : []) },
                                          uniquingKeysWith: { a, _ in a })
        var attemptsByJob: [String: [AttemptReport]] = [:]
        var closed = [Bool](repeating: false, count: builders.count)
        for ref in attemptOrder {
            // Closed in place in the list (its arrays edited, never copied), each builder once.
            guard let b = builderIndex[ref], !closed[b] else { continue }
            closed[b] = true
            builders[b].close()
            builders[b].mapLocations(LocationMapper(sourceMap: sourceMaps[ref.jobID], hostPrefixes: hostPaths[ref] ?? [], sourceRoots: sourceRoots))
            var report = builders[b].report
            builders[b].report.tests = []
            Collator.attach(builders[b].attachments, to: &report)
            if !builders[b].ended {
                report.lost = true
                report.end = report.end ?? lastT
                if report.infraError == nil { report.infraError = interrupted ? "interrupted" : "attempt never ended" }
            } else if report.infraError != nil {
                report.lost = true
            }
            let quarantined = quarantinedByJob[ref.jobID] ?? []
            if !quarantined.isEmpty {
                for i in report.tests.indices where quarantined.contains(report.tests[i].id) { report.tests[i].quarantined = true }
            }
            report.problems = Verdict.problems(of: report, expected: expectedByJob[ref.jobID] ?? [], quarantined: quarantined)
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
        for (jobID, list) in attemptsByJob where list.count > 1 { attemptsByJob[jobID] = Collator.carryingPassedIntoReruns(list) }

        let specs = start?.suites ?? []
        var suites: [SuiteReport] = []
        var jobsByState: [String: Int] = [:]
        var totals = Totals(jobs: 0, jobsByState: [:], attempts: 0)
        for spec in specs {
            var jobs: [JobReport] = []
            for p in planned where p.suite == spec.name {
                let list = attemptsByJob[p.jobID] ?? []
                let (state, reasons) = Verdict.finalState(planned: p, attempts: list, unschedulableReason: unschedulable[p.jobID], runInterrupted: interrupted,
                                                          quarantined: quarantinedByJob[p.jobID] ?? [])
                jobs.append(JobReport(planned: p, attempts: list, finalState: state, reasons: reasons))
                jobsByState[state.rawValue, default: 0] += 1
                totals.jobs += 1
                totals.attempts += list.count
            }
            let (status, reasons) = Verdict.suiteStatus(spec: spec, jobs: jobs, mutantFaults: mutantFaults)
            suites.append(SuiteReport(spec: spec, status: status, reasons: reasons, jobs: jobs))
        }
        totals.jobsByState = jobsByState
        let hosts = start?.hosts ?? []
        let allUnusable = !hosts.isEmpty && hosts.allSatisfy { setAside[$0] != nil }
        let (code, line) = Verdict.exitCode(suites: suites, interrupted: interrupted, unusableHosts: allUnusable ? setAside : nil)
        var report = RunReport(runID: start?.runID ?? "unknown", planName: start?.planName ?? "unknown",
                         planPath: start?.planPath ?? "", startedAt: start?.startedAt ?? "",
                         xcfleetVersion: start?.xcfleetVersion ?? "", duration: lastT, interrupted: interrupted,
                         hosts: hosts, hostsSetAside: setAside, suites: suites, totals: totals,
                         exitCode: code, verdictLine: line, notes: notes, forge: start?.forge,
                         hostChanges: hostChanges.isEmpty ? nil : hostChanges, hostTimelines: leases.isEmpty ? nil : leases,
                         quarantine: quarantine.map { QuarantineReport.make(entries: $0, suites: suites) })
        report.history = history
        let certificates = suites.compactMap(ContractCertificate.make)
        report.certificates = certificates.isEmpty ? nil : certificates
        ReportFigures.fill(&report)
        return report
    }
}
