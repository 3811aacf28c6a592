import Foundation
import XCFleetBasics

/// What a host is, for telling hosts apart in the history (`RunEvent.Body.hostAdmitted`):
/// a short `hostClass` (the first 12 hex digits of a SHA-256 over the toolchain identity — `uname
/// -sm`, the whole `swift --version` or `xcodebuild -version` output, `DEVELOPER_DIR` — and the CPU
/// model and count) and a readable label. Two hosts of one class build and run tests alike, so their
/// durations are comparable. Pure.
public struct HostProfile: Equatable, Codable, Sendable {
    public var host: String
    /// Nil when the health check read no toolchain identity.
    public var hostClass: String?
    /// `Linux x86_64 · Intel(R) Xeon(R) … ×2 · Swift version 6.3.1 (…)`.
    public var label: String?

    public init(host: String, hostClass: String?, label: String?) {
        self.host = host
        self.hostClass = hostClass
        self.label = label
    }

    public init(host: String, toolchainIdentity: String?, system: String?, toolchain: String?, cpu: String?) {
        self.host = host
        guard let toolchainIdentity else {
            hostClass = nil
            label = nil
            return
        }
        var h = SHA256()
        h.update(Array((toolchainIdentity + "\ncpu: " + (cpu ?? "")).utf8))
        hostClass = String(h.finalizeHex().prefix(12))
        label = [system, cpu, toolchain].compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: " · ")
    }
}
