import Foundation
import XCFleetModel

/// The rules that decide green and red (DESIGN decision 6). Pure functions over collated values.
public enum Verdict {
    /// Exit codes, documented in the README.
    public enum ExitCode {
        public static let green: Int32 = 0
        public static let gateRed: Int32 = 1
        public static let usage: Int32 = 2
        public static let infrastructure: Int32 = 3
        public static let interrupted: Int32 = 130
    }

    /// Why an attempt is not proven green; empty means green. `expected` lists `Class/test`
    /// names from the manifest; they are matched by class name (module prefix ignored) and test name.
    /// `quarantined`: the suite's quarantine entries; their tests' own failed executions are forgiven
    /// (docs/history.md, "Quarantine"), nothing else is.
    /// No job xcfleet plans carries a manifest (`expected` is empty; event logs written before
    /// discovery may): its attempt's discovered part (`AttemptReport.discovery`) is what must pass
    /// instead (`discoveredRequirement`).
    public static func problems(of attempt: AttemptReport, expected planned: [String], quarantined: [QuarantineEntry] = []) -> [String] {
        var out: [String] = []
        var expected = planned
        if planned.isEmpty, let discovery = attempt.discovery {
            if let problem = discovery.problem { out.append("test discovery: \(problem)") }
            expected = discoveredRequirement(discovery, attempt: attempt)
        }
        if let infra = attempt.infraError { out.append("infrastructure: \(infra)") }
        if let phase = attempt.timedOutPhase { out.append("timed out in phase \(phase.rawValue)") }
        let observed = attempt.tests
        let crashedEarly = !attempt.crashes.isEmpty && !observed.contains { $0.status == .passed || $0.status == .failed }
        if crashedEarly {
            out.append("crashed before tests ran: \(attempt.crashes[0])")
        } else if !attempt.crashes.isEmpty {
            out.append("test process crashed: \(attempt.crashes[0])")
        }
        if !attempt.buildErrors.isEmpty {
            let first = attempt.buildErrors[0]
            out.append("build error: \(location(first))\(first.message)")
        }
        // A failed execution followed by a passing one of the same test is flaky, not failed.
        let recovered = Set(attempt.evidence?.flakyInAttempt ?? [])
        let failedAll = observed.filter { $0.status == .failed && !recovered.contains(testKey($0.id)) }
        let failed = failedAll.filter { !forgives($0, in: attempt, quarantined: quarantined.contains($0.id)) }
        let forgiven = quarantineForgives(attempt, quarantined: quarantined)
        if !failed.isEmpty {
            out.append(redTestsLine(failed, in: attempt))
        } else if !attempt.unattributedFailures.isEmpty {
            out.append("failure reported: \(location(attempt.unattributedFailures[0]))\(attempt.unattributedFailures[0].message)")
        }
        switch attempt.termination {
        case .exited(0)?: break
        case .exited(let code)?:
            // 1 (swift test, xctest) and 65 (xcodebuild): "tests failed", here only quarantined ones.
            if !(forgiven && (code == 1 || code == 65)) { out.append("test process exited with status \(code)") }
        case .signaled(let sig)?:
            out.append("test process killed by signal \(sig)")
        case .timedOut(let which)?:
            if attempt.timedOutPhase == nil { out.append("timed out (\(which) deadline)") }
        case .connectionLost(let why)?:
            if attempt.infraError == nil { out.append("connection lost: \(why)") }
        case .cancelled?:
            out.append("cancelled")
        case nil:
            if attempt.infraError == nil && attempt.timedOutPhase == nil { out.append("test command never completed") }
        }
        // Every expected test must be observed passing (skips do not count as passes).
        let passed: Set<String> = expected.isEmpty ? [] : Set(observed.lazy.filter { $0.status == .passed }.map { key($0.id.className, $0.id.name) })
        // A discovered manifest keys each test as its results do (a display name may hold a `/`).
        let discoveredKeys = planned.isEmpty ? attempt.discovery.map(discoveredRequirementKeys) ?? [:] : [:]
        let missing = expected.filter { name in
            if let k = discoveredKeys[name] { return !passed.contains(k) }
            let parts = name.split(separator: "/", maxSplits: 1).map(String.init)
            guard parts.count == 2 else { return !passed.contains(key("", name)) }
            let cls = parts[0].split(separator: ".").last.map(String.init) ?? parts[0]
            return !passed.contains(key(cls, parts[1]))
        }
        let failedKeys: Set<String> = missing.isEmpty ? [] : Set(failedAll.map { key($0.id.className, $0.id.name) })
        let notRun = missing.filter { name in
            if let k = discoveredKeys[name] { return !failedKeys.contains(k) }
            let parts = name.split(separator: "/", maxSplits: 1).map(String.init)
            let cls = parts.first.flatMap { $0.split(separator: ".").last.map(String.init) } ?? ""
            return !failedKeys.contains(key(cls, parts.last ?? name))
        }
        if !notRun.isEmpty && !crashedEarly {
            out.append("\(notRun.count) expected test\(notRun.count == 1 ? " was" : "s were") not seen passing: \(notRun.prefix(3).joined(separator: ", "))\(notRun.count > 3 ? ", …" : "")")
        }
        out += evidenceProblems(attempt, quarantineOnly: forgiven)
        if expected.isEmpty && observed.isEmpty && out.isEmpty && attempt.discovery?.emptyShard != true {
            out.append("no tests ran")
        }
        return out
    }

