import Foundation
import XCFleetModel

/// One test as the reports show it: the decisive attempt's result (its last execution there), or
/// "not run" when the manifest expected it and the decisive attempt never reported it. `category`
/// is the one figure it counts in (`ReportFigures`); every renderer labels and counts by it.
package struct TestOutcome: Sendable {
    package enum Status: String, Sendable {
        case passed, failed, skipped
        case notRun = "not run"
    }

    /// A failing run of this test before its decisive execution (an earlier attempt, or earlier
    /// in the decisive attempt).
    package struct EarlierRun: Sendable {
        package var attempt: Int
        package var host: String
        package var failures: [FailureDetail]
        /// What that execution left in its attempt's attachments folder (the evidence of a failure
        /// that a later attempt passed).
        package var attachments: [AttachmentFile] = []
    }

    package var id: TestIdentifier
    package var status: Status
    package var category: TestCategory
    package var seconds: Double?
    package var failures: [FailureDetail]
    package var skipReason: String?
    /// Why it did not run (`status == .notRun`): the job's cause, without a "not run:" prefix.
    package var notRunReason: String?
    package var flaky: Bool
    package var earlier: [EarlierRun]
    package var contractIDs: [String]
    /// In the run's quarantine: reports show it apart; only `category == .quarantined` is forgiven.
    package var quarantined = false
    /// Executions of the test in the decisive attempt (1 for a test that ran once, 0 when not run).
    package var executions = 1

    package var isProblem: Bool { category.countsAgainstGate }

    /// Order of the tables: what needs a reader first (crashed, timed out, failed, not run), then
    /// quarantined failures, flaky, skipped, passed.
    package var rank: Int {
        switch category {
        case .crashed: return 0
        case .timedOut: return 1
        case .failed: return 2
        case .notRun: return 3
        case .quarantined: return 4
        case .flaky: return 5
        case .skipped: return 6
        case .passed: return 7
        }
    }
}

