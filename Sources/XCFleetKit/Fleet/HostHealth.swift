import Foundation
import XCFleetModel
import XCFleetCore
import XCFleetHostScripts

/// The check a host passes before its first job, and the one `xcfleet hosts check` shows: one
/// command through its shell (`HostProbeScript`) that reports the system, free disk under the work
/// root (creating the root), the work root's privacy (`xcf_private`), the toolchain
/// (`xcodebuild -version` with `DEVELOPER_DIR` on Xcode hosts, else `swift --version`) and the CPU,
/// judged by `HostProbe.judge`. Reachability, host key and authentication are proven by the shell
/// having run the command.
public enum HostHealth {
    public struct Result: Equatable, Sendable {
        public var host: String
        /// `Darwin arm64`, `Linux x86_64`.
        public var system: String?
        public var freeBytes: Int64?
        /// First line of the toolchain's version output (`Swift version 6.3.1 (…)`, `Xcode 16.4`).
        public var toolchain: String?
        /// What is wrong, each saying what to fix; empty when healthy (the failed `checks`' details).
        public var problems: [String]
        /// The host's toolchain identity for build keys (`ToolchainIdentity`): system, the
        /// toolchain's whole version output and `DEVELOPER_DIR`.
        public var toolchainIdentity: String?
        /// CPU model and count (`Apple M2 Pro ×12`), when the host tells (`HostProfile`).
        public var cpu: String? = nil
        /// `macOS 15.5`, `Debian GNU/Linux 12 (bookworm)`, when the host tells.
        public var os: String? = nil
        /// Time from starting the probe to its first byte of output, in milliseconds.
        public var latencyMs: Double? = nil
        /// Every check, passed or failed, as `hosts check` shows them.
        public var checks: [HostProbe.Check] = []

        public var isHealthy: Bool { problems.isEmpty }
        /// The problems in one line, for "host set aside: unhealthy: …".
        public var reason: String? { problems.isEmpty ? nil : problems.joined(separator: "; ") }
    }

    public static let defaultMinimumFreeBytes: Int64 = HostProbe.defaultMinimumFreeBytes

    /// Runs the probe. Never throws: a shell failure is an unhealthy result with the reason.
    public static func check(shell: any RemoteShell, host: HostSpec, minimumFreeBytes: Int64 = defaultMinimumFreeBytes,
                             deadlines: CommandDeadlines = CommandDeadlines(total: 60, silence: 60)) async -> Result {
        let sink = OutputSink(limit: 64 << 10)
        let firstByte = FirstByteClock()
        do {
            let termination = try await shell.run(HostProbeScript.command(for: host), in: "/", deadlines: deadlines) { chunk in
                firstByte.mark()
                sink.add(chunk)
            }
            guard termination == .exited(0) else {
                return failed(host, check: "output", "health check command \(CommandProvisioner.ending(termination, deadlines: deadlines)): \(sink.stderrTail)")
            }
        } catch {
            return failed(host, check: "probe", "unreachable: \(error)")
        }
        var facts = HostProbe.parse(sink.stdoutText)
        facts.latencyMs = firstByte.milliseconds
        return result(facts, host: host, minimumFreeBytes: minimumFreeBytes)
    }

    /// Judges recorded probe output (pure).
    static func evaluate(output: String, host: HostSpec, minimumFreeBytes: Int64) -> Result {
        result(HostProbe.parse(output), host: host, minimumFreeBytes: minimumFreeBytes)
    }

    static func result(_ facts: HostProbe.Facts, host: HostSpec, minimumFreeBytes: Int64) -> Result {
        let checks = HostProbe.judge(facts, HostProbe.Requirements(host: host, minimumFreeBytes: minimumFreeBytes))
        var r = Result(host: host.name, problems: HostProbe.problems(checks))
        r.checks = checks
        guard facts.complete else { return r }
        r.system = facts.system
        r.os = facts.os
        r.freeBytes = HostProbe.freeBytes(facts)
        r.cpu = HostProbe.cpu(facts)
        r.latencyMs = facts.latencyMs
        if let first = HostProbe.toolchainVersion(facts), let lines = facts.toolchain?.lines {
            r.toolchain = first
            r.toolchainIdentity = ToolchainIdentity.text(system: facts.system ?? "", versionLines: lines, developerDir: host.toolchain.developerDir)
        }
        return r
    }

    private static func failed(_ host: HostSpec, check: String, _ problem: String) -> Result {
        var r = Result(host: host.name, problems: [problem])
        r.checks = [HostProbe.Check(check, ok: false, problem)]
        return r
    }

    /// Available KiB (4th column) of the last data line of `df -Pk`, in bytes.
    static func freeBytes(dfLines: [String]) -> Int64? { HostProbe.freeBytes(dfLines: dfLines) }
}

/// When the first output chunk of a command arrived (set from the shell's reading thread).
private final class FirstByteClock: @unchecked Sendable {
    private let lock = NSLock()
    private let start = DispatchTime.now().uptimeNanoseconds
    private var first: UInt64?

    func mark() {
        lock.lock(); defer { lock.unlock() }
        if first == nil { first = DispatchTime.now().uptimeNanoseconds }
    }

    var milliseconds: Double? {
        lock.lock(); defer { lock.unlock() }
        return first.map { Double($0 - start) / 1e6 }
    }
}
