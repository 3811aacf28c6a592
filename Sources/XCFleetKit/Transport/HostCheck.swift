import Foundation
import SSHClient
import XCFleetBasics
import XCFleetModel
import XCFleetCore

/// What `xcfleet hosts check` found out about one host.
public struct HostCheckResult: Equatable, Sendable {
    public var host: String
    /// Every check passed: the run would admit the host (slot leases aside).
    public var ok: Bool
    public var reachable: Bool
    public var hostKeyVerified: Bool
    public var authenticated: Bool
    /// `Darwin arm64 macOS 15.5`, `Linux x86_64 Debian GNU/Linux 12 (bookworm)`.
    public var platform: String?
    /// First line of `swift --version` (or `xcodebuild -version`).
    public var toolchainVersion: String?
    /// Free bytes in the file system of the work root.
    public var freeDiskBytes: Int64?
    /// Time from starting the probe command to its first byte of output, in milliseconds.
    public var latencyMs: Double?
    /// The failed checks in one line: the reason admission gives for setting the host aside.
    public var problem: String?
    /// `connect`, then the admission probe's checks (`HostProbe.checkNames`).
    public var checks: [HostProbe.Check]
    /// `--deep`: each step of the whole test path on a tiny package, proven or failed.
    public var deep: [DeepCheck.Outcome]? = nil

    public init(host: String, ok: Bool = false, reachable: Bool = false, hostKeyVerified: Bool = false,
                authenticated: Bool = false, platform: String? = nil, toolchainVersion: String? = nil,
                freeDiskBytes: Int64? = nil, latencyMs: Double? = nil, problem: String? = nil, checks: [HostProbe.Check] = []) {
        self.host = host
        self.ok = ok
        self.reachable = reachable
        self.hostKeyVerified = hostKeyVerified
        self.authenticated = authenticated
        self.platform = platform
        self.toolchainVersion = toolchainVersion
        self.freeDiskBytes = freeDiskBytes
        self.latencyMs = latencyMs
        self.problem = problem
        self.checks = checks
    }
}

/// Checks hosts in parallel with admission's own probe (`HostHealth.check`): a host shown ✓ is
/// one the run admits, a ✘ check says what admission would set it aside for, in the same words.
public enum HostChecker {
    /// `deep`: after a healthy probe, also run `DeepCheck` (the whole test path on a tiny package);
    /// `simulator`: the simulator destination it boots on Apple hosts.
    public static func check(_ hosts: [HostSpec], timeouts: PhaseTimeouts,
                             minimumFreeBytes: Int64 = HostProbe.defaultMinimumFreeBytes,
                             deep: Bool = false, simulator: XcodeDestination? = nil,
                             environment: [String: String] = ProcessInfo.processInfo.environment) async -> [HostCheckResult] {
        await withTaskGroup(of: (Int, HostCheckResult).self) { group in
            for (i, h) in hosts.enumerated() {
                group.addTask { (i, await checkOne(h, timeouts: timeouts, minimumFreeBytes: minimumFreeBytes, deep: deep, simulator: simulator, environment: environment)) }
            }
            var results = [HostCheckResult?](repeating: nil, count: hosts.count)
            for await (i, r) in group { results[i] = r }
            return results.enumerated().map { $0.element ?? HostCheckResult(host: hosts[$0.offset].name, problem: "not checked") }
        }
    }

    /// A summary line per host, e.g. `✓ h1  Linux x86_64 …  Swift version 6.3.1  12.3 GiB free  4 ms`,
    /// then one indented line per check: `✓`/`✘`, its name and what was found or what to fix.
    public static func format(_ r: HostCheckResult) -> String {
        var parts = [(r.ok ? "✓ " : "✘ ") + r.host]
        if let p = r.platform { parts.append(p) }
        if let t = r.toolchainVersion { parts.append(t) }
        if let d = r.freeDiskBytes { parts.append(String(format: "%.1f GiB free", Double(d) / 1_073_741_824)) }
        if let l = r.latencyMs { parts.append(String(format: "%.0f ms", l)) }
        let width = r.checks.map(\.name.count).max() ?? 0
        let lines = r.checks.map { c in
            "    \(c.ok ? "✓" : "✘") \(c.name.padding(toLength: width, withPad: " ", startingAt: 0))  \(c.detail.replacingOccurrences(of: "\n", with: " "))"
        }
        return ([parts.joined(separator: "  ")] + lines).joined(separator: "\n")
    }