/// Derivations over a `RunReport` shared by every renderer, so they all tell the same story.
package enum ReportFacts {
    /// Jobs whose final state is not a success.
    /// A job that counts against its suite. A mutant job is the other way round: its gate suite
    /// must fail against it (`failed` means the mutant was killed); a mutant that passes survived.
    package static func isRed(_ job: JobReport) -> Bool {
        if job.planned.mutant != nil { return job.finalState != .failed }
        switch job.finalState {
        case .passed, .flaky: return false
        case .failed, .timedOut, .infraFailed, .unschedulable, .interrupted: return true
        }
    }

    package static func describe(_ t: CommandTermination) -> String {
        switch t {
        case .exited(let code): return "exit \(code)"
        case .signaled(let sig): return "signal \(sig)"
        case .timedOut(let which): return "timed out (\(which))"
        case .connectionLost(let why): return "connection lost: \(why)"
        case .cancelled: return "cancelled"
        }
    }

    /// `Suite/name` (manifest form) → identifier; split at the last `/`.
    package static func identifier(fromManifest name: String) -> TestIdentifier {
        guard let slash = name.lastIndex(of: "/") else { return TestIdentifier(suite: "", name: name) }
        return TestIdentifier(suite: String(name[..<slash]), name: String(name[name.index(after: slash)...]))
    }

    /// Whether an observed result is the manifest's expected test (module prefixes may differ by platform).
    package static func matches(_ observed: TestIdentifier, _ expected: TestIdentifier) -> Bool {
        if observed == expected { return true }
        return observed.name == expected.name && observed.className == expected.className
    }

    /// The job's one-line reason (for "not run" and job-level errors).
    package static func reason(_ job: JobReport) -> String {
        if job.planned.mutant != nil, job.finalState == .passed || job.finalState == .flaky, job.reasons.isEmpty {
            return "every test passed against the mutant: the suite does not catch this fault"
        }
        // Job reasons may start with the state ("unschedulable: needs combine"); callers print the
        // state themselves, so it is dropped here and never doubled.
        let state = job.finalState.rawValue + ": "
        let reasons = job.reasons.map { $0.hasPrefix(state) ? String($0.dropFirst(state.count)) : $0 }
        if let first = reasons.first, !first.isEmpty { return reasons.joined(separator: "; ") }
        if let problems = job.decisive?.problems, !problems.isEmpty { return problems.joined(separator: "; ") }
        return job.finalState.rawValue
    }

    /// Every test of a job, once each: the decisive attempt's results in the order tests first
    /// ended (a test that ran more than once shows its last execution), then expected tests it
    /// never reported, in manifest order. Each carries its `TestCategory`. Linear in tests.
    package static func outcomes(_ job: JobReport) -> [TestOutcome] {
        let decisive = job.decisive
        let observed = decisive.map { $0.lost ? [] : $0.tests } ?? []
        // Expected tests: a job plans no manifest, its decisive attempt's discovered part is the
        // one (a Swift Testing test is named as its results name it, display names with a `/` too).
        let expected: [TestIdentifier] = job.planned.expectedTests.isEmpty
            ? (decisive.flatMap { d in d.discovery.map { Verdict.discoveredRequirementIdentifiers($0, attempt: d) } } ?? [])
            : job.planned.expectedTests.map(identifier(fromManifest:))
        let unfinished = decisive?.evidence?.unfinished ?? []
        // Every identifier keyed below in ASCII (the usual case): keys compared as bytes, none made.
        let ascii = observed.allSatisfy { ASCIITestKey.fits($0.id) } && expected.allSatisfy(ASCIITestKey.fits)
            && unfinished.allSatisfy(ASCIITestKey.fits)
            && job.attempts.dropLast().allSatisfy { a in a.tests.allSatisfy { $0.status != .failed || ASCIITestKey.fits($0.id) } }
        if ascii { return outcomes(job, observed: observed, expected: expected, unfinished: unfinished, key: ASCIITestKey.init) }
        return outcomes(job, observed: observed, expected: expected, unfinished: unfinished, key: \.testKey)
    }

    /// `outcomes` with tables keyed by `key(id)`, which is equal for two ids exactly when their `testKey`s are.
    private static func outcomes<Key: Hashable>(_ job: JobReport, observed: [TestResult], expected: [TestIdentifier], unfinished: [TestIdentifier],
                                                key: (TestIdentifier) -> Key) -> [TestOutcome] {
        let decisive = job.decisive
        // Failed executions of earlier attempts, by test key.
        var earlierByKey: [Key: [TestOutcome.EarlierRun]] = [:]
        for attempt in job.attempts.dropLast() {
            for t in attempt.tests where t.status == .failed {
                earlierByKey[key(t.id), default: []].append(.init(attempt: attempt.number, host: attempt.host,
                                                                     failures: t.failures.isEmpty ? [FailureDetail(message: "failed")] : t.failures,
                                                                     attachments: t.attachments ?? []))
            }
        }
        // One key and one table lookup per execution; tables sized up front (no rehash as they grow).
        var result: [TestOutcome] = []
        result.reserveCapacity(observed.count + job.planned.expectedTests.count)
        var slot: [Key: Int] = [:]
        slot.reserveCapacity(observed.count)
        // By index, reading the fields used: no copy of each result (its strings and arrays).
        for t in observed.indices {
            let k = key(observed[t].id)
            let existing = slot[k]
            var within: [TestOutcome.EarlierRun] = []
            var executions = 1
            if let i = existing {
                let previous = result[i]
                executions = previous.executions + 1
                within = previous.earlier
                if previous.status == .failed, let d = decisive {
                    within.append(.init(attempt: d.number, host: d.host,
                                        failures: previous.failures.isEmpty ? [FailureDetail(message: "failed")] : previous.failures))
                }
            } else if !earlierByKey.isEmpty {
                within = earlierByKey[k] ?? []
            }
            let status: TestOutcome.Status
            switch observed[t].status {
            case .passed: status = .passed
            case .failed: status = .failed
            case .skipped: status = .skipped
            }
            let flaky = status == .passed && (observed[t].flaky || !within.isEmpty)
            let category = Self.category(observed[t], status: status, flaky: flaky, attempt: decisive)
            let outcome = TestOutcome(id: observed[t].id, status: status, category: category, seconds: observed[t].seconds, failures: observed[t].failures,
                                      skipReason: observed[t].skipReason, notRunReason: nil, flaky: flaky, earlier: within,
                                      contractIDs: observed[t].contractIDs, quarantined: observed[t].quarantined ?? false, executions: executions)
            if let i = existing { result[i] = outcome } else {
                slot[k] = result.count
                result.append(outcome)
            }
        }
        let unfinished = Set(unfinished.map(key))
        let timedOut = decisive.map(Self.timedOut) ?? false
        // Looks at every test of the decisive attempt: made only when a test did not run.
        var why: String?
        // Expected tests the attempt did not report (the observed ones are `slot`'s keys).
        var expectedOnly: Set<Key> = []
        for id in expected {
            let k = key(id)
            guard slot[k] == nil, expectedOnly.insert(k).inserted else { continue }
            // A test that started and never ended was running when the attempt died.
            let category: TestCategory = unfinished.contains(k) ? (timedOut ? .timedOut : .crashed) : .notRun
            if category == .notRun, why == nil { why = notRunReason(job) }
            result.append(TestOutcome(id: id, status: .notRun, category: category, seconds: nil, failures: [], skipReason: nil,
                                      notRunReason: category == .notRun ? why : (timedOut ? "running when the attempt timed out" : "running when the test process ended"),
                                      flaky: false, earlier: [], contractIDs: id.contractIDs, executions: 0))
        }
        return result
    }

    /// `outcomes` in table order: crashed, timed out, failed, not run, quarantined, flaky, skipped,
    /// passed; run order within each. One pass into a bucket per rank (linear, not a sort).
    package static func ordered(_ outcomes: [TestOutcome]) -> [TestOutcome] {
        byRank(outcomes, ranks: 8) { $0.rank }
    }

    /// `items` grouped by `rank` (0..<ranks), in their own order within a rank: linear in items.
    package static func byRank<T>(_ items: [T], ranks: Int, _ rank: (T) -> Int) -> [T] {
        var buckets = [[T]](repeating: [], count: ranks)
        for item in items { buckets[min(max(rank(item), 0), ranks - 1)].append(item) }
        var out: [T] = []
        out.reserveCapacity(items.count)
        for b in buckets { out += b }
        return out
    }

    /// The attempt ended at a deadline (its phase's or the command's own).
    package static func timedOut(_ attempt: AttemptReport) -> Bool {
        if attempt.timedOutPhase != nil { return true }
        if case .timedOut? = attempt.termination { return true }
        return false
    }

    /// The category of an observed test of `attempt` (what the figures count it as).
    package static func category(ofObserved test: TestResult, in attempt: AttemptReport) -> TestCategory {
        let status: TestOutcome.Status
        switch test.status {
        case .passed: status = .passed
        case .failed: status = .failed
        case .skipped: status = .skipped
        }
        return category(test, status: status, flaky: false, attempt: attempt)
    }

    /// The category of one observed (last) execution.
    private static func category(_ test: TestResult, status: TestOutcome.Status, flaky: Bool, attempt: AttemptReport?) -> TestCategory {
        switch status {
        case .passed: return flaky ? .flaky : .passed
        case .skipped: return .skipped
        case .notRun: return .notRun
        case .failed:
            // An execution that exceeded its time allowance (XCTest's own timeout) is a timed-out
            // test, also when xcodebuild then restarts the runner ("…, crash, or test timeout").
            if test.timedOut == true { return .timedOut }
            if Verdict.isCrash(test) { return .crashed }
            if test.unfinished == true { return attempt.map(timedOut) == true ? .timedOut : .crashed }
            if let attempt, Verdict.forgives(test, in: attempt, quarantined: test.quarantined == true) { return .quarantined }
            return .failed
        }
    }

    /// Why the job's expected tests did not run, once for all of them (no "not run:" prefix).
    package static func notRunReason(_ job: JobReport) -> String {
        guard let decisive = job.decisive else { return "\(job.finalState.rawValue): \(reason(job))" }
        if let crashed = decisive.tests.first(where: Verdict.isCrash) {
            return "the test process crashed in \(crashed.id.shortDescription)"
        }
        if let crash = decisive.crashes.first { return "the test process crashed: \(crash)" }
        if let infra = decisive.infraError { return "infrastructure: \(infra)" }
        if timedOut(decisive) { return "the attempt timed out" + (decisive.timedOutPhase.map { " in \($0.rawValue)" } ?? "") }
        if !decisive.buildErrors.isEmpty { return "the build failed" }
        if let t = decisive.termination, !t.isCleanSuccess { return "never reported (the test command ended: \(describe(t)))" }
        return "never reported by the test run"
    }

    /// Problems of a job that no test carries: infra error, timeout, crash, build errors,
    /// unattributed failures, an abnormal exit. Empty for a clean job.
    package static func jobLevelDetails(_ job: JobReport) -> [String] {
        var lines: [String] = []
        guard let d = job.decisive else {
            // Never ran: the expected tests already say "not run: <reason>" unless there are none.
            if isRed(job), job.planned.expectedTests.isEmpty { lines.append("\(job.finalState.rawValue): \(reason(job))") }
            return lines
        }
        if let infra = d.infraError { lines.append("infrastructure: \(infra)") }
        if let phase = d.timedOutPhase { lines.append("timed out in phase \(phase.rawValue)") }
        if d.lost { lines.append("attempt \(d.number) on \(d.host) did not finish normally") }
        // A crash attributed to a test is that test's row (cause first); only an unattributed one is the job's.
        if !d.tests.contains(where: Verdict.isCrash) { for c in d.crashes { lines.append("crash: \(c)") } }
        for b in d.buildErrors { lines.append("build error: \(ReportText.failureLine(b))") }
        for u in d.unattributedFailures { lines.append("failure: \(ReportText.failureLine(u))") }
        // An abnormal exit is worth a line only when no failed test explains it.
        if let t = d.termination, !t.isCleanSuccess, isRed(job), !d.tests.contains(where: { $0.status == .failed }) {
            lines.append("test command: \(describe(t))")
        }
        return lines
    }

    /// Earlier attempts that ended in an infrastructure failure (retried on another host).
    package static func infraRetries(_ job: JobReport) -> [AttemptReport] {
        job.attempts.dropLast().filter { $0.infraError != nil || $0.lost || $0.timedOutPhase != nil }
    }

    /// Short job label: `shard 1/2 · run 2/3 · mutant x`.
    package static func jobLabel(_ job: JobReport, suite: SuiteSpec) -> String {
        var parts: [String] = []
        let p = job.planned
        if p.shardCount > 1 { parts.append("shard \(p.shard &+ 1)/\(p.shardCount)") }
        if suite.repetitions > 1 { parts.append("run \(p.repetition &+ 1)/\(suite.repetitions)") }
        if let m = p.mutant { parts.append("mutant \(m)") }
        return parts.joined(separator: " · ")
    }
}

