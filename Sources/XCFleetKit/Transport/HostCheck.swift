import Foundation
import SSHClient
import XCFleetBasics
import XCFleetModel

/// What `xcfleet hosts check` found out about one host.
public struct HostCheckResult: Equatable, Sendable {
    public var host: String
    /// Reachable, key verified, authenticated, toolchain found, free disk known.
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
    /// Round trip of `true` on the open connection, in milliseconds.
    public var latencyMs: Double?
    public var problem: String?

    public init(host: String, ok: Bool = false, reachable: Bool = false, hostKeyVerified: Bool = false,
                authenticated: Bool = false, platform: String? = nil, toolchainVersion: String? = nil,
                freeDiskBytes: Int64? = nil, latencyMs: Double? = nil, problem: String? = nil) {
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
    }
}

/// Checks hosts in parallel: connect, host key, auth, platform, toolchain, free disk, latency.
public enum HostChecker {
    public static func check(_ hosts: [HostSpec], timeouts: PhaseTimeouts,
                             environment: [String: String] = ProcessInfo.processInfo.environment) async -> [HostCheckResult] {
        await withTaskGroup(of: (Int, HostCheckResult).self) { group in
            for (i, h) in hosts.enumerated() {
                group.addTask { (i, await checkOne(h, timeouts: timeouts, environment: environment)) }
            }
            var results = [HostCheckResult?](repeating: nil, count: hosts.count)
            for await (i, r) in group { results[i] = r }
            return results.enumerated().map { $0.element ?? HostCheckResult(host: hosts[$0.offset].name, problem: "not checked") }
        }
    }

    /// One line per host, e.g. `✓ h1  Linux x86_64 …  Swift version 6.3.1  12.3 GiB free  4 ms`.
    public static func format(_ r: HostCheckResult) -> String {
        var parts = [(r.ok ? "✓ " : "✗ ") + r.host]
        if let p = r.platform { parts.append(p) }
        if let t = r.toolchainVersion { parts.append(t) }
        if let d = r.freeDiskBytes { parts.append(String(format: "%.1f GiB free", Double(d) / 1_073_741_824)) }
        if let l = r.latencyMs { parts.append(String(format: "%.0f ms", l)) }
        if let problem = r.problem { parts.append("— " + problem.replacingOccurrences(of: "\n", with: " ")) }
        return parts.joined(separator: "  ")
    }

    /// The probe script: one `KEY=value` per line.
    static func probeScript(for host: HostSpec) -> String {
        let toolchain: String
        if let dev = host.toolchain.developerDir {
            toolchain = "DEVELOPER_DIR=\(ShellQuote.quote(dev)) xcodebuild -version 2>&1 | head -n 1"
        } else {
            toolchain = "\(ShellQuote.quote(host.toolchain.swiftPath ?? "swift")) --version 2>&1 | grep -m 1 -i 'swift'"
        }
        let root = ShellQuote.quote(host.workRoot)
        return [
            "echo \"UNAME=$(uname -sm)\"",
            "if command -v sw_vers >/dev/null 2>&1; then echo \"OS=macOS $(sw_vers -productVersion)\"; elif [ -r /etc/os-release ]; then ( . /etc/os-release; echo \"OS=$PRETTY_NAME\" ); fi",
            "echo \"TOOLCHAIN=$(\(toolchain))\"",
            "mkdir -p \(root) 2>/dev/null; echo \"DF=$(df -Pk \(root) 2>/dev/null | tail -n 1)\"",
        ].joined(separator: "; ")
    }

    /// Parses the probe output into platform, toolchain and free bytes.
    static func parseProbe(_ text: String) -> (platform: String?, toolchain: String?, freeBytes: Int64?) {
        var uname: String?, os: String?, toolchain: String?, free: Int64?
        for line in text.split(separator: "\n").map(String.init) {
            if line.hasPrefix("UNAME=") { uname = String(line.dropFirst(6)) }
            if line.hasPrefix("OS=") { os = String(line.dropFirst(3)) }
            if line.hasPrefix("TOOLCHAIN=") {
                let v = String(line.dropFirst(10)).trimmingCharacters(in: .whitespaces)
                toolchain = v.isEmpty || v.contains("not found") || v.contains("No such file") ? nil : v
            }
            if line.hasPrefix("DF=") {
                // Filesystem 1024-blocks Used Available Capacity Mounted-on
                let fields = line.dropFirst(3).split(separator: " ")
                if fields.count >= 4, let kib = Int64(fields[3]) { free = kib.multipliedReportingOverflow(by: 1024).partialValue }
            }
        }
        let platform = [uname, os].compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: " ")
        return (platform.isEmpty ? nil : platform, toolchain, free)
    }

    static func checkOne(_ host: HostSpec, timeouts: PhaseTimeouts, environment: [String: String]) async -> HostCheckResult {
        var r = HostCheckResult(host: host.name)
        guard host.transport == .ssh else {
            r.ok = true; r.reachable = true; r.hostKeyVerified = true; r.authenticated = true
            r.platform = "local " + ProcessInfo.processInfo.operatingSystemVersionString
            return r
        }
        let shell: SSHShell
        do {
            shell = try await SSHShell.connect(host, timeouts: timeouts, environment: environment)
        } catch let e as RemoteShellError {
            switch e.kind {
            case .hostKey: r.reachable = true
            case .authentication: r.reachable = true; r.hostKeyVerified = true
            default: break
            }
            // A missing passphrase variable is found before connecting: reachability is unknown.
            r.problem = e.message
            return r
        } catch {
            r.problem = "\(error)"
            return r
        }
        r.reachable = true; r.hostKeyVerified = true; r.authenticated = true
        r = await probe(shell, host: host, timeouts: timeouts, result: r)
        await shell.close()
        return r
    }

    private static func probe(_ shell: SSHShell, host: HostSpec, timeouts: PhaseTimeouts, result: HostCheckResult) async -> HostCheckResult {
        var r = result
        do {
            let probe = try await shell.runSmall(probeScript(for: host), phase: .toolchain, total: max(10, timeouts.connect))
            let parsed = parseProbe(String(decoding: probe.stdout, as: UTF8.self))
            r.platform = parsed.platform
            r.toolchainVersion = parsed.toolchain
            r.freeDiskBytes = parsed.freeBytes
            let start = DispatchTime.now().uptimeNanoseconds
            let ping = try await shell.runSmall("true", phase: .command, total: max(10, timeouts.connect))
            if ping.result == .exited(0) {
                r.latencyMs = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
            }
        } catch {
            r.problem = "\(error)"
            return r
        }
        var problems: [String] = []
        if r.toolchainVersion == nil {
            problems.append("no toolchain: \(host.toolchain.developerDir != nil ? "xcodebuild" : (host.toolchain.swiftPath ?? "swift")) not found; set toolchain.swiftPath or developerDir")
        }
        if r.freeDiskBytes == nil { problems.append("cannot read free disk under \(host.workRoot)") }
        r.problem = problems.isEmpty ? nil : problems.joined(separator: "; ")
        r.ok = problems.isEmpty
        return r
    }
}
