import Foundation
import XCFleetBasics

/// A suite's `workspace` or `project` (README, "A team's Xcode project"): an `.xcworkspace` or
/// `.xcodeproj` folder relative to the plan's folder, inside the git repository that holds the
/// plan; its `scheme` (required), optional `testPlan` and `configurations` (each its own job,
/// which needs the test plan that defines them), and the `destination` every Xcode suite needs.
/// `filter` and `skip` narrow the discovered tests as for a package suite.
extension PlanLoader {
    /// Keys that only an Xcode project suite takes.
    static let xcodeOnlyKeys = ["workspace", "project", "scheme", "testPlan", "configurations"]
    static let xcodeKeysInDefaults = ["workspace": "set the workspace in each suite", "project": "set the project in each suite",
                                      "scheme": "set the scheme in the suite of its workspace or project",
                                      "testPlan": "set the test plan in the suite of its workspace or project",
                                      "configurations": "set configurations in the suite of their test plan"]

    /// The `template` of a suite that names a workspace or project: "" — or nil (with the
    /// problem) when it names a template or a package too, or both a workspace and a project.
    static func xcodeSuiteTemplate(_ object: SchemaObject, reader r: inout SchemaReader) -> String? {
        var ok = true
        for key in ["template", "package"] {
            guard let field = object.field(key) else { continue }
            r.report("a suite names one of \"template\", \"package\", \"workspace\" or \"project\"; remove \"\(key)\" or the Xcode keys", field)
            ok = false
        }
        if object.field("workspace") != nil, let field = object.field("project") {
            r.report("name the workspace or the project, not both (a workspace already holds its projects)", field)
            ok = false
        }
        return ok ? "" : nil
    }

