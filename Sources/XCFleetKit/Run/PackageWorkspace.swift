import Foundation
import XCFleetBasics
import XCFleetModel

/// A package or Xcode project suite's workspace: the files of the git repository that holds the plan
/// (`RepositoryFiles`: tracked files, plus untracked files git does not ignore under the package's
/// folder; never `.build`, DerivedData or ignored files), read as they are in the working tree.
/// The team's `Package.swift` is pushed as it is.
package enum PackageWorkspace {
    /// Largest file pushed (a bigger one is a problem to fix in the repository, not to push).
    static let fileLimit = 64 << 20

    /// Reads every package and Xcode project suite's repository once (suites of one folder share it).
    static func read(_ plan: TestPlan) async throws -> [String: Workspace] {
        var byRepository: [String: Workspace] = [:]
        var out: [String: Workspace] = [:]
        for suite in plan.suites {
            let folder: String
            if let package = suite.package { folder = package.packageFolder(in: package.repository) }
            else if let project = suite.xcodeProject { folder = project.containerFolder }
            else { continue }
            if byRepository[folder] == nil { byRepository[folder] = try await read(folder: folder) }
            out[suite.name] = byRepository[folder]
        }
        return out
    }

    /// The repository that holds `folder`, its untracked files taken from `folder` only.
    /// Files unchanged since an earlier read are not hashed again (`FileHashCache`; `hashCache`
    /// names its folder, nil: the user's cache folder).
    package static func read(folder: String, hashCache: String? = nil) async throws -> Workspace {
        let listing = try await RepositoryFiles.list(directory: folder)
        let root = listing.root
        return try await offPool {
            var cache = FileHashCache(root: root, folder: hashCache)
            var files: [WorkspaceFile] = []
            for name in listing.files {
                let path = root + "/" + name
                let data: Data
                guard let before = FileHashCache.stamp(path) else {
                    throw RepositoryFiles.ListingError(directory: root, reason: "cannot read \(name): it is gone")
                }
                do { data = try InputFile.read(path, limit: fileLimit) } catch {
                    throw RepositoryFiles.ListingError(directory: root, reason: "cannot read \(name): \(error)")
                }
                files.append(cache.file(name, contents: data, before: before, after: FileHashCache.stamp(path)))
            }
            cache.save(keeping: Set(listing.files))
            return Workspace(files: files)
        }
    }
}
