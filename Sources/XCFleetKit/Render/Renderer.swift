import Foundation
import XCFleetBasics
import XCFleetModel
import XCFleetCore

/// A suite rendered into a standalone SwiftPM package.
public struct RenderedSuite: Equatable, Sendable {
    public var workspace: Workspace
    public var manifest: SuiteManifest
    /// Folder name inside the render output (`xcfleet render`).
    public var directoryName: String
    /// Where each file came from (template, core source, generated, mutant), for `LocationMapper`.
    public var sourceMap = SourceMap(base: .repository, entries: [])
}

/// Renders plan suites into packages: the scaffold from `Templates/package`, the `CacheContract`
/// sources, the template's test files, one generated `XCFleetSettings.swift`, and the manifest;
/// mutants are the gate package with a few exact edits (`MutantEdit`).
public struct Renderer: Sendable {
    public var root: TemplateRoot
    /// A team's own templates (`--templates DIR`, see `TemplateCatalog`): each folder is a template.
    public var userTemplates: URL?

    public init(root: TemplateRoot, userTemplates: URL? = nil) {
        self.root = root
        self.userTemplates = userTemplates
    }

    /// What is known of `name`: a built-in template, else a folder under `userTemplates`.
    public func info(_ name: String) throws -> TemplateInfo {
        if let info = TemplateInfo.named(name) { return info }
        if userTemplateFolder(name) != nil { return TemplateInfo.user(name) }
        throw RenderError.unknownTemplate(name)
    }

    private func userTemplateFolder(_ name: String) -> URL? {
        guard let dir = userTemplates, SafePath.isPlainComponent(name), !name.hasPrefix("."),
              !TemplateInfo.reservedFolders.contains(name) else { return nil }
        let url = dir.appendingPathComponent(name)
        var isDir: ObjCBool = false
        return FileManager.default.fileExists(atPath: url.path, isDirectory: &isDir) && isDir.boolValue ? url : nil
    }

    private func templateFolder(_ name: String) -> URL {
        TemplateInfo.named(name) != nil ? root.templates.appendingPathComponent(name) : (userTemplateFolder(name) ?? root.templates.appendingPathComponent(name))
    }

    /// Files of a rendered package that never affect its build: they may differ between packages
    /// that share one build (the manifest names the mutant; the README describes the package).
    public static let runOnlyPaths: Set<String> = ["xcfleet-manifest.json", "README.md"]

    /// Renders `suite`; with a `mutant`, the gate package with the mutant's edits (`variant(of:…)`).
    /// Every repetition renders the same files (the repetition reaches the test process at run time
    /// as `XCFLEET_REPETITION`, see `TestRunEnvironment`); only `directoryName` tells them apart.
    public func render(_ suite: SuiteSpec, repetition: Int = 0, mutant: MutantSpec? = nil) throws -> RenderedSuite {
        var out = try renderGate(suite)
        if let mutant { out = try variant(of: out, suite: suite, mutant: mutant) }
        if suite.repetitions > 1 { out.directoryName += "-rep\(repetition)" }
        return out
    }