    /// How a job ended, from its attempts (oldest first).
    /// `quarantined`: the suite's quarantine entries (a quarantined test failing, then passing, is not flaky here).
    public static func finalState(planned: JobPlanned, attempts: [AttemptReport], unschedulableReason: String?, runInterrupted: Bool,
                                  quarantined: [QuarantineEntry] = []) -> (JobFinalState, [String]) {
        if let reason = unschedulableReason { return (.unschedulable, ["unschedulable: \(reason)"]) }
        guard let last = attempts.last else {
            return runInterrupted ? (.interrupted, ["interrupted before it started"]) : (.interrupted, ["never started"])
        }
        if (last.lost && runInterrupted) || last.termination == .cancelled {
            return (.interrupted, ["interrupted during attempt \(last.number) on \(last.host)"])
        }
        if last.problems.isEmpty {
            if let line = flakyAcrossAttempts(attempts, quarantined: quarantined) { return (.flaky, [line]) }
            if let flaky = last.evidence?.flakyInAttempt.filter({ !quarantined.contains(key: $0) }), !flaky.isEmpty {
                return (.flaky, [flakyWithinAttempt(flaky, attempt: last.number)])
            }
            return (.passed, [])
        }
        if last.timedOutPhase != nil || { if case .timedOut? = last.termination { return true } else { return false } }() {
            return (.timedOut, last.problems)
        }
        if last.infraError != nil || last.lost {
            return (.infraFailed, ["infra-failed after \(attempts.count) attempt\(attempts.count == 1 ? "" : "s"): " + (last.problems.first ?? "host lost")])
        }
        return (.failed, last.problems)
    }

