import Foundation
import XCFleetBasics
import XCFleetModel

/// Which hosts to set aside at admission because of their recent record. Pure.
///
/// Rule: over the last `days` days, a host with at least `minimumAttempts` attempts whose
/// infra-failure rate (attempts that ended in an infrastructure error, plus times it was set aside,
/// over attempts plus set-asides) is above the fleet's `maxInfraFailureRate` is set aside. Set-asides
/// made by this gate (reason starting `history:`) do not count, so a host comes back once its bad
/// runs age out of the window.
public enum HostHealthGate {
    public static let days = 7
    public static let minimumAttempts = 4

    public static func rate(_ h: HostHistory) -> Double {
        let total = h.attempts + h.setAside
        return total == 0 ? 0 : Double(h.infraFailures + h.setAside) / Double(total)
    }

    public static func decide(_ history: [HostHistory], hosts: [String], threshold: Double?) -> [String: String] {
        guard let threshold else { return [:] }
        var out: [String: String] = [:]
        for h in history where hosts.contains(h.host) && h.attempts + h.setAside >= minimumAttempts && rate(h) > threshold {
            out[h.host] = "history: infra-failure rate \(percent(rate(h))) over the last \(days) days is above the fleet's maxInfraFailureRate "
                + "\(percent(threshold)) (\(h.infraFailures) infra failures in \(h.attempts) attempts, set aside \(h.setAside)×, "
                + "\(h.deadPeerEvents) dead-peer/connection-lost)"
        }
        return out
    }

    /// One line per host for `hosts check`.
    public static func describe(_ h: HostHistory) -> String {
        func s(_ v: Double?) -> String { v.map { String(format: "%.2fs", $0) } ?? "-" }
        return "history (\(days) d): \(h.runs) runs, \(h.attempts) attempts, infra-failure rate \(percent(rate(h))), "
            + "\(h.deadPeerEvents) dead-peer, set aside \(h.setAside)×, median connect \(s(h.medianConnectSeconds)) "
            + "push \(s(h.medianPushSeconds)) build \(s(h.medianBuildSeconds)), build cache "
            + (h.buildCacheHitRate.map { "\(percent($0)) hits (\(h.cachedBuilds) cached of \(h.builds) builds)" } ?? "-")
            + (h.label.map { TerminalText.sanitize(", class \(h.hostClass ?? "?") (\($0))") } ?? "")
    }

    package static func percent(_ v: Double) -> String { String(format: "%.0f%%", v * 100) }
}
