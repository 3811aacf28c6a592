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
        /// Results of each test key, and the device each result ran on (`""`: not printed).
        var slots: [String: [Int]] = [:]
        slots.reserveCapacity(executions.count)
        var devices: [String] = []
        var out: [TestResult] = []
        out.reserveCapacity(executions.count)
        /// Per result: the status of its last non-skipped execution, and whether an earlier one failed.
        var lastRun: [TestStatus?] = []
        var anyFailed: [Bool] = []
        for e in executions {
            let key = Verdict.testKey(e.id)
            let dev = device(ofClone: e.clone)
            // An execution without a device (its end was never printed) joins the test's result.
            guard let i = slots[key]?.first(where: { dev.isEmpty || devices[$0].isEmpty || devices[$0] == dev }) else {
                slots[key, default: []].append(out.count)
                devices.append(dev)
                out.append(e)
                lastRun.append(e.status == .skipped ? nil : e.status)
                anyFailed.append(e.status == .failed)
                continue
            }
            if devices[i].isEmpty { devices[i] = dev }
            var merged = out[i]
            let count = (merged.executions ?? 1) + 1
            merged.executions = count
            if e.status != .skipped { lastRun[i] = e.status }
            if e.status == .failed { anyFailed[i] = true }
            let failedCount = (merged.failedExecutions ?? (out[i].status == .failed ? 1 : 0)) + (e.status == .failed ? 1 : 0)
            merged.failedExecutions = failedCount
            for f in e.failures where !merged.failures.contains(where: { sameFailure($0, f) }) { merged.failures.append(f) }
            if let s = e.seconds { merged.seconds = (merged.seconds ?? 0) + s }
            merged.skipReason = merged.skipReason ?? e.skipReason
            merged.clone = merged.clone ?? e.clone
            if e.timedOut == true { merged.timedOut = true }
            out[i] = merged
        }
        for i in out.indices where out[i].executions != nil {
            if out[i].failedExecutions == 0 { out[i].failedExecutions = nil }
            if out[i].timedOut == true {
                out[i].status = .failed
            } else if let last = lastRun[i] {
                out[i].status = last
                out[i].flaky = last == .passed && anyFailed[i]
            } else {
                out[i].status = .skipped
            }
        }
        return out
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
