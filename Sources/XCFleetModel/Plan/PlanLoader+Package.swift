import Foundation
import XCFleetBasics

/// A suite's `package` (README, "A team's own package"): a folder with a `Package.swift`, relative
/// to the plan's folder, inside the git repository that holds the plan (the nearest folder above it
/// with `.git`, else the plan's own folder), symbolic links resolved; plus `filter` and `skip`,
/// lists of test names or patterns (`TestSelection`) carried into every shard.
extension PlanLoader {
    /// Keys that only a package suite takes.
    static let packageOnlyKeys = ["package", "filter", "skip"]
    static let packageKeysInDefaults = ["package": "set the package in each suite",
                                        "filter": "set filter in the package suite it narrows",
                                        "skip": "set skip in the package suite it narrows"]

    /// The `template` of a suite that names a package: "" — or nil (with the problem) when it names a template too.
    static func packageSuiteTemplate(_ object: SchemaObject, reader r: inout SchemaReader) -> String? {
        if let field = object.field("template") {
            r.report("a suite names either a \"template\" or a \"package\", not both; remove one of them", field)
            return nil
        }
        return ""
    }

    /// The suite's package, when it names one. `ok` is false when a problem was reported (also for
    /// `filter`/`skip` without a package, or keys a package suite cannot use).
    static func readPackageSuite(_ object: SchemaObject, merged: (mutants: Bool, destination: String?), planPath: String,
                                 reader r: inout SchemaReader) -> (ok: Bool, suite: PackageSuite?) {
        guard let field = object.field("package") else {
            var ok = true
            for key in ["filter", "skip"] {
                guard let f = object.field(key) else { continue }
                r.report("\(key) narrows the tests of a package suite; this suite names a template (add \"package\" or remove \(key))", f)
                ok = false
            }
            return (ok, nil)
        }
        var ok = true
        if let f = object.field("subject") {
            r.report("a package suite runs the package's own tests; a subject goes under a contract template (remove \"subject\" or use \"template\")", f)
            ok = false
        }
        if merged.mutants {
            r.report("a package suite has no mutants (they belong to templates and subjects); set \"mutants\": false",
                     at: object.path, object.position)
            ok = false
        }
        if merged.destination != nil {
            r.report("a package suite runs `swift test` on the host; \"destination\" is for Xcode suites (remove it)",
                     at: object.path, object.position)
            ok = false
        }
        let filter = object.field("filter").flatMap { selection($0, reader: &r, ok: &ok) }
        let skip = object.field("skip").flatMap { selection($0, reader: &r, ok: &ok) }

        guard let rel = r.nonEmptyString(field, what: "a package folder relative to the plan, e.g. \"..\" or \"Packages/Core\"") else {
            return (false, nil)
        }
        if rel.hasPrefix("/") {
            r.report("the package path must be relative to the plan (got an absolute path)", field)
            return (false, nil)
        }
        if rel.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
            r.report("control character in the package path", field)
            return (false, nil)
        }
        let planDir = SafePath.resolvedExisting(URL(fileURLWithPath: planPath).standardizedFileURL.deletingLastPathComponent().path)
        let repository = repositoryRoot(above: planDir)
        let resolved = SafePath.resolvedExisting(URL(fileURLWithPath: planDir).appendingPathComponent(rel).standardizedFileURL.path)
        guard resolved == repository || SafePath.isStrictlyInside(resolved, parent: repository) else {
            r.report("the package path '\(SchemaReader.excerpt(rel))' leaves the repository \(repository) (resolved: \(resolved)); only files of the repository that holds the plan are pushed", field)
            return (false, nil)
        }
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: resolved, isDirectory: &isDir), isDir.boolValue else {
            r.report("package folder '\(SchemaReader.excerpt(rel))' does not exist (looked at \(resolved))", field)
            return (false, nil)
        }
        guard FileManager.default.fileExists(atPath: resolved + "/Package.swift") else {
            r.report("'\(SchemaReader.excerpt(rel))' holds no Package.swift; name the folder of a SwiftPM package (looked at \(resolved))", field)
            return (false, nil)
        }
        let directory = resolved == repository ? "" : String(resolved.dropFirst(repository.count + (repository.hasSuffix("/") ? 0 : 1)))
        if !directory.allSatisfy({ $0 == "/" || PackageSuite.isPlainPathCharacter($0) }) {
            r.report("the package folder's path in the repository ('\(SchemaReader.excerpt(directory))') may hold only letters, digits, '.', '_', '-' and '/'; move or rename the folder", field)
            return (false, nil)
        }
        guard ok else { return (false, nil) }
        return (true, PackageSuite(path: rel, repository: repository, directory: directory, filter: filter, skip: skip))
    }

    /// `filter` / `skip`: a non-empty array of entries `TestSelection` accepts.
    static func selection(_ field: SchemaField, reader r: inout SchemaReader, ok: inout Bool) -> [String]? {
        let entries = r.array(field) { r, element -> String? in
            guard let s = r.string(element) else { return nil }
            if let problem = TestSelection.problem(s) {
                r.report("\(problem) (got '\(SchemaReader.excerpt(s))'); write test names such as \"ShelfTests.ShelfTests/testPutAndTake\", \"ShelfSwiftTests.OrderTests\" or \"*/testSlow*\"", element)
                return nil
            }
            return s
        }
        guard let entries else { ok = false; return nil }
        if entries.isEmpty {
            r.report("list at least one test name (or leave the key out)", field)
            ok = false
            return nil
        }
        return entries
    }
}

extension SuiteSpec {
    /// This suite with `package` set.
    func withPackage(_ package: PackageSuite?) -> SuiteSpec {
        var copy = self
        copy.package = package
        return copy
    }
}
