import Foundation

/// What a run cost: host-seconds by phase × each host's price per hour (fleet file `pricePerHour`,
/// on a host or the provisioner). Pure.
///
/// Rule: a host is billed from the moment it starts costing to the run's end (hosts are released
/// when the run ends): a provisioned host from the start of the provisioner's create command, a
/// fleet host from its admission (`HostTimeline`; a run recorded before admissions were logged: from
/// the start). The create command's seconds are `provision`. The rest is split by phase in
/// proportion to the slot-seconds its attempts spent in each phase (`connect`, `push`, `build`,
/// `test`, …) over the host's slots; what the attempts did not use — leased but idle slots, a
/// created host waiting for admission or set aside — is `idle`. A fleet host set aside at
/// admission is not billed. Hosts without a price count host-seconds but no cost.
public struct RunCost: Equatable, Codable, Sendable {
    public struct Line: Equatable, Codable, Sendable {
        public var host: String
        public var phase: String
        public var hostSeconds: Double
        public var cost: Double?

        package init(host: String, phase: String, hostSeconds: Double, cost: Double? = nil) {
            self.host = host
            self.phase = phase
            self.hostSeconds = hostSeconds
            self.cost = cost
        }
    }

    public var lines: [Line]
    public var hostSeconds: Double
    /// Nil when no host used has a price.
    public var total: Double?
    public var currency: String

    public init(lines: [Line], currency: String = "USD") {
        self.lines = lines
        hostSeconds = lines.reduce(0) { $0 + $1.hostSeconds }
        let priced = lines.compactMap(\.cost)
        total = priced.isEmpty ? nil : priced.reduce(0, +)
        self.currency = currency
    }

    public static func compute(_ report: RunReport, pricePerHour: [String: Double], defaultPrice: Double? = nil) -> RunCost {
        var busy: [String: [String: Double]] = [:]
        var slots: [String: Set<Int>] = [:]
        for suite in report.suites {
            for job in suite.jobs {
                for a in job.attempts {
                    slots[a.host, default: []].insert(a.slot)
                    for span in a.phases {
                        let end = span.end ?? a.end ?? report.duration
                        guard end.isFinite, span.start.isFinite, end > span.start else { continue }
                        busy[a.host, default: [:]][span.phase.rawValue, default: 0] += end - span.start
                    }
                }
            }
        }
        let duration = max(0, report.duration)
        let leases = Dictionary((report.hostTimelines ?? []).map { ($0.host, $0) }, uniquingKeysWith: { a, _ in a })
        let billed = Set(busy.keys).union(leases.values.filter { $0.admittedAt != nil || $0.provisionedAt != nil }.map(\.host))
        var lines: [Line] = []
        for host in billed.sorted() {
            let price = pricePerHour[host] ?? defaultPrice
            func line(_ phase: String, _ seconds: Double) -> Line {
                Line(host: host, phase: phase, hostSeconds: seconds, cost: price.map { seconds * $0 / 3600 })
            }
            let lease = leases[host]
            if let seconds = lease?.provisionSeconds, lease?.provisionedAt != nil, seconds.isFinite, seconds > 0 {
                lines.append(line(Phase.provision.rawValue, min(seconds, duration)))
            }
            // The host is usable from the end of its create command, else from its admission.
            let usableFrom = min(duration, max(0, lease?.provisionedAt ?? lease?.admittedAt ?? 0))
            let usable = duration - usableFrom
            let capacity = usable * Double(max(1, slots[host]?.count ?? 1))
            let phases = busy[host] ?? [:]
            let used = phases.values.reduce(0, +)
            let scale = capacity > 0 && used > capacity ? capacity / used : 1
            var spent = 0.0
            for phase in phases.keys.sorted() {
                let seconds = capacity > 0 ? phases[phase]! * scale / capacity * usable : 0
                spent += seconds
                lines.append(line(phase, seconds))
            }
            lines.append(line("idle", max(0, usable - spent)))
        }
        return RunCost(lines: lines)
    }

    /// A finished run's cost: the one its report logged (`historyContext`, computed with the same
    /// fleet prices before the reports were written), else computed now.
    public static func of(_ report: RunReport, pricing: HistoryPricing) -> RunCost {
        report.history?.cost ?? compute(report, pricePerHour: pricing.perHost, defaultPrice: pricing.defaultPrice)
    }

    /// Host-seconds by phase over all hosts.
    public var byPhase: [String: Double] {
        lines.reduce(into: [:]) { $0[$1.phase, default: 0] += $1.hostSeconds }
    }

    /// `$0.42 (1,234 host-s: test 800, build 300, idle 134)`, or host-seconds only.
    public var summaryLine: String {
        let phases = byPhase.sorted { $0.value > $1.value }.map { "\($0.key) \(Int($0.value.rounded()))" }.joined(separator: ", ")
        let seconds = "\(Int(hostSeconds.rounded())) host-s" + (phases.isEmpty ? "" : ": \(phases)")
        guard let total else { return "\(seconds) (no price per hour in the fleet file)" }
        return String(format: "$%.2f", total) + " (\(seconds))"
    }
}
