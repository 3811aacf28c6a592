import Foundation
import XCFleetModel

extension TemplateRoot {
    /// Where the map's paths start: the git top level above the templates root (a `.git` folder
    /// or file), else the templates root itself when it is a checkout (has `Package.swift`), else
    /// (an installed `share/xcfleet`) the templates root, labelled as such.
    /// Returns the base and the templates root's path relative to it (`""` or `tools/xcfleet/`).
    public func sourceBase() -> (base: SourceMap.Base, prefix: String) {
        let fm = FileManager.default
        let start = url.standardizedFileURL.resolvingSymlinksInPath()
        var dir = start
        var rel: [String] = []
        for _ in 0..<64 {
            if fm.fileExists(atPath: dir.appendingPathComponent(".git").path) {
                return (.repository, rel.reversed().map { $0 + "/" }.joined())
            }
            let parent = dir.deletingLastPathComponent()
            if parent.path == dir.path { break }
            rel.append(dir.lastPathComponent)
            dir = parent
        }
        if fm.fileExists(atPath: start.appendingPathComponent("Package.swift").path) { return (.repository, "") }
        return (.templates, "")
    }

    /// `path` relative to the git top level above it (a `.git` folder or file), symbolic links
    /// resolved; nil when no repository holds it.
    public static func repositoryPath(of path: String) -> String? {
        let fm = FileManager.default
        var dir = URL(fileURLWithPath: path).standardizedFileURL.resolvingSymlinksInPath()
        var rel: [String] = [dir.lastPathComponent]
        dir = dir.deletingLastPathComponent()
        for _ in 0..<64 {
            if fm.fileExists(atPath: dir.appendingPathComponent(".git").path) { return rel.reversed().joined(separator: "/") }
            let parent = dir.deletingLastPathComponent()
            if parent.path == dir.path { return nil }
            rel.append(dir.lastPathComponent)
            dir = parent
        }
        return nil
    }
}
