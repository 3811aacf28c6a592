import Foundation
// TEMPORARY stub; replaced by the ssh branch.
public enum SSHShell {
    public static func connect(_ host: HostSpec, timeouts: PhaseTimeouts) async throws -> any RemoteShell {
        throw RemoteShellError(.connect, host: host.name, "SSH is not built yet")
    }
}