    /// The gate package of `suite`: scaffold, `CacheContract` sources, the template's test files, the
    /// generated `XCFleetSettings.swift` and the manifest.
    public func renderGate(_ suite: SuiteSpec) throws -> RenderedSuite {
        let info = try info(suite.template)
        var files = try scaffold(suite, info: info, mutant: nil)
        let testDir = "Tests/\(info.testTarget)"
        for (rel, data) in try readTree(templateFolder(suite.template)) where rel.hasSuffix(".swift") {
            files["\(testDir)/\(rel)"] = data
        }
        // A template calling another's surface (the probes call the cache contract's) gets that file too.
        if let surface = info.surface, surface != suite.template {
            for (rel, data) in try readTree(root.templates.appendingPathComponent(surface)) where rel.hasSuffix("Surface.swift") {
                files["\(testDir)/\(rel)"] = data
            }
        }
        // Every contract kit shares the claims check and the missing-part failure (`Templates/contract-kit`;
        // optional like the adapters, so a root whose templates do without it still renders).
        let kit = root.templates.appendingPathComponent(Renderer.contractKitFolder)
        if info.surface != nil, FileManager.default.fileExists(atPath: kit.path) {
            for (rel, data) in try readTree(kit) where rel.hasSuffix(".swift") { files["\(testDir)/\(rel)"] = data }
        }
        var adapterPath: String?
        if let subject = suite.subject {
            // The team's package as it is, and their adapter beside the contract tests.
            for (rel, data) in try readSubjectTree(subject) { files["\(Renderer.subjectPrefix(subject))\(rel)"] = data }
            let name = (subject.adapterPath as NSString).lastPathComponent
            let path = "\(testDir)/\(name)"
            if files[path] != nil || name == "XCFleetSettings.swift" {
                throw RenderError.unreadable(subject.adapterPath, "the adapter's file name \(name) is also a file of the template \(suite.template); rename the adapter")
            }
            guard let data = FileManager.default.contents(atPath: subject.adapterPath) else { throw RenderError.unreadable(subject.adapterPath, "unreadable file") }
            files[path] = data
            adapterPath = path
        } else {
            for (rel, data) in try readTree(root.cacheContractSources) where rel.hasSuffix(".swift") {
                files["Sources/CacheContract/\(rel)"] = data
            }
            // xcfleet's own CacheContract plugs into the contract's surface through its adapter.
            let adapters = root.templates.appendingPathComponent("adapters/\(info.surface ?? suite.template)")
            if FileManager.default.fileExists(atPath: adapters.path) {
                for (rel, data) in try readTree(adapters) where rel.hasSuffix(".swift") { files["\(testDir)/\(rel)"] = data }
            }
        }
        files["\(testDir)/XCFleetSettings.swift"] = Data(Renderer.settingsFile(suite: suite).utf8)
        var out = finish(suite, info: info, mutant: nil, files: files, directoryName: suite.name)
        // Where each file came from, relative to the repository root (see `SourceMap`).
        let (base, prefix) = root.sourceBase()
        var entries: [SourceMapEntry] = []
        for path in files.keys {
            let origin: SourceOrigin
            if path == "\(testDir)/XCFleetSettings.swift" { origin = .generated("XCFleetSettings.swift") }
            else if let subject = suite.subject, path == adapterPath || path.hasPrefix(Renderer.subjectPrefix(subject)) {
                // The team's files: the path in the repository that holds them (none outside a repository).
                let own = path == adapterPath ? subject.adapterPath
                    : subject.packageDirectory + "/" + path.dropFirst(Renderer.subjectPrefix(subject).count)
                guard let inRepository = TemplateRoot.repositoryPath(of: own) else { continue }
                origin = .repository(inRepository)
            }
            else if path.hasPrefix("Sources/CacheContract/") { origin = .core(prefix + path) }
            else if path.hasPrefix(testDir + "/"), TemplateInfo.named(suite.template) != nil, !FileManager.default.fileExists(atPath: templateFolder(suite.template).appendingPathComponent(String(path.dropFirst(testDir.count + 1))).path) {
                let file = String(path.dropFirst(testDir.count + 1))
                origin = .template(prefix + Renderer.sharedOrigin(file, surface: info.surface ?? suite.template, kit: root.templates))
            }
            else if path.hasPrefix(testDir + "/") { origin = .template("\(prefix)Templates/\(suite.template)/\(path.dropFirst(testDir.count + 1))") }
            else { origin = .template("\(prefix)Templates/package/\(path)") }
            entries.append(SourceMapEntry(path: path, origin: origin))
        }
        entries.append(SourceMapEntry(path: "xcfleet-manifest.json", origin: .generated("xcfleet-manifest.json")))
        out.sourceMap = SourceMap(base: base, entries: entries)
        return out
    }

    /// A mutant of a rendered gate package: the gate's files with the mutant's edits applied, its
    /// README note and manifest. Only the scaffold is read again; a patch that no longer applies is a
    /// `RenderError` naming the mutant and the file.
    public func variant(of gate: RenderedSuite, suite: SuiteSpec, mutant: MutantSpec) throws -> RenderedSuite {
        let info = try info(suite.template)
        var files: [String: Data] = [:]
        for f in gate.workspace.files { files[f.path] = f.contents }
        for (rel, data) in try scaffold(suite, info: info, mutant: mutant) { files[rel] = data }
        if let subject = suite.subject {
            // A team's mutant edits their own files: paths relative to their package.
            let prefix = Renderer.subjectPrefix(subject)
            let edits = mutant.edits.map { MutantEdit(file: prefix + $0.file, find: $0.find, replace: $0.replace) }
            do { try MutantEdit.apply(edits, mutant: mutant.id, to: &files) } catch let error as RenderError {
                func own(_ path: String) -> String { path.hasPrefix(prefix) ? String(path.dropFirst(prefix.count)) : path }
                let unprefixed: RenderError
                switch error {
                case .mutantDoesNotApply(let m, let file, let edit, let find, let count):
                    unprefixed = .mutantDoesNotApply(mutant: m, file: own(file), edit: edit, find: find, occurrences: count)
                case .mutantTargetMissing(let m, let path): unprefixed = .mutantTargetMissing(mutant: m, path: own(path))
                default: unprefixed = error
                }
                throw RenderError.subjectMutantDoesNotApply(RenderError.subjectMutant(unprefixed, declaredIn: mutant.declaredIn))
            }
        } else {
            try MutantEdit.apply(mutant.edits, mutant: mutant.id, to: &files)
        }
        var out = finish(suite, info: info, mutant: mutant, files: files, directoryName: "\(suite.name)-mutant-\(mutant.id)")
        // An edited file names the mutant and the original; its lines map back around the edits.
        var entries = gate.sourceMap.entries
        // A team's mutant names its files relative to its package.
        let prefix = suite.subject.map(Renderer.subjectPrefix) ?? ""
        let mutated = Set(mutant.files.map { prefix + $0 })
        for i in entries.indices where mutated.contains(entries[i].path) {
            let original: String
            switch entries[i].origin {
            case .template(let p), .core(let p), .generated(let p), .repository(let p): original = p
            case .mutant(_, let o, _): original = o
            }
            let before = gate.workspace.file(entries[i].path)?.contents ?? Data()
            entries[i] = SourceMapEntry(path: entries[i].path, origin: .mutant(id: mutant.id, original: original, replacement: nil),
                                        edits: LineEdit.between(original: before, rendered: files[entries[i].path] ?? Data()))
        }
        out.sourceMap = SourceMap(base: gate.sourceMap.base, entries: entries)
        return out
    }

