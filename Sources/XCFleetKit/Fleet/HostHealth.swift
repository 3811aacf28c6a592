import Foundation
import XCFleetModel
import XCFleetHostScripts

/// The check a host passes before its first job: one command through its shell that reports the
/// system (`uname -sm`), free disk under the work root (`df -Pk`, creating the root), and the
/// toolchain (`xcodebuild -version` with `DEVELOPER_DIR` on Xcode hosts, else `swift --version`).
/// Reachability, host key and authentication are proven by the shell having run the command.
public enum HostHealth {
    public struct Result: Equatable, Sendable {
        public var host: String
        /// `Darwin arm64`, `Linux x86_64`.
        public var system: String?
        public var freeBytes: Int64?
        /// First line of the toolchain's version output (`Swift version 6.3.1 (…)`, `Xcode 16.4`).
        public var toolchain: String?
        /// What is wrong, each saying what to fix; empty when healthy.
        public var problems: [String]
        /// The host's toolchain identity for build keys (`ToolchainIdentity`): system, the
        /// toolchain's whole version output and `DEVELOPER_DIR`.
        public var toolchainIdentity: String?
        /// CPU model and count (`Apple M2 Pro ×12`), when the host tells (`HostProfile`).
        public var cpu: String? = nil

        public var isHealthy: Bool { problems.isEmpty }
        /// The problems in one line, for "host set aside: …".
        public var reason: String? { problems.isEmpty ? nil : problems.joined(separator: "; ") }
    }

    public static let defaultMinimumFreeBytes: Int64 = 2 << 30

    /// Runs the check. Never throws: a shell failure is an unhealthy result with the reason.
    public static func check(shell: any RemoteShell, host: HostSpec, minimumFreeBytes: Int64 = defaultMinimumFreeBytes,
                             deadlines: CommandDeadlines = CommandDeadlines(total: 60, silence: 60)) async -> Result {
        let sink = OutputSink(limit: 64 << 10)
        let command = ShellCommand(["sh", "-c", script, "sh", host.workRoot, host.toolchain.swiftPath ?? "swift", host.toolchain.developerDir ?? ""])
        do {
            let termination = try await shell.run(command, in: "/", deadlines: deadlines) { sink.add($0) }
            guard termination == .exited(0) else {
                return Result(host: host.name, problems: ["health check command \(CommandProvisioner.ending(termination, deadlines: deadlines)): \(sink.stderrTail)"])
            }
        } catch {
            return Result(host: host.name, problems: ["unreachable: \(error)"])
        }
        return evaluate(output: sink.stdoutText, host: host, minimumFreeBytes: minimumFreeBytes)
    }