    /// `hosts check --json`: `{"ok": …, "hosts": [{"name", "ok", "checks": [{"name", "ok", "detail"}], …}]}`.
    public static func json(_ results: [HostCheckResult]) -> String {
        struct Host: Encodable {
            var name: String
            var ok: Bool
            var checks: [HostProbe.Check]
            var platform: String?
            var toolchain: String?
            var freeDiskBytes: Int64?
            var latencyMs: Double?
            var problem: String?
            var deep: [DeepCheck.Outcome]?
        }
        struct Document: Encodable {
            var ok: Bool
            var hosts: [Host]
        }
        let document = Document(ok: results.allSatisfy(\.ok), hosts: results.map {
            Host(name: $0.host, ok: $0.ok, checks: $0.checks, platform: $0.platform, toolchain: $0.toolchainVersion,
                 freeDiskBytes: $0.freeDiskBytes, latencyMs: $0.latencyMs.map { ($0 * 10).rounded() / 10 }, problem: $0.problem, deep: $0.deep)
        })
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(document)).map { String(decoding: $0, as: UTF8.self) } ?? #"{"ok": false, "hosts": []}"#
    }

    static func checkOne(_ host: HostSpec, timeouts: PhaseTimeouts, minimumFreeBytes: Int64, deep: Bool = false,
                         simulator: XcodeDestination? = nil, environment: [String: String]) async -> HostCheckResult {
        var r = HostCheckResult(host: host.name)
        let shell: any RemoteShell
        let connected: String
        switch host.transport {
        case .local:
            shell = LocalShell(host: host)
            connected = "this machine, no ssh"
        case .ssh:
            do {
                shell = try await SSHShell.connect(host, timeouts: timeouts, environment: environment)
                connected = "\(host.user)@\(host.address):\(host.port): host key verified, authenticated"
            } catch let e as RemoteShellError {
                switch e.kind {
                case .hostKey: r.reachable = true
                case .authentication: r.reachable = true; r.hostKeyVerified = true
                default: break
                }
                // A missing passphrase variable is found before connecting: reachability is unknown.
                r.problem = e.message
                r.checks = [HostProbe.Check("connect", ok: false, e.message)]
                return r
            } catch {
                r.problem = "\(error)"
                r.checks = [HostProbe.Check("connect", ok: false, "\(error)")]
                return r
            }
        }
        r.reachable = true; r.hostKeyVerified = true; r.authenticated = true
        let health = await HostHealth.check(shell: shell, host: host, minimumFreeBytes: minimumFreeBytes)
        var deepOutcomes: [DeepCheck.Outcome]?
        if deep && health.isHealthy {
            let apple = health.system?.hasPrefix("Darwin") == true
            let platform: DeepCheck.Platform = apple ? .apple(developerDir: host.toolchain.developerDir, simulator: simulator)
                : .linux(swiftPath: host.toolchain.swiftPath ?? "swift")
            deepOutcomes = await DeepCheckRunner.run(shell: shell, platform: platform)
        }
        await shell.close()
        r.platform = [health.system, health.os].compactMap { $0 }.joined(separator: " ")
        if r.platform?.isEmpty == true { r.platform = nil }
        r.toolchainVersion = health.toolchain
        r.freeDiskBytes = health.freeBytes
        r.latencyMs = health.latencyMs
        r.problem = health.reason
        r.ok = health.isHealthy
        r.checks = [HostProbe.Check("connect", ok: true, connected)] + health.checks
        if let deepOutcomes {
            r.deep = deepOutcomes
            r.checks += deepOutcomes.map { HostProbe.Check("deep: " + $0.name, ok: $0.proven, ($0.proven ? "proven: " : "failed: ") + $0.detail + " — " + $0.command) }
            if !deepOutcomes.allSatisfy(\.proven) {
                r.ok = false
                let failed = deepOutcomes.first { !$0.proven }
                r.problem = [r.problem, failed.map { "deep check: \($0.name) failed: \($0.detail)" }].compactMap { $0 }.joined(separator: "; ")
            }
        }
        return r
    }
}
