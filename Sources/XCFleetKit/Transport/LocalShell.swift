import Foundation
import XCFleetBasics
import XCFleetModel

/// The built-in `local` host: this machine, driven through the same interface as SSH hosts.
/// Each job gets a fresh directory under the host's work root (a temporary folder by default).
public struct LocalShell: RemoteShell {
    public let host: HostSpec

    public init(host: HostSpec = .local) {
        self.host = host
    }

    public func makeJobDirectory(jobID: String) async throws -> String {
        try await offPool {
            let root = URL(fileURLWithPath: host.workRoot).appendingPathComponent("jobs")
            try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            let safe = String(jobID.map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" || $0 == "." ? $0 : "_" })
            let dir = root.appendingPathComponent("\(safe)-\(UUID().uuidString.prefix(8).lowercased())")
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: false)
            return dir.path
        }
    }

    public func push(_ workspace: Workspace, to directory: String) async throws -> PushOutcome {
        try await offPool {
            do {
                try workspace.write(to: URL(fileURLWithPath: directory))
            } catch {
                throw RemoteShellError(.push, host: host.name, "\(error)")
            }
            return .pushed(bytes: workspace.totalBytes)
        }
    }

    public func run(_ command: ShellCommand, in directory: String, deadlines: CommandDeadlines,
                    output: @escaping @Sendable (OutputChunk) -> Void) async throws -> CommandTermination {
        var env = command.environment
        for (k, v) in host.environment { env[k] = v.value }
        // The toolchain goes first on PATH (as on SSH hosts), so wrapped commands find it too.
        if let swift = host.toolchain.swiftPath, swift.contains("/") {
            env["PATH"] = (swift as NSString).deletingLastPathComponent + ":" + (env["PATH"] ?? ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
        }
        if let developerDir = host.toolchain.developerDir { env["DEVELOPER_DIR"] = developerDir }
        return try await ProcessRunner.run(command.arguments, directory: directory, environment: env, deadlines: deadlines, output: output)
    }

    public func fetch(_ path: String, in directory: String) async throws -> Data {
        try await offPool {
            let url = path.hasPrefix("/") ? URL(fileURLWithPath: path) : URL(fileURLWithPath: directory).appendingPathComponent(path)
            guard let data = FileManager.default.contents(atPath: url.path) else {
                throw RemoteShellError(.fetch, host: host.name, "no file \(url.path)")
            }
            return data
        }
    }

    public func removeJobDirectory(_ directory: String) async throws {
        try await offPool {
            let jobs = URL(fileURLWithPath: host.workRoot).appendingPathComponent("jobs")
            do { try SafePath.remove(URL(fileURLWithPath: directory), inside: jobs) } catch {
                throw RemoteShellError(.cleanup, host: host.name, "cannot remove \(directory): \((error as? SafePathError)?.description ?? error.localizedDescription)")
            }
        }
    }

    public func close() async {}
}

/// Runs blocking file-system work on a dispatch queue, not on the concurrency pool.
func offPool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { cont in
        DispatchQueue.global(qos: .userInitiated).async {
            do { cont.resume(returning: try work()) } catch { cont.resume(throwing: error) }
        }
    }
}
