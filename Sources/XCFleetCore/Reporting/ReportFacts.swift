import Foundation
import XCFleetModel

/// One test as the reports show it: the decisive attempt's result, or "not run" when the
/// manifest expected it and the decisive attempt never reported it.
package struct TestOutcome: Sendable {
    package enum Status: String, Sendable {
        case passed, failed, skipped
        case notRun = "not run"
    }

    /// A failing run of this test in an earlier attempt of the same job.
    package struct EarlierRun: Sendable {
        package var attempt: Int
        package var host: String
        package var failures: [FailureDetail]
    }

    package var id: TestIdentifier
    package var status: Status
    package var seconds: Double?
    package var failures: [FailureDetail]
    package var skipReason: String?
    /// Why it did not run (`status == .notRun`).
    package var notRunReason: String?
    package var flaky: Bool
    package var earlier: [EarlierRun]
    package var contractIDs: [String]
    /// In the run's quarantine: its failure does not make the gate red, and reports show it apart.
    package var quarantined = false

    package var isProblem: Bool { status == .failed || status == .notRun }
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

    /// Every test of a job: the decisive attempt's results in their order, then expected tests
    /// it never reported (as `.notRun`), in manifest order.
    package static func outcomes(_ job: JobReport) -> [TestOutcome] {
        let decisive = job.decisive
        let earlierAttempts = job.attempts.dropLast()
        var result: [TestOutcome] = []
        let observed = decisive.map { $0.lost ? [] : $0.tests } ?? []
        // Failed runs of each test in earlier attempts, looked up by identity (linear in tests).
        var earlierByID: [TestIdentifier: [TestOutcome.EarlierRun]] = [:]
        for attempt in earlierAttempts {
            for t in attempt.tests where t.status == .failed {
                earlierByID[t.id, default: []].append(.init(attempt: attempt.number, host: attempt.host,
                                                             failures: t.failures.isEmpty ? [FailureDetail(message: "failed")] : t.failures))
            }
        }
        result.reserveCapacity(observed.count)
        for test in observed {
            let earlier = earlierByID.isEmpty ? [] : earlierByID[test.id] ?? []
            let status: TestOutcome.Status
            switch test.status {
            case .passed: status = .passed
            case .failed: status = .failed
            case .skipped: status = .skipped
            }
            result.append(TestOutcome(id: test.id, status: status, seconds: test.seconds, failures: test.failures,
                                      skipReason: test.skipReason, notRunReason: nil,
                                      flaky: test.flaky || (status == .passed && !earlier.isEmpty),
                                      earlier: earlier, contractIDs: test.contractIDs, quarantined: test.quarantined ?? false))
        }
        // `matches` by class name and test name: one set of observed names, one of those listed.
        let seen: Set<String> = job.planned.expectedTests.isEmpty ? [] : Set(observed.map { $0.id.className + "/" + $0.id.name })
        var listed: Set<TestIdentifier> = []
        for name in job.planned.expectedTests {
            let id = identifier(fromManifest: name)
            if seen.contains(id.className + "/" + id.name) { continue }
            if !listed.insert(id).inserted { continue }
            let why: String
            if decisive == nil {
                why = "\(job.finalState.rawValue): \(reason(job))"
            } else if isRed(job) {
                why = reason(job)
            } else {
                why = "never reported by the test run"
            }
            result.append(TestOutcome(id: id, status: .notRun, seconds: nil, failures: [], skipReason: nil,
                                      notRunReason: why, flaky: false, earlier: [], contractIDs: id.contractIDs))
        }
        return result
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
        for c in d.crashes { lines.append("crash: \(c)") }
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