    /// A suite's status from its jobs. Mutant jobs pass the suite only when they fail (the mutant is killed).
    public static func suiteStatus(spec: SuiteSpec, jobs: [JobReport], mutantFaults: [String: String]) -> (SuiteStatus, [String]) {
        var reasons: [String] = []
        let real = jobs.filter { $0.planned.mutant == nil }
        let mutants = jobs.filter { $0.planned.mutant != nil }
        if !jobs.isEmpty, jobs.allSatisfy({ $0.finalState == .unschedulable }) {
            // The status already says "unschedulable"; the reasons say what is needed.
            let needs = jobs.flatMap(\.reasons).map { $0.hasPrefix("unschedulable: ") ? String($0.dropFirst("unschedulable: ".count)) : $0 }
            return (.unschedulable, Array(Set(needs)).sorted())
        }
        if jobs.contains(where: { $0.finalState == .interrupted }) {
            return (.interrupted, ["the run was interrupted"])
        }
        if spec.kind == .probe {
            let ok = real.contains { $0.finalState == .passed || $0.finalState == .failed || $0.finalState == .flaky }
            return ok ? (.measured, []) : (.incomplete, real.flatMap(\.reasons))
        }
        for job in real {
            switch job.finalState {
            case .passed: break
            case .flaky:
                if !spec.allowFlaky {
                    // The job's reason names the flaky tests and their attempts.
                    if let within = job.reasons.first(where: { $0.hasPrefix("flaky: ") }) {
                        reasons.append("\(label(job)): \(within) (the plan does not allow flaky)")
                    } else {
                        reasons.append("\(label(job)): flaky (the plan does not allow flaky)")
                    }
                }
            case .failed, .timedOut, .infraFailed, .unschedulable, .interrupted:
                reasons.append(contentsOf: job.reasons.map { "\(label(job)): \($0)" })
            }
        }
        for job in mutants {
            let id = job.planned.mutant ?? "?"
            switch job.finalState {
            case .failed where job.decisive?.discovery?.problem != nil:
                // No tests were listed, so none ran: that kills nothing.
                reasons.append("mutant \(id) could not be checked: test discovery: \(job.decisive?.discovery?.problem ?? "")")
            case .failed: break // killed
            case .passed, .flaky:
                reasons.append("the suite does not catch: \(job.planned.mutantFault ?? mutantFaults[id] ?? id) (mutant \(id) survived)")
            case .timedOut, .infraFailed, .unschedulable, .interrupted:
                reasons.append("mutant \(id) could not be checked: \(job.reasons.first ?? job.finalState.rawValue)")
            }
        }
        if jobs.isEmpty { reasons.append("no jobs were planned") }
        return (reasons.isEmpty ? .green : .red, reasons)
    }

    /// The run's exit code and one-line verdict. Probes never change it.
    /// `unusableHosts`: every host of the fleet was set aside (host → reason); nil when some host worked.
    public static func exitCode(suites: [SuiteReport], interrupted: Bool, unusableHosts: [String: String]? = nil) -> (Int32, String) {
        if interrupted { return (ExitCode.interrupted, "interrupted: partial report") }
        let gates = suites.filter { $0.spec.kind == .gate }
        let red = gates.filter { $0.status == .red }
        let testRed = red.filter { testCause(of: $0) != nil }
        if !testRed.isEmpty {
            // The cause of exit 1 comes first: a failed/timed-out/flaky job or a surviving mutant,
            // never an infra-failed job of the same suite.
            return (ExitCode.gateRed, "gates red: " + testRed.map { "\($0.spec.name) (\(testCause(of: $0) ?? "red"))" }.joined(separator: "; "))
        }
        let infra = gates.filter { $0.status == .red || $0.status == .unschedulable || $0.status == .interrupted }
        // "No host could be used" only when no job ever started on any host.
        let anyRan = suites.contains { $0.jobs.contains { !$0.attempts.isEmpty } }
        if let unusable = unusableHosts, !unusable.isEmpty, !gates.isEmpty, !anyRan {
            // "unschedulable: needs a host" would send the reader to the plan; the hosts are the problem.
            let why = unusable.sorted { $0.key < $1.key }.map { host, reason in
                reason.hasPrefix(host + ":") ? reason : "\(host): \(reason)"
            }
            return (ExitCode.infrastructure, "infrastructure: no host could be used (every host was set aside) — " + why.joined(separator: "; "))
        }
        if !infra.isEmpty {
            let why = infra.map { suite -> String in
                let reason = suite.reasons.first ?? suite.status.rawValue
                return "\(suite.spec.name) (\(suite.status == .unschedulable ? "unschedulable: " : "")\(reason))"
            }.joined(separator: "; ")
            var line = "infrastructure: " + (why.isEmpty ? "no job could finish" : why)
            if let unusable = unusableHosts, !unusable.isEmpty {
                line += " — hosts lost during the run: " + unusable.keys.sorted().joined(separator: ", ")
            }
            return (ExitCode.infrastructure, line)
        }
        if gates.isEmpty { return (ExitCode.green, "no gates in this plan; probes only") }
        return (ExitCode.green, "all \(gates.count) gate\(gates.count == 1 ? "" : "s") green")
    }

