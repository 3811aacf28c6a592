import Foundation
import XCFleetModel

extension ContractCertificate {
    /// The certificate of a suite that puts a team's subject under a contract template; nil for any
    /// other suite. Only the real code's jobs count (every shard and repetition); a claimed id passes
    /// when it has gate tests and every one of them passed in every job, is "not run" when none of
    /// them ran (no host could run the suite: then no attempt listed the tests either, so which
    /// tests carry the id is not known), and fails otherwise. A mutant whose job never reached
    /// a verdict (unschedulable, host failure, interrupted) is "not run", not survived.
    package static func make(_ suite: SuiteReport) -> ContractCertificate? {
        guard let subject = suite.spec.subject, let contract = TemplateInfo.named(suite.spec.template)?.contract else { return nil }
        let claimed = subject.claims.map { claims in contract.ids.filter(claims.contains) } ?? contract.ids
        // Per test (`Class/test`), the worst outcome over the real code's jobs.
        var outcome: [String: TestOutcome.Status] = [:]
        var order: [String] = []
        for job in suite.jobs where job.planned.mutant == nil {
            for o in ReportFacts.outcomes(job) {
                let name = "\(o.id.className)/\(o.id.name)"
                if outcome[name] == nil { order.append(name) }
                outcome[name] = worse(outcome[name], o.status)
            }
        }
        // The tests are known only from what was built: before any attempt listed them, no id can
        // be said to have no gate tests.
        let listed = suite.jobs.contains { job in job.planned.mutant == nil && (!job.planned.expectedTests.isEmpty
            || job.attempts.contains { $0.discovery.map { !$0.tests.isEmpty } ?? false }) }
        var results: [IDResult] = []
        for id in contract.ids {
            let tests = order.filter { ContractID.find(in: String($0.split(separator: "/").last ?? "")).contains(id) }
            let lines = tests.map { TestLine(test: $0, status: outcome[$0]?.rawValue ?? "not run") }
            let status: Status
            if !claimed.contains(id) { status = .notClaimed }
            else if tests.isEmpty { status = listed ? .noGateTests : .notRun }
            else if tests.allSatisfy({ outcome[$0] == .passed }) { status = .passed }
            else if tests.allSatisfy({ outcome[$0] == nil || outcome[$0] == .notRun }) { status = .notRun }
            else { status = .failed }
            results.append(IDResult(id: id, status: status, tests: lines))
        }
        let mutants = suite.jobs.compactMap { job -> MutantResult? in
            guard let id = job.planned.mutant else { return nil }
            let undecided: Set<JobFinalState> = [.unschedulable, .infraFailed, .interrupted]
            return MutantResult(id: id, contract: subject.mutants.first { $0.id == id }?.contract, killed: !ReportFacts.isRed(job),
                                notRun: undecided.contains(job.finalState))
        }
        return ContractCertificate(suite: suite.spec.name, module: subject.module, package: subject.package,
                                   contract: contract.version, claimed: claimed, ids: results, mutants: mutants)
    }

    private static func worse(_ a: TestOutcome.Status?, _ b: TestOutcome.Status) -> TestOutcome.Status {
        func rank(_ s: TestOutcome.Status) -> Int {
            switch s {
            case .passed: return 0
            case .skipped: return 1
            case .notRun: return 2
            case .failed: return 3
            }
        }
        guard let a else { return b }
        return rank(a) >= rank(b) ? a : b
    }
}
