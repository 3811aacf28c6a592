import Foundation
import XCFleetModel

extension Workspace {
    /// Writes the tree under `directory` (created if missing).
    public func write(to directory: URL) throws {
        let fm = FileManager.default
        for f in files {
            if let problem = Workspace.pathProblem(f.path) {
                throw WorkspaceError.unsafePath(f.path, problem)
            }
            let url = directory.appendingPathComponent(f.path)
            try fm.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try f.contents.write(to: url)
            if f.executable {
                try fm.setAttributes([.posixPermissions: 0o755], ofItemAtPath: url.path)
            }
        }
    }
}
