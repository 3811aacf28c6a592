import Foundation

/// The host's toolchain identity, part of every build key: the system (`uname -sm`), the whole
/// output of `swift --version` (or `xcodebuild -version`) and `DEVELOPER_DIR`. It comes from the
/// admission health check, which runs the toolchain anyway, so it costs nothing extra per job;
/// fetched once per host per run (`ToolchainIdentityCache`) when a host was admitted elsewhere.
public enum ToolchainIdentity {
    public static func text(system: String, versionLines: [String], developerDir: String?) -> String {
        var lines = ["system: " + system]
        lines += versionLines.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        if let developerDir, !developerDir.isEmpty { lines.append("DEVELOPER_DIR=" + developerDir) }
        return lines.joined(separator: "\n")
    }

    /// The `system` line's first word (`Linux`, `Darwin`).
    public static func os(of identity: String) -> String {
        identity.split(separator: "\n").first.map { $0.dropFirst("system: ".count).split(separator: " ").first.map(String.init) ?? "" } ?? ""
    }
}

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
