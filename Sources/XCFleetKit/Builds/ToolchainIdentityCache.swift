import Foundation
import XCFleetModel

/// Toolchain identities by host name, for one run: seeded from admission health checks, else
/// fetched once (concurrent callers share the one fetch).
public actor ToolchainIdentityCache {
    private var known: [String: Task<String, Error>] = [:]

    public init() {}

    public func seed(host: String, identity: String) {
        known[host] = Task { identity }
    }

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
        do { return try await task.value } catch { known[name] = nil; throw error }
    }
}
