import Foundation

/// What a run proved about a team's implementation under a contract (report section
/// "Certificate"): the contract version, the ids the subject claims, and each id passed, failed,
/// not claimed, not run or without gate tests, with the tests behind it. An unclaimed id is never passed.
public struct ContractCertificate: Equatable, Codable, Sendable {
    public var suite: String
    /// The module under the contract and its package as written in the plan.
    public var module: String
    public var package: String
    /// `cache-contract/2`, `combine-lifetime/1`.
    public var contract: String
    /// The ids the subject claims (every id of the contract when the plan names none).
    public var claimed: [String]
    public var ids: [IDResult]
    /// The team's mutants: each must be killed.
    public var mutants: [MutantResult]

    public enum Status: String, Codable, Sendable {
        case passed, failed
        case notClaimed = "not claimed"
        /// Claimed, but none of its tests ran (no host could run the suite, e.g. no Mac for Combine): never passed.
        case notRun = "not run"
        /// Claimed, but no gate test carries it (C9 probes, C12/C13 review): never counted as passed.
        case noGateTests = "no gate tests"
    }

    public struct IDResult: Equatable, Codable, Sendable {
        public var id: String
        public var status: Status
        /// `Class/test` → passed, failed, skipped or not run.
        public var tests: [TestLine]

        package init(id: String, status: Status, tests: [TestLine]) {
            self.id = id
            self.status = status
            self.tests = tests
        }
    }

    public struct TestLine: Equatable, Codable, Sendable {
        public var test: String
        public var status: String

        package init(test: String, status: String) {
            self.test = test
            self.status = status
        }
    }

    public struct MutantResult: Equatable, Codable, Sendable {
        public var id: String
        public var contract: String?
        public var killed: Bool
        /// True when its job never ran to a verdict (unschedulable, host failure, interrupted):
        /// neither killed nor survived. Absent otherwise.
        public var notRun: Bool?

        package init(id: String, contract: String?, killed: Bool, notRun: Bool = false) {
            self.id = id
            self.contract = contract
            self.killed = killed && !notRun
            self.notRun = notRun ? true : nil
        }

        /// `killed`, `survived` or `not run`.
        public var outcome: String { notRun == true ? "not run" : killed ? "killed" : "survived" }
    }

    /// Claimed ids that did not pass, and mutants that were not killed: empty means the certificate holds.
    public var problems: [String] {
        ids.filter { $0.status == .failed || $0.status == .notRun }.map { "\($0.id) \($0.status.rawValue)" }
            + mutants.filter { !$0.killed }.map { "mutant \($0.id) \($0.outcome)" }
    }

    package init(suite: String, module: String, package: String, contract: String, claimed: [String], ids: [IDResult], mutants: [MutantResult]) {
        self.suite = suite
        self.module = module
        self.package = package
        self.contract = contract
        self.claimed = claimed
        self.ids = ids
        self.mutants = mutants
    }
}
