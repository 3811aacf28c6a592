import XCFleetModel

/// The one probe command (`HostProbe` reads its output): sections `@@uname`, `@@os`, `@@df STATUS`,
/// `@@private STATUS`, `@@toolchain STATUS`, `@@cpu`, `@@end`. It creates the work root (mode 700)
/// so that `df` and `xcf_private` have something to look at. POSIX sh, Linux and macOS.
public enum HostProbeScript {
    /// `sh -c SCRIPT sh WORKROOT SWIFT DEVELOPER_DIR`, run in `/`.
    public static func command(for host: HostSpec) -> ShellCommand {
        ShellCommand(["sh", "-c", script, "sh", host.workRoot, host.toolchain.swiftPath ?? "swift", host.toolchain.developerDir ?? ""])
    }

    public static let script = WorkRootSafety.shellFunctions + HostScriptSource.hostProbe
}
