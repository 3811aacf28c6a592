import Foundation
import XCFleetModel

/// A test that ran more than once in one attempt (`-test-iterations`, a retry, a clone relaunching
/// it) is one test with several executions, as a reviewer counts it.
extension Collator {
    /// The device part of a clone or destination name: `Clone 2 of iPhone 16 - App (4101)` →
    /// `iPhone 16`, `My Mac - xctest (123)` → `My Mac`, nil → `""`. Executions on the same device
    /// (any clone of it) are one test; the same test on two devices is two.
    package static func device(ofClone clone: String?) -> String {
        guard var s = clone else { return "" }
        if s.hasPrefix("Clone "), let of = s.range(of: " of ") { s = String(s[of.upperBound...]) }
        if let dash = s.range(of: " - ", options: String.CompareOptions.backwards) { s = String(s[..<dash.lowerBound]) }
        return s
    }

    /// Folds executions (in output order) into one result per test and device, at the place of
    /// its first execution. The result's status: failed when any execution timed out; else that
    /// of the last execution that did not skip (skipped when all skipped); a failed execution
    /// followed by a passing last one makes it a passed, flaky test. Failures of every execution
    /// are kept (the same location once), seconds add up, `executions` / `failedExecutions` say
    /// how many ran. Linear in executions.
    package static func distinctTests(_ executions: [TestResult]) -> [TestResult] {
        var tests = executions
        foldExecutions(&tests)
        return tests
    }

    /// `distinctTests` in place (no copy of a result that ran once).
    package static func foldExecutions(_ tests: inout [TestResult]) {
        /// The first result of each test key, further ones (other devices), and the device each
        /// result ran on (`""`: not printed).
        var slot: [String: Int] = [:]
        slot.reserveCapacity(tests.count)
        var otherSlots: [String: [Int]] = [:]
        var devices: [String] = []
        devices.reserveCapacity(tests.count)
        /// Per folded result: the status of its last non-skipped execution, whether one failed.
        var folded: [Int: (last: TestStatus?, anyFailed: Bool)] = [:]
        var removed: [Bool] = []
        for j in tests.indices {
            let key = Verdict.testKey(tests[j].id)
            let dev = device(ofClone: tests[j].clone)
            devices.append(dev)
            // An execution without a device (its end was never printed) joins the test's result.
            func fits(_ i: Int) -> Bool { dev.isEmpty || devices[i].isEmpty || devices[i] == dev }
            guard let firstSlot = slot[key] else {
                slot[key] = j
                continue
            }
            guard let i = fits(firstSlot) ? firstSlot : otherSlots[key]?.first(where: fits) else {
                otherSlots[key, default: []].append(j)
                continue
            }
            if removed.isEmpty { removed = Array(repeating: false, count: tests.count) }
            removed[j] = true
            if devices[i].isEmpty { devices[i] = dev }
            let e = tests[j]
            var state = folded[i] ?? (tests[i].status == .skipped ? nil : tests[i].status, tests[i].status == .failed)
            if e.status != .skipped { state.last = e.status }
            if e.status == .failed { state.anyFailed = true }
            folded[i] = state
            let failedBefore = tests[i].failedExecutions ?? (tests[i].status == .failed ? 1 : 0)
            tests[i].executions = (tests[i].executions ?? 1) + 1
            tests[i].failedExecutions = failedBefore + (e.status == .failed ? 1 : 0)
            for f in e.failures where !tests[i].failures.contains(where: { sameFailure($0, f) }) { tests[i].failures.append(f) }
            if let s = e.seconds { tests[i].seconds = (tests[i].seconds ?? 0) + s }
            if tests[i].skipReason == nil { tests[i].skipReason = e.skipReason }
            if tests[i].clone == nil { tests[i].clone = e.clone }
            if e.timedOut == true { tests[i].timedOut = true }
        }
        guard !folded.isEmpty else { return }
        for (i, state) in folded {
            if tests[i].failedExecutions == 0 { tests[i].failedExecutions = nil }
            if tests[i].timedOut == true {
                tests[i].status = .failed
                tests[i].flaky = false
            } else if let last = state.last {
                tests[i].status = last
                tests[i].flaky = last == .passed && state.anyFailed
            } else {
                tests[i].status = .skipped
            }
        }
        var w = 0
        for r in tests.indices where !removed[r] {
            if w != r { tests.swapAt(w, r) }
            w += 1
        }
        tests.removeLast(tests.count - w)
    }

    /// Same file name and line (or same message without a location).
    package static func sameFailure(_ a: FailureDetail, _ b: FailureDetail) -> Bool {
        guard let la = a.line, let lb = b.line, let fa = a.file, let fb = b.file else {
            return a.file == nil && b.file == nil && a.line == nil && b.line == nil && a.message == b.message
        }
        return la == lb && (fa as NSString).lastPathComponent == (fb as NSString).lastPathComponent
    }

    /// A failure message that says the test exceeded its execution time allowance (XCTest's
    /// `Test exceeded execution time allowance of …`, the `Test Case '…' exceeded …` line).
    package static func isTimeAllowance(_ f: FailureDetail) -> Bool {
        f.message.contains("exceeded execution time allowance")
    }
}