    /// The suite's Xcode workspace or project, when it names one. `ok` is false when a problem was
    /// reported (also for Xcode keys without a workspace or project).
    static func readXcodeProject(_ object: SchemaObject, merged: (mutants: Bool, destination: String?), planPath: String,
                                 reader r: inout SchemaReader) -> (ok: Bool, suite: XcodeProjectSuite?) {
        let kind: XcodeProjectSuite.Kind
        let field: SchemaField
        if let f = object.field("workspace") { kind = .workspace; field = f }
        else if let f = object.field("project") { kind = .project; field = f }
        else {
            var ok = true
            for key in ["scheme", "testPlan", "configurations"] {
                guard let f = object.field(key) else { continue }
                r.report("\(key) belongs to an Xcode suite; name its \"workspace\" or \"project\" too (a \(key) without a project cannot be built)", f)
                ok = false
            }
            return (ok, nil)
        }
        var ok = true
        if let f = object.field("subject") {
            r.report("an Xcode project suite runs the project's own tests; a subject goes under a contract template (remove \"subject\")", f)
            ok = false
        }
        if merged.mutants {
            r.report("an Xcode project suite has no mutants (they belong to templates and subjects); set \"mutants\": false",
                     at: object.path, object.position)
            ok = false
        }
        if merged.destination == nil {
            r.report("an Xcode suite needs a \"destination\", e.g. \"platform=iOS Simulator,name=iPhone 16\" or \"platform=macOS\"",
                     at: object.path, object.position)
            ok = false
        }
        let scheme: String?
        if let f = r.required(object, "scheme", hint: "name the scheme to build and test, as `xcodebuild -list` shows it") {
            scheme = argumentValue(f, what: "a scheme name", reader: &r)
        } else {
            scheme = nil
        }
        var testPlan: String?
        if let f = object.field("testPlan"), let s = argumentValue(f, what: "a test plan's name", reader: &r) {
            if s.contains("/") {
                r.report("give the test plan's name, not a path (got '\(SchemaReader.excerpt(s))'); xcodebuild finds it through the scheme", f)
            } else if s.hasSuffix(".xctestplan") {
                r.report("give the test plan's name without .xctestplan (got '\(SchemaReader.excerpt(s))')", f)
            } else {
                testPlan = s
            }
        }
        var configurations: [String]?
        if let f = object.field("configurations") {
            if object.field("testPlan") == nil {
                r.report("configurations belong to a test plan; add \"testPlan\" naming the plan that defines them", f)
                ok = false
            } else if let list = r.array(f, element: { r, element in argumentValue(element, what: "a configuration's name", reader: &r) }) {
                if list.isEmpty {
                    r.report("list at least one configuration (or leave the key out to run them all in one job)", f)
                    ok = false
                } else if Set(list).count != list.count {
                    r.report("each configuration once (got \(list.count) entries, \(Set(list).count) different)", f)
                    ok = false
                } else {
                    configurations = list
                }
            } else {
                ok = false
            }
        }
        let filter = object.field("filter").flatMap { selection($0, reader: &r, ok: &ok) }
        let skip = object.field("skip").flatMap { selection($0, reader: &r, ok: &ok) }

        let suffix = kind == .workspace ? ".xcworkspace" : ".xcodeproj"
        guard let rel = r.nonEmptyString(field, what: "a \(suffix) folder relative to the plan, e.g. \"../App\(suffix)\"") else { return (false, nil) }
        if rel.hasPrefix("/") {
            r.report("the \(kind.rawValue) path must be relative to the plan (got an absolute path)", field)
            return (false, nil)
        }
        if rel.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
            r.report("control character in the \(kind.rawValue) path", field)
            return (false, nil)
        }
        let trimmed = rel.hasSuffix("/") ? String(rel.dropLast()) : rel
        guard trimmed.hasSuffix(suffix) else {
            r.report("a \(kind.rawValue) is a folder ending in \(suffix) (got '\(SchemaReader.excerpt(rel))')"
                     + (kind == .workspace && trimmed.hasSuffix(".xcodeproj") ? "; for a project write \"project\"" : "")
                     + (kind == .project && trimmed.hasSuffix(".xcworkspace") ? "; for a workspace write \"workspace\"" : ""), field)
            return (false, nil)
        }
        let planDir = SafePath.resolvedExisting(URL(fileURLWithPath: planPath).standardizedFileURL.deletingLastPathComponent().path)
        let repository = repositoryRoot(above: planDir)
        let resolved = SafePath.resolvedExisting(URL(fileURLWithPath: planDir).appendingPathComponent(trimmed).standardizedFileURL.path)
        guard SafePath.isStrictlyInside(resolved, parent: repository) else {
            r.report("the \(kind.rawValue) path '\(SchemaReader.excerpt(rel))' leaves the repository \(repository) (resolved: \(resolved)); only files of the repository that holds the plan are pushed", field)
            return (false, nil)
        }
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: resolved, isDirectory: &isDir), isDir.boolValue else {
            r.report("\(kind.rawValue) '\(SchemaReader.excerpt(rel))' does not exist (looked at \(resolved))", field)
            return (false, nil)
        }
        let container = String(resolved.dropFirst(repository.count + (repository.hasSuffix("/") ? 0 : 1)))
        if container.split(separator: "/").contains(where: { $0.hasPrefix("-") }) {
            r.report("a folder of the \(kind.rawValue) path starts with '-' ('\(SchemaReader.excerpt(container))'); rename it (xcodebuild would read it as an option)", field)
            return (false, nil)
        }
        guard ok, let scheme else { return (false, nil) }
        return (true, XcodeProjectSuite(kind: kind, path: rel, repository: repository, container: container, scheme: scheme,
                                        testPlan: testPlan, configurations: configurations, filter: filter, skip: skip))
    }

    /// A value passed to xcodebuild as one argument: non-empty, at most 200 characters, no control
    /// characters, not starting with '-' (it would be read as an option).
    private static func argumentValue(_ field: SchemaField, what: String, reader r: inout SchemaReader) -> String? {
        guard let s = r.nonEmptyString(field, what: what) else { return nil }
        if s.count > 200 {
            r.report("\(what) of at most 200 characters (got \(s.count))", field)
            return nil
        }
        if s.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
            r.report("control character in \(what)", field)
            return nil
        }
        if s.hasPrefix("-") {
            r.report("\(what) cannot start with '-' (got '\(SchemaReader.excerpt(s))'; xcodebuild would read it as an option)", field)
            return nil
        }
        return s
    }
}
