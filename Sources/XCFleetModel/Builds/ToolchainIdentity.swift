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
