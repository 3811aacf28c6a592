import Foundation
import XCFleetModel

/// Toolchain identities by host name, for one run: seeded from admission health checks, else
/// fetched once (concurrent callers share the one fetch).
public actor ToolchainIdentityCache {
    private var known: [String: Task<String, Error>] = [:]
    /// The identities seeded or fetched so far, readable without awaiting the actor (`settled(host:)`).
    private nonisolated let values = SettledIdentities()

    public init() {}

    public func seed(host: String, identity: String) {
        known[host] = Task { identity }
        values.set(host, identity)
    }

    /// The host's identity when it was seeded or fetched already (nil: not yet, or the fetch failed).
    public nonisolated func settled(host: String) -> String? { values.get(host) }

    public func identity(for shell: any RemoteShell) async throws -> String {
        let name = shell.host.name
        if let task = known[name] { return try await task.value }
        let task = Task<String, Error> {
            let health = await HostHealth.check(shell: shell, host: shell.host, minimumFreeBytes: 0)
            guard let identity = health.toolchainIdentity else {
                throw RemoteShellError(.toolchain, host: name, health.reason ?? "cannot read the toolchain's version")
            }
            return identity
        }
        known[name] = task
        do {
            let identity = try await task.value
            values.set(name, identity)
            return identity
        } catch { known[name] = nil; throw error }
    }
}

/// A lock-protected copy of the identities `ToolchainIdentityCache` holds.
private final class SettledIdentities: @unchecked Sendable {
    private let lock = NSLock()
    private var byHost: [String: String] = [:]
    func set(_ host: String, _ identity: String) { lock.lock(); byHost[host] = identity; lock.unlock() }
    func get(_ host: String) -> String? { lock.lock(); defer { lock.unlock() }; return byHost[host] }
}