    /// Prints sections `@@uname`, `@@df STATUS`, `@@toolchain STATUS`; arguments: work root, swift, DEVELOPER_DIR.
    static let script = WorkRootSafety.shellFunctions + #"""
root=$1; swift=$2; devdir=$3
echo "@@uname"; uname -sm 2>&1
if (umask 077; mkdir -p "$root") 2>/dev/null; then out=$(df -Pk "$root" 2>&1); st=$?; else out="cannot create $root"; st=1; fi
echo "@@df $st"; printf '%s\n' "$out"
out=""; st=0
for d in "$root" "$root/.cache" "$root/builds" "$root/builds/.pins" "$root/.xcfleet-leases" "$root/jobs"; do
  if [ "$d" = "$root" ] || [ -e "$d" ] || [ -L "$d" ]; then o=$(xcf_private "$d" 2>&1) || { st=1; out="$o"; break; }; fi
done
echo "@@private $st"; printf '%s\n' "$out"
if [ -n "$devdir" ]; then out=$(DEVELOPER_DIR="$devdir" xcodebuild -version 2>&1); st=$?
else out=$("$swift" --version 2>&1); st=$?; fi
echo "@@toolchain $st"; printf '%s\n' "$out"
echo "@@cpu"; { sysctl -n machdep.cpu.brand_string 2>/dev/null || sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -n 1; } | head -n 1
{ sysctl -n hw.ncpu 2>/dev/null || getconf _NPROCESSORS_ONLN 2>/dev/null; } | head -n 1
echo "@@end"
"""#

    /// Judges the script's output (pure).
    static func evaluate(output: String, host: HostSpec, minimumFreeBytes: Int64) -> Result {
        var sections: [String: (status: Int?, lines: [String])] = [:]
        var current: String?
        for raw in output.split(separator: "\n", omittingEmptySubsequences: false) {
            let line = String(raw)
            if line.hasPrefix("@@") {
                let parts = line.dropFirst(2).split(separator: " ", maxSplits: 1).map(String.init)
                current = parts.first
                if let name = current { sections[name] = (parts.count > 1 ? Int(parts[1]) : nil, []) }
            } else if let name = current, !line.isEmpty {
                sections[name]?.lines.append(line)
            }
        }
        var result = Result(host: host.name, problems: [])
        guard sections["end"] != nil else {
            result.problems.append("health check output was cut short: \(ProvisionedHost.excerpt(output.suffix(300).description))")
            return result
        }
        result.system = sections["uname"]?.lines.first
        if let cpu = sections["cpu"]?.lines.map({ $0.trimmingCharacters(in: .whitespaces) }).filter({ !$0.isEmpty }), let model = cpu.first {
            let count = cpu.count > 1 ? Int(cpu[1]) : nil
            result.cpu = String(model.prefix(120)) + (count.map { " ×\($0)" } ?? "")
        }
        if let system = result.system {
            let os = system.split(separator: " ").first.map(String.init) ?? ""
            if host.labels.contains("platform:macos") && os != "Darwin" {
                result.problems.append("labelled platform:macos but the host runs \(system); fix the host's labels")
            } else if host.labels.contains("platform:linux") && os != "Linux" {
                result.problems.append("labelled platform:linux but the host runs \(system); fix the host's labels")
            }
        }
        if let df = sections["df"] {
            if df.status == 0, let free = freeBytes(dfLines: df.lines) {
                result.freeBytes = free
                if free < minimumFreeBytes {
                    result.problems.append("only \(megabytes(free)) MB free under \(host.workRoot) (needs \(megabytes(minimumFreeBytes)) MB); free some disk space")
                }
            } else {
                result.problems.append("cannot read free disk space under \(host.workRoot): \(df.lines.suffix(2).joined(separator: " | ")); check the host's \"workRoot\"")
            }
        }
        if let p = sections["private"], p.status != 0 {
            let line = p.lines.first.map { $0.hasPrefix("xcfleet: ") ? String($0.dropFirst(9)) : $0 } ?? "the work root is not private"
            result.problems.append(String(line.prefix(400)))
        }
        if let tool = sections["toolchain"] {
            let usesXcode = !(host.toolchain.developerDir ?? "").isEmpty
            let first = tool.lines.first(where: { !$0.trimmingCharacters(in: .whitespaces).isEmpty })
            if tool.status == 0, let first {
                result.toolchain = first
                result.toolchainIdentity = ToolchainIdentity.text(system: result.system ?? "", versionLines: tool.lines,
                                                                  developerDir: host.toolchain.developerDir)
                if let xcode = host.toolchain.xcode, usesXcode, !first.hasPrefix("Xcode \(xcode)") {
                    result.problems.append("expected Xcode \(xcode) but \(host.toolchain.developerDir ?? "") has \(first); fix \"toolchain.xcode\" or \"developerDir\"")
                }
            } else {
                let what = usesXcode ? "xcodebuild -version with DEVELOPER_DIR=\(host.toolchain.developerDir ?? "")"
                                     : "\(host.toolchain.swiftPath ?? "swift") --version"
                let detail = tool.lines.suffix(2).joined(separator: " | ")
                result.problems.append("toolchain missing: \(what) failed (status \(tool.status.map(String.init) ?? "?"))\(detail.isEmpty ? "" : ": \(ProvisionedHost.excerpt(detail))"); fix \"toolchain\" for this host")
            }
        }
        return result
    }

    /// Available KiB (4th column) of the last data line of `df -Pk`, in bytes.
    static func freeBytes(dfLines: [String]) -> Int64? {
        guard dfLines.count >= 2, let last = dfLines.last else { return nil }
        let columns = last.split(whereSeparator: { $0 == " " || $0 == "\t" })
        guard columns.count >= 6, let kib = Int64(columns[columns.count - 3]) else { return nil }
        let (bytes, overflow) = kib.multipliedReportingOverflow(by: 1024)
        return overflow ? Int64.max : bytes
    }

    private static func megabytes(_ bytes: Int64) -> Int64 { bytes / 1_048_576 }
}
