import Foundation
import XCFleetBasics
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
        /// Keys of the finished builds in the host's build cache (`HostProbe.Facts.builds`).
        public var cachedBuildKeys: [String] = []

        public var isHealthy: Bool { problems.isEmpty }
        /// The problems in one line, for "host set aside: unhealthy: …".
        public var reason: String? { problems.isEmpty ? nil : problems.joined(separator: "; ") }
    }

    public static let defaultMinimumFreeBytes: Int64 = HostProbe.defaultMinimumFreeBytes

    /// Runs the probe. Never throws: a shell failure is an unhealthy result with the reason.
    public static func check(shell: any RemoteShell, host: HostSpec, minimumFreeBytes: Int64 = defaultMinimumFreeBytes,
                             deadlines: CommandDeadlines = CommandDeadlines(total: 60, silence: 60)) async -> Result {
        await check(shell: shell, host: host, minimumFreeBytes: minimumFreeBytes, deadlines: deadlines, then: nil).health
    }

    /// What a command chained after the probe (in the same round trip) printed and how it ended.
    public struct ChainedReply: Equatable, Sendable {
        public var termination: CommandTermination
        public var stdout: String
        public var stderrTail: String
    }

    /// The probe with `then` run after it on the same exec channel — one round trip for admission's
    /// health check and slot leases. The reply is nil when `then` did not run (the probe's shell
    /// failed or was cut short).
    public static func check(shell: any RemoteShell, host: HostSpec, minimumFreeBytes: Int64 = defaultMinimumFreeBytes,
                             deadlines: CommandDeadlines = CommandDeadlines(total: 60, silence: 60),
                             then: ShellCommand?) async -> (health: Result, reply: ChainedReply?) {
        let sink = OutputSink(limit: 1 << 20)
        let firstByte = FirstByteClock()
        let probe = HostProbeScript.command(for: host)
        let command = then.map { ShellCommand(["sh", "-c", ShellQuote.join(probe.arguments) + "; s=$?; echo; echo \"\(chainMarker) $s\"; "
                                                  + ShellQuote.join($0.arguments)]) } ?? probe
        let termination: CommandTermination
        do {
            termination = try await shell.run(command, in: "/", deadlines: deadlines) { chunk in
                firstByte.mark()
                sink.add(chunk)
            }
        } catch {
            return (failed(host, check: "probe", "unreachable: \(error)"), nil)
        }
        var stdout = sink.stdoutText
        var probeEnd = termination
        var reply: ChainedReply?
        if then != nil {
            guard let marker = stdout.range(of: "\n" + chainMarker + " ") else {
                return (failed(host, check: "output", "health check command \(CommandProvisioner.ending(termination, deadlines: deadlines)): \(sink.stderrTail)"), nil)
            }
            let rest = stdout[marker.upperBound...]
            let statusText = rest.prefix { $0 != "\n" }
            probeEnd = .exited(Int32(statusText) ?? -1)
            reply = ChainedReply(termination: termination, stdout: String(rest.dropFirst(statusText.count).drop { $0 == "\n" }), stderrTail: sink.stderrTail)
            stdout = String(stdout[..<marker.lowerBound]) + "\n"
        }
        guard probeEnd == .exited(0) else {
            return (failed(host, check: "output", "health check command \(CommandProvisioner.ending(probeEnd, deadlines: deadlines)): \(sink.stderrTail)"), reply)
        }
        var facts = HostProbe.parse(stdout)
        facts.latencyMs = firstByte.milliseconds
        return (result(facts, host: host, minimumFreeBytes: minimumFreeBytes), reply)
    }

    /// Separates the probe's output from the chained command's (the probe's exit status follows).
    static let chainMarker = "@@xcfleet-chained"

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
        r.cachedBuildKeys = facts.builds
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
