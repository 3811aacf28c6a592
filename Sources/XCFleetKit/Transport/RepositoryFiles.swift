import Foundation
import XCFleetModel

/// The files a team's own suite pushes: what git tracks in the repository that holds the plan,
/// plus the untracked files git does not ignore under the suite's own folder (a dirty tree is
/// tested as it is), never `.build`, DerivedData, result bundles or anything git ignores.
///
/// Names come from a user's repository and are untrusted: a path that is not plain (absolute,
/// `..`, control characters), a link that leads out of the repository and anything that is not a
/// regular file or a link are left out with the reason, never followed.
package enum RepositoryFiles {
    package struct Listing: Equatable, Sendable {
        /// The repository's top folder (absolute).
        package var root: String
        /// Paths relative to `root`, sorted, each once.
        package var files: [String]
        /// Paths left out, with why.
        package var skipped: [Skipped]
    }

    package struct Skipped: Equatable, Sendable {
        package var path: String
        package var reason: String
    }

    package struct ListingError: Error, Equatable, CustomStringConvertible, UserFacingError {
        package var directory: String
        package var reason: String
        package var description: String { "\(TerminalText.sanitize(directory)): \(TerminalText.sanitize(reason))" }
        package var userMessage: String { description }
        package var exitCode: Int32 { UserFacingErrors.ExitCode.usage }
    }

    /// Folders whose contents are build products wherever they are, even when a repository
    /// forgot to ignore them.
    package static let productFolders: Set<String> = [".build", "DerivedData", ".swiftpm-build"]
    package static let productSuffixes = [".xcresult", ".xctestproducts"]

    /// Lists the repository that holds `directory`; untracked files are taken from `directory` only.
    package static func list(directory: String, deadlines: CommandDeadlines = CommandDeadlines(total: 60, silence: 60)) async throws -> Listing {
        let top = try await git(["rev-parse", "--show-toplevel"], in: directory, deadlines: deadlines)
        let root = String(decoding: top, as: UTF8.self).trimmingCharacters(in: .newlines)
        guard root.hasPrefix("/") else { throw ListingError(directory: directory, reason: "git gave no repository folder") }
        let scope = relative(URL(fileURLWithPath: directory).standardizedFileURL.resolvingSymlinksInPath().path,
                             to: URL(fileURLWithPath: root).resolvingSymlinksInPath().path)
        let tracked = try await git(["ls-files", "-z", "--cached", "--full-name"], in: root, deadlines: deadlines)
        var others: [UInt8] = []
        if let scope {
            others = try await git(["ls-files", "-z", "--others", "--exclude-standard", "--full-name", "--", scope.isEmpty ? "." : scope],
                                   in: root, deadlines: deadlines)
        }
        let names = split(tracked) + split(others)
        return try await offPool { filter(names, root: root) }
    }

    /// Splits `git ls-files -z` output.
    static func split(_ bytes: [UInt8]) -> [String] {
        bytes.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
    }

    /// `path` relative to `root` ("" for the root itself), or nil when it is outside.
    static func relative(_ path: String, to root: String) -> String? {
        if path == root { return "" }
        guard SafePath.isStrictlyInside(path, parent: root) else { return nil }
        return String(path.dropFirst(root.count + (root.hasSuffix("/") ? 0 : 1)))
    }

    /// Keeps plain, present regular files and links that stay inside the repository.
    package static func filter(_ names: [String], root: String) -> Listing {
        var seen = Set<String>()
        var files: [String] = []
        var skipped: [Skipped] = []
        let realRoot = URL(fileURLWithPath: root).resolvingSymlinksInPath().path
        for name in names where seen.insert(name).inserted {
            let parts = name.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
            if let problem = parts.lazy.compactMap(SafePath.componentProblem).first {
                skipped.append(Skipped(path: name, reason: "not a plain path (a component \(problem))")); continue
            }
            if parts.dropLast().contains(where: productFolders.contains) || productFolders.contains(parts.last ?? "")
                || productSuffixes.contains(where: { suffix in parts.contains { $0.hasSuffix(suffix) } }) {
                skipped.append(Skipped(path: name, reason: "a build product")); continue
            }
            let full = root + "/" + name
            var info = stat()
            guard lstat(full, &info) == 0 else {
                // Tracked but deleted in the working tree: the tree is pushed as it is.
                skipped.append(Skipped(path: name, reason: "missing in the working tree")); continue
            }
            switch info.st_mode & S_IFMT {
            case S_IFREG:
                files.append(name)
            case S_IFLNK:
                let target = URL(fileURLWithPath: full).resolvingSymlinksInPath().path
                if SafePath.isStrictlyInside(target, parent: realRoot) { files.append(name) }
                else { skipped.append(Skipped(path: name, reason: "a link that leads out of the repository")) }
            case S_IFDIR:
                // A submodule (git lists its folder): its files are not this repository's.
                skipped.append(Skipped(path: name, reason: "a submodule or folder; its files are not pushed"))
            default:
                skipped.append(Skipped(path: name, reason: "not a regular file"))
            }
        }
        return Listing(root: root, files: files.sorted(), skipped: skipped)
    }

    private static func git(_ arguments: [String], in directory: String, deadlines: CommandDeadlines) async throws -> [UInt8] {
        // No user configuration can run code here: no pager, no fsmonitor hook, no external diff.
        let argv = ["git", "-c", "core.fsmonitor=false", "-c", "core.pager=cat", "-C", directory] + arguments
        let result = try await LocalCommand.run(argv, environment: ["GIT_OPTIONAL_LOCKS": "0", "GIT_TERMINAL_PROMPT": "0"],
                                                deadlines: deadlines, stdoutLimit: 256 << 20)
        guard result.termination == .exited(0), !result.stdoutTruncated else {
            let why = result.stderrTail.isEmpty ? "\(result.termination)" : result.stderrTail
            if why.contains("not a git repository") {
                throw ListingError(directory: directory, reason: "not inside a git repository; xcfleet pushes the files git tracks (run `git init` and add the package's files)")
            }
            throw ListingError(directory: directory, reason: "git \(arguments.first ?? "") failed: \(why)")
        }
        return result.stdout
    }
}
