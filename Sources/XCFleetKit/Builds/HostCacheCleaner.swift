import Foundation
import XCFleetBasics
import XCFleetModel

/// `xcfleet hosts clean`: empties each host's build and push caches on purpose. Entries that a
/// running job (of any xcfleet process) uses stay; everything else goes, under the build lock.
public enum HostCacheCleaner {
    public struct Result: Equatable, Sendable {
        public var host: String
        /// `builds/<key>` and `.cache/<hash>` entries removed.
        public var removed: [String]
        public var freedBytes: Int64
        /// Why the host could not be cleaned (nil: cleaned).
        public var problem: String?
    }

    public static func clean(_ hosts: [HostSpec], timeouts: PhaseTimeouts = .defaults,
                             shellFactory: @escaping ShellFactory = Runner.defaultShellFactory) async -> [Result] {
        await withTaskGroup(of: (Int, Result).self) { group in
            for (i, host) in hosts.enumerated() {
                group.addTask { (i, await clean(host, timeouts: timeouts, shellFactory: shellFactory)) }
            }
            var out: [(Int, Result)] = []
            for await r in group { out.append(r) }
            return out.sorted { $0.0 < $1.0 }.map(\.1)
        }
    }

    package static func clean(_ host: HostSpec, timeouts: PhaseTimeouts, shellFactory: ShellFactory) async -> Result {
        var result = Result(host: host.name, removed: [], freedBytes: 0, problem: nil)
        let shell: any RemoteShell
        do { shell = try await shellFactory(host, timeouts) } catch {
            result.problem = (error as? RemoteShellError)?.description ?? "\(error)"
            return result
        }
        defer { Task { await shell.close() } }
        let sink = OutputSink(limit: 1 << 20)
        do {
            let t = try await shell.run(BuildCacheScript.cleanCommand(workRoot: shell.host.workRoot), in: "/",
                                        deadlines: CommandDeadlines(total: 600, silence: 600)) { sink.add($0) }
            for line in sink.stdoutText.split(separator: "\n") where line.hasPrefix("XCFLEET-BUILD evicted ") {
                let parts = line.split(separator: " ")
                guard parts.count >= 4 else { continue }
                result.removed.append(String(parts[2]))
                result.freedBytes += (Int64(parts[3]) ?? 0) * 1024
            }
            if t != .exited(0) || !sink.stdoutText.contains("XCFLEET-BUILD clean") {
                let line = sink.stderrTail.split(separator: "\n").first.map(String.init) ?? "clean command ended with \(t)"
                result.problem = line.hasPrefix("xcfleet: ") ? String(line.dropFirst(9)) : line
            }
        } catch {
            result.problem = (error as? RemoteShellError)?.description ?? "\(error)"
        }
        return result
    }

    /// `host: removed 3 entries (210 MB)` or `host: FAILED …` (terminal-safe).
    public static func format(_ r: Result) -> String {
        if let p = r.problem { return TerminalText.sanitize("\(r.host): FAILED \(p)") }
        return TerminalText.sanitize("\(r.host): removed \(r.removed.count) cache entr\(r.removed.count == 1 ? "y" : "ies") (\(r.freedBytes / 1_048_576) MB)")
    }
}