/// A table key that is equal for two identifiers exactly when their `testKey`s are, made without
/// building the key: its two parts are compared and hashed as the identifier's own bytes. Only for
/// ASCII identifiers (`fits`), where equal bytes are equal strings (Unicode equivalence plays no part).
struct ASCIITestKey: Hashable {
    let head: Substring.UTF8View
    let tail: Substring.UTF8View

    init(_ id: TestIdentifier) { (head, tail) = id.testKeyParts }

    static func fits(_ id: TestIdentifier) -> Bool { isASCII(id.suite) && isASCII(id.name) }

    private static func isASCII(_ s: String) -> Bool {
        s.utf8.withContiguousStorageIfAvailable { bytes in bytes.allSatisfy { $0 < 0x80 } } ?? false
    }

    static func == (a: ASCIITestKey, b: ASCIITestKey) -> Bool {
        a.head.count == b.head.count && a.tail.count == b.tail.count && a.head.elementsEqual(b.head) && a.tail.elementsEqual(b.tail)
    }

    func hash(into hasher: inout Hasher) {
        Self.combine(head, into: &hasher)
        hasher.combine(UInt8(ascii: "/"))
        Self.combine(tail, into: &hasher)
    }

    /// The bytes, the same way whether or not the string keeps them in one piece.
    private static func combine(_ part: Substring.UTF8View, into hasher: inout Hasher) {
        let done: Void? = part.withContiguousStorageIfAvailable { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        if done == nil { Array(part).withUnsafeBytes { hasher.combine(bytes: $0) } }
    }
}