    package static func key(_ cls: String, _ name: String) -> String { cls + "/" + name }

    /// The names `problems` requires of a discovered part, in the form it matches results by:
    /// `TestsDiscovered.resultName` (XCTest `Target.Class/test` as they are; Swift Testing by its
    /// display name or its function alone, as its console output names it). A selected test seen skipped
    /// is disabled in the code (`.disabled`, `XCTSkip`): shown as skipped, not required.
    public static func discoveredRequirement(_ discovery: TestsDiscovered, attempt: AttemptReport) -> [String] {
        let skipped = Set(attempt.tests.filter { $0.status == .skipped }.map { key($0.id.className, $0.id.name) })
        let keys = discoveredRequirementKeys(discovery)
        return discovery.selected.map(discovery.resultName(of:)).filter { !skipped.contains(keys[$0] ?? "") }
    }

    /// `discoveredRequirement` as the identifiers results carry (Swift Testing's with no suite).
    public static func discoveredRequirementIdentifiers(_ discovery: TestsDiscovered, attempt: AttemptReport) -> [TestIdentifier] {
        let swiftTesting = Set(discovery.selected.filter { $0.hasSuffix(")") }.map(discovery.resultName(of:)))
        return discoveredRequirement(discovery, attempt: attempt).map { name in
            swiftTesting.contains(name) ? TestIdentifier(suite: "", name: name) : ReportFacts.identifier(fromManifest: name)
        }
    }

    /// Result name → the key results carry: Swift Testing's by its name alone, XCTest's `Class/test`.
    static func discoveredRequirementKeys(_ discovery: TestsDiscovered) -> [String: String] {
        var out: [String: String] = [:]
        for name in discovery.selected {
            let result = discovery.resultName(of: name)
            if name.hasSuffix(")") {
                out[result] = key("", result)
            } else {
                let parts = result.split(separator: "/", maxSplits: 1).map(String.init)
                out[result] = parts.count == 2 ? key(parts[0].split(separator: ".").last.map(String.init) ?? parts[0], parts[1]) : key("", result)
            }
        }
        return out
    }

    /// `Target.Suite/test()` → `test()`: how results name a Swift Testing test without a display name.
    public static func resultName(ofDiscovered name: String) -> String { TestsDiscovered.functionName(of: name) }

    /// The first reason of a red gate that is the tests' fault (exit 1), nil when none is.
    package static func testCause(of suite: SuiteReport) -> String? {
        for job in suite.jobs where job.planned.mutant == nil {
            switch job.finalState {
            case .failed, .timedOut:
                return "\(label(job)): \(job.reasons.first ?? job.finalState.rawValue)"
            case .flaky where !suite.spec.allowFlaky:
                return "\(label(job)): \(job.reasons.first { $0.hasPrefix("flaky: ") } ?? "flaky") (the plan does not allow flaky)"
            case .passed, .flaky, .infraFailed, .unschedulable, .interrupted:
                continue
            }
        }
        return suite.reasons.first { $0.contains("does not catch") }
    }

    private static func location(_ f: FailureDetail) -> String {
        ReportText.location(f).map { "\($0): " } ?? ""
    }

    private static func label(_ job: JobReport) -> String {
        var s = job.planned.jobID
        if let host = job.attempts.last?.host { s += "@\(host)" }
        return s
    }
}