    /// `Templates/package/*` with the suite's names filled in.
    private func scaffold(_ suite: SuiteSpec, info: TemplateInfo, mutant: MutantSpec?) throws -> [String: Data] {
        var substitutions = [
            "{{SUITE}}": suite.name, "{{PACKAGE_NAME}}": Renderer.packageName(for: suite.name), "{{TEST_TARGET}}": info.testTarget,
            "{{TEMPLATE}}": suite.template, "{{MUTANT_NOTE}}": mutant.map { "; mutant \($0.id): \($0.fault)" } ?? "",
        ]
        if let subject = suite.subject {
            substitutions["{{SUBJECT_FOLDER}}"] = subject.packageFolderName
            substitutions["{{SUBJECT_PRODUCT}}"] = subject.product
            substitutions["{{SUBJECT_MODULE}}"] = subject.module
        }
        var files: [String: Data] = [:]
        for (rel, data) in try readTree(root.templates.appendingPathComponent(suite.subject == nil ? "package" : "subject-package")) {
            var text = String(decoding: data, as: UTF8.self)
            for (k, v) in substitutions { text = text.replacingOccurrences(of: k, with: v) }
            files[rel] = Data(text.utf8)
        }
        return files
    }

    /// Adds the manifest (what the package is; its tests are discovered after the build).
    private func finish(_ suite: SuiteSpec, info: TemplateInfo, mutant: MutantSpec?, files: [String: Data], directoryName: String) -> RenderedSuite {
        var files = files
        let manifest = SuiteManifest(suite: suite.name, template: suite.template, testTarget: info.testTarget, mutant: mutant?.id)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        files["xcfleet-manifest.json"] = ((try? encoder.encode(manifest)) ?? Data()) + Data([0x0A])
        let workspace = Workspace(files: files.map { WorkspaceFile(path: $0.key, contents: $0.value) })
        return RenderedSuite(workspace: workspace, manifest: manifest, directoryName: directoryName)
    }

    /// The folder under `Templates/` whose files every template with a contract surface gets.
    static let contractKitFolder = "contract-kit"

    /// Where a test-target file that is not the template's own came from, relative to the root:
    /// the shared contract kit, the surface's template (`*Surface.swift`), or the surface's reference adapter folder.
    static func sharedOrigin(_ file: String, surface: String, kit templates: URL) -> String {
        if FileManager.default.fileExists(atPath: templates.appendingPathComponent("\(contractKitFolder)/\(file)").path) {
            return "Templates/\(contractKitFolder)/\(file)"
        }
        return file.hasSuffix("Surface.swift") ? "Templates/\(surface)/\(file)" : "Templates/adapters/\(surface)/\(file)"
    }

    /// Where a subject's package sits in its harness (`Subject/<folder>/`).
    public static func subjectPrefix(_ subject: SubjectSpec) -> String { "Subject/\(subject.packageFolderName)/" }

