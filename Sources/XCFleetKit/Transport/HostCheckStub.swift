import Foundation
// TEMPORARY stub; replaced by the ssh branch.
public struct HostCheckResult: Sendable { public var host: String; public var ok: Bool; public var problem: String? }
public enum HostChecker {
    public static func check(_ hosts: [HostSpec], timeouts: PhaseTimeouts) async -> [HostCheckResult] { hosts.map { HostCheckResult(host: $0.name, ok: $0.transport == .local, problem: nil) } }
    public static func line(_ r: HostCheckResult) -> String { "\(r.host): \(r.ok ? "ok" : "unusable")" }
}
