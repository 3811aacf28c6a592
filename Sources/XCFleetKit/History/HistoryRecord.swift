import Foundation
import XCFleetBasics
import XCFleetModel
import XCFleetCore

/// One run, as rows for the history's tables. Built from the collated report of the run's own
/// events (`EventLog.read` → `Collator`), so a finished run, an interrupted run's partial events
/// and an old run directory (`history import`) are recorded the same way. Pure: no I/O.
public struct HistoryRecord: Sendable {
    public var runID: String
    public var rows: [String: [[SQLValue]]]

    public static let columns: [String: [String]] = [
        "runs": ["run_id", "plan_name", "plan_path", "content_hash", "git_commit", "git_branch", "started_at", "started_epoch",
                 "duration", "verdict", "exit_code", "interrupted", "xcfleet_version", "recorded_epoch", "host_seconds", "cost", "figures"],
        "jobs": ["run_id", "job_id", "suite", "kind", "shard", "shard_count", "repetition", "mutant", "content_hash", "final_state"],
        "attempts": ["run_id", "job_id", "attempt", "host", "slot", "start_t", "end_t", "infra_error", "timed_out_phase", "lost"],
        "tests": ["run_id", "job_id", "attempt", "suite", "test_key", "test_class", "name", "contract_ids", "status", "seconds",
                  "flaky", "host", "lost", "mutant", "content_hash", "started_epoch"],
        "hosts": ["run_id", "host", "set_aside", "host_class", "host_label"],
        "phases": ["run_id", "job_id", "attempt", "phase", "host", "start_t", "end_t"],
        "metrics": ["run_id", "job_id", "attempt", "host", "suite", "name", "value", "unit", "labels"],
        "run_costs": ["run_id", "host", "phase", "host_seconds", "cost"],
        "attempt_builds": ["run_id", "job_id", "attempt", "host", "origin", "build_key", "base_key", "seconds", "waited_seconds", "untrusted",
                           "product_digest"],
    ]

    /// The run's figures as the `runs.figures` column holds them (compact JSON, sorted keys).
    package static func figuresText(_ figures: TestFigures) -> String? {
        let e = JSONEncoder()
        e.outputFormatting = [.sortedKeys]
        return (try? e.encode(figures)).map { String(decoding: $0, as: UTF8.self) }
    }

    /// Reads `runs.figures` back (nil for runs recorded before the column, or unreadable text).
    package static func figures(_ text: String?) -> TestFigures? {
        guard let text else { return nil }
        return try? JSONDecoder().decode(TestFigures.self, from: Data(text.utf8))
    }

    /// Where the checkout was when the run started (nil fields when not a git checkout).
    public struct Source: Sendable, Equatable {
        public var commit: String?
        public var branch: String?
        public init(commit: String? = nil, branch: String? = nil) {
            self.commit = commit
            self.branch = branch
        }
    }