    /// The team's package files: what is there, without hidden folders (`.build`, `.git`,
    /// `.swiftpm`), `DerivedData`, or anything a symbolic link leads outside the package.
    private func readSubjectTree(_ subject: SubjectSpec) throws -> [(String, Data)] {
        let dir = URL(fileURLWithPath: subject.packageDirectory)
        let fm = FileManager.default
        guard let e = fm.enumerator(atPath: dir.path) else { throw RenderError.unreadable(dir.path, "cannot list") }
        var out: [(String, Data)] = []
        while let rel = e.nextObject() as? String {
            let parts = rel.split(separator: "/")
            if parts.contains(where: { $0.hasPrefix(".") || $0 == "DerivedData" }) { e.skipDescendants(); continue }
            let full = dir.appendingPathComponent(rel).path
            var d: ObjCBool = false
            guard fm.fileExists(atPath: full, isDirectory: &d), !d.boolValue else { continue }
            guard SafePath.isStrictlyInside(SafePath.resolvedExisting(full), parent: subject.packageDirectory) else { continue }
            guard Workspace.pathProblem(rel) == nil else { continue }
            guard let data = fm.contents(atPath: full) else { throw RenderError.unreadable(full, "unreadable file") }
            out.append((rel, data))
        }
        return out.sorted { $0.0 < $1.0 }
    }

    /// A SwiftPM-safe package name from a suite name.
    public static func packageName(for suite: String) -> String {
        let allowed = suite.unicodeScalars.map { CharacterSet.alphanumerics.contains($0) && $0.isASCII ? Character($0) : "-" }
        return "xcfleet-" + String(allowed)
    }

    /// The one generated settings file: the plan's parameters as typed Swift dictionaries. Nothing
    /// that only steers a test run (repetition, shard, mutant id) is compiled in, so repetitions and
    /// shards of a suite share one build.
    public static func settingsFile(suite: SuiteSpec) -> String {
        func lit(_ s: String) -> String {
            var out = "\""
            for u in s.unicodeScalars {
                switch u {
                case "\\": out += "\\\\"
                case "\"": out += "\\\""
                case "\n": out += "\\n"
                case "\r": out += "\\r"
                case "\t": out += "\\t"
                default:
                    if u.value < 0x20 || u.value == 0x7F { out += "\\u{\(String(u.value, radix: 16))}" } else { out.unicodeScalars.append(u) }
                }
            }
            return out + "\""
        }
        var strings: [String: String] = [:], ints: [String: Int] = [:], doubles: [String: Double] = [:], bools: [String: Bool] = [:]
        for (k, v) in suite.parameters {
            switch v {
            case .string(let s): strings[k] = s
            case .int(let i): ints[k] = i; doubles[k] = Double(i)
            case .double(let d): doubles[k] = d
            case .bool(let b): bools[k] = b
            }
        }
        let claims = suite.subject?.claims.map { "[" + $0.sorted().map(lit).joined(separator: ", ") + "]" } ?? "nil"
        func dict<V>(_ d: [String: V], _ render: (V) -> String) -> String {
            if d.isEmpty { return "[:]" }
            return "[\n" + d.sorted { $0.key < $1.key }.map { "        \(lit($0.key)): \(render($0.value)),\n" }.joined() + "    ]"
        }
        return """
        // Generated by xcfleet from plan suite \(lit(suite.name)); do not edit.
        // The template's own copy of this file is a default that lets it compile as it is.
        enum XCFleetSettings {
            static let suite = \(lit(suite.name))
            static let strings: [String: String] = \(dict(strings, lit))
            static let ints: [String: Int] = \(dict(ints, { String($0) }))
            static let doubles: [String: Double] = \(dict(doubles, { $0.isFinite ? "\($0)" : "0" }))
            static let bools: [String: Bool] = \(dict(bools, { $0 ? "true" : "false" }))
            /// The contract ids the suite's subject claims (nil: every id).
            static let claims: Set<String>? = \(claims)
        }

        """
    }

    /// Regular files under `dir`, relative paths sorted.
    private func readTree(_ dir: URL) throws -> [(String, Data)] {
        let fm = FileManager.default
        var isDir: ObjCBool = false
        guard fm.fileExists(atPath: dir.path, isDirectory: &isDir), isDir.boolValue else {
            throw RenderError.unreadable(dir.path, "not a folder")
        }
        guard let e = fm.enumerator(atPath: dir.path) else { throw RenderError.unreadable(dir.path, "cannot list") }
        var out: [(String, Data)] = []
        while let rel = e.nextObject() as? String {
            let full = dir.appendingPathComponent(rel)
            var d: ObjCBool = false
            guard fm.fileExists(atPath: full.path, isDirectory: &d), !d.boolValue else { continue }
            if rel.split(separator: "/").contains(where: { $0.hasPrefix(".") }) { continue }
            guard let data = fm.contents(atPath: full.path) else { throw RenderError.unreadable(full.path, "unreadable file") }
            out.append((rel, data))
        }
        return out.sorted { $0.0 < $1.0 }
    }
}
