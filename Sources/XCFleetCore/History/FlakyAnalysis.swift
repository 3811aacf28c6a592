import Foundation
import XCFleetBasics
import XCFleetModel

/// A test measured as flaky over the recorded runs.
public struct FlakyTest: Equatable, Codable, Sendable {
    public var suite: String
    public var test: String
    /// Job executions of the test (one per run × job, retries folded in).
    public var executions: Int
    /// Executions that failed where the same code also passed (a retry in the job, or another run
    /// with the same content hash).
    public var flakes: Int
    public var withinRun: Int
    public var acrossRuns: Int
    public var rate: Double
    public var lastSeen: Double
    public var hosts: [String]
    public var firstSeenCommit: String?

    package init(suite: String, test: String, executions: Int, flakes: Int, withinRun: Int, acrossRuns: Int, rate: Double, lastSeen: Double, hosts: [String], firstSeenCommit: String? = nil) {
        self.suite = suite
        self.test = test
        self.executions = executions
        self.flakes = flakes
        self.withinRun = withinRun
        self.acrossRuns = acrossRuns
        self.rate = rate
        self.lastSeen = lastSeen
        self.hosts = hosts
        self.firstSeenCommit = firstSeenCommit
    }
}

/// Decides which tests are flaky. Pure.
///
/// Rule: a test execution (one job of one run) is a flake when it failed and then passed within
/// the job (retries), or when it failed and another run with the same workspace content hash
/// saw it pass. Failures of code that never passed with that hash are real failures, not flakes.
/// Rate = flakes / executions.
public enum FlakyAnalysis {
    public static func analyze(_ executions: [FlakyExecution]) -> [FlakyTest] {
        struct Job { var passed = false; var failed = false; var hosts = Set<String>(); var failHosts = Set<String>(); var epoch = 0.0; var commit: String?; var hash: String? }
        var byTest: [String: [String: Job]] = [:]
        var names: [String: (String, String)] = [:]
        for e in executions {
            let key = e.suite + "\u{1F}" + e.testKey
            names[key] = (e.suite, e.testKey)
            var job = byTest[key]?[e.runID + "\u{1F}" + e.jobID] ?? Job()
            job.passed = job.passed || e.passed
            job.failed = job.failed || e.failed
            job.hosts.insert(e.host)
            if e.failed { job.failHosts.insert(e.host) }
            job.epoch = e.startedEpoch
            job.commit = e.gitCommit
            job.hash = e.contentHash
            byTest[key, default: [:]][e.runID + "\u{1F}" + e.jobID] = job
        }
        var out: [FlakyTest] = []
        for (key, jobs) in byTest {
            let passingHashes = Set(jobs.values.filter(\.passed).compactMap(\.hash))
            var within = 0, across = 0, last = 0.0
            var hosts = Set<String>()
            var first: (Double, String?)?
            for job in jobs.values where job.failed {
                let flake: Bool
                if job.passed { within += 1; flake = true } else if let h = job.hash, passingHashes.contains(h) { across += 1; flake = true } else { flake = false }
                guard flake else { continue }
                hosts.formUnion(job.hosts)
                last = max(last, job.epoch)
                if first == nil || job.epoch < first!.0 { first = (job.epoch, job.commit) }
            }
            guard within + across > 0, let (suite, test) = names[key] else { continue }
            out.append(FlakyTest(suite: suite, test: test, executions: jobs.count, flakes: within + across, withinRun: within,
                                 acrossRuns: across, rate: Double(within + across) / Double(jobs.count), lastSeen: last,
                                 hosts: hosts.sorted(), firstSeenCommit: first?.1))
        }
        return out.sorted { ($0.rate, $0.flakes, $1.suite, $1.test) > ($1.rate, $1.flakes, $0.suite, $0.test) }
    }

    /// One line per test for `xcfleet flaky`.
    public static func format(_ tests: [FlakyTest], days: Int) -> String {
        guard !tests.isEmpty else { return "no flaky tests in the last \(days) day\(days == 1 ? "" : "s")" }
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = TimeZone(identifier: "UTC")
        f.dateFormat = "yyyy-MM-dd HH:mm"
        var lines = ["flaky tests in the last \(days) day\(days == 1 ? "" : "s") (rate = flaky failures / executions):"]
        for t in tests {
            let commit = t.firstSeenCommit.map { " · first seen at \($0.prefix(12))" } ?? ""
            lines.append(String(format: "%5.1f%%", t.rate * 100) + "  \(TerminalText.sanitize(t.suite)) \(TerminalText.sanitize(t.test))  "
                + "\(t.flakes)/\(t.executions) (retry \(t.withinRun), across runs \(t.acrossRuns)) · last \(f.string(from: Date(timeIntervalSince1970: t.lastSeen))) UTC"
                + " · hosts \(t.hosts.map(TerminalText.sanitize).joined(separator: ","))\(commit)")
        }
        return lines.joined(separator: "\n")
    }
}