    public init(report: RunReport, source: Source = Source(), cost: RunCost? = nil, recordedAt: Date = Date()) {
        runID = report.runID
        let id = SQLValue.text(report.runID)
        let epoch = Self.epoch(report.startedAt)
        var jobs: [[SQLValue]] = [], attempts: [[SQLValue]] = [], tests: [[SQLValue]] = []
        var phases: [[SQLValue]] = [], metrics: [[SQLValue]] = [], builds: [[SQLValue]] = []
        var hashes: [String] = []
        for suite in report.suites {
            for job in suite.jobs {
                let p = job.planned
                if p.mutant == nil, let h = p.contentHash { hashes.append(h) }
                jobs.append([id, .text(p.jobID), .text(p.suite), .text(p.kind.rawValue), SQLValue(p.shard), SQLValue(p.shardCount),
                             SQLValue(p.repetition), SQLValue(p.mutant), SQLValue(p.contentHash), .text(job.finalState.rawValue)])
                var seenAttempts = Set<Int>()
                for a in job.attempts where seenAttempts.insert(a.number).inserted {
                    attempts.append([id, .text(p.jobID), SQLValue(a.number), .text(a.host), SQLValue(a.slot), SQLValue(a.start), SQLValue(a.end),
                                     SQLValue(a.infraError), SQLValue(a.timedOutPhase?.rawValue), SQLValue(a.lost)])
                    if let b = a.build {
                        builds.append([id, .text(p.jobID), SQLValue(a.number), .text(a.host), .text(b.origin.rawValue), .text(b.key),
                                       SQLValue(b.base), SQLValue(b.seconds), SQLValue(b.waitedSeconds), SQLValue(b.untrusted),
                                       SQLValue(b.product)])
                    }
                    var seenPhases = Set<Phase>()
                    for span in a.phases where seenPhases.insert(span.phase).inserted {
                        phases.append([id, .text(p.jobID), SQLValue(a.number), .text(span.phase.rawValue), .text(a.host),
                                       SQLValue(span.start), SQLValue(span.end)])
                    }
                    for t in a.tests {
                        tests.append([id, .text(p.jobID), SQLValue(a.number), .text(p.suite), .text(t.id.description), .text(t.id.suite),
                                      .text(t.id.name), .text(t.contractIDs.joined(separator: ",")), .text(t.status.rawValue), SQLValue(t.seconds),
                                      SQLValue(t.flaky), .text(a.host), SQLValue(a.lost), SQLValue(p.mutant), SQLValue(p.contentHash), SQLValue(epoch)])
                    }
                    for m in a.metrics {
                        let labels = m.labels.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
                        metrics.append([id, .text(p.jobID), SQLValue(a.number), .text(a.host), .text(p.suite), .text(m.name),
                                        SQLValue(m.value), .text(m.unit), .text(labels)])
                    }
                }
            }
        }
        let runHash = hashes.isEmpty ? nil : Self.hash(hashes.sorted().joined(separator: ","))
        let runRow: [SQLValue] = [id, .text(report.planName), .text(report.planPath), SQLValue(runHash), SQLValue(source.commit),
                                  SQLValue(source.branch), .text(report.startedAt), SQLValue(epoch), SQLValue(report.duration),
                                  .text(report.verdictLine), SQLValue(Int(report.exitCode)), SQLValue(report.interrupted),
                                  .text(report.xcfleetVersion), SQLValue(recordedAt.timeIntervalSince1970),
                                  SQLValue(cost?.hostSeconds), SQLValue(cost?.total), SQLValue(Self.figuresText(report.totals.tests))]
        let leases = Dictionary((report.hostTimelines ?? []).map { ($0.host, $0) }, uniquingKeysWith: { a, _ in a })
        func hostRow(_ host: String, _ reason: String?) -> [SQLValue] {
            [id, .text(host), SQLValue(reason), SQLValue(leases[host]?.hostClass), SQLValue(leases[host]?.label)]
        }
        var hosts: [[SQLValue]] = report.hosts.map { hostRow($0, report.hostsSetAside[$0]) }
        var listed = Set(report.hosts)
        for (host, reason) in report.hostsSetAside.sorted(by: { $0.key < $1.key }) where !listed.contains(host) {
            hosts.append(hostRow(host, reason))
            listed.insert(host)
        }
        // Provisioned hosts are not in the run's start event.
        for lease in report.hostTimelines ?? [] where !listed.contains(lease.host) {
            hosts.append(hostRow(lease.host, nil))
            listed.insert(lease.host)
        }
        let costs: [[SQLValue]] = (cost?.lines ?? []).map { [id, .text($0.host), .text($0.phase), SQLValue($0.hostSeconds), SQLValue($0.cost)] }
        rows = ["runs": [runRow], "jobs": jobs, "attempts": attempts, "tests": tests, "hosts": hosts, "phases": phases,
                "metrics": metrics, "run_costs": costs, "attempt_builds": builds]
    }

    public var testCount: Int { rows["tests"]?.count ?? 0 }

    /// Seconds since 1970 of an ISO-8601 start (`0` when unreadable, which sorts it first).
    public static func epoch(_ iso: String) -> Double {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let d = f.date(from: iso) { return d.timeIntervalSince1970 }
        f.formatOptions = [.withInternetDateTime]
        return f.date(from: iso)?.timeIntervalSince1970 ?? 0
    }

    static func hash(_ text: String) -> String {
        var h = SHA256()
        h.update(Array(text.utf8))
        return h.finalizeHex()
    }
}
