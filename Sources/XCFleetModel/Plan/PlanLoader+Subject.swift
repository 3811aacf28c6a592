import Foundation
import XCFleetBasics

/// The `subject` of a suite: a team's package, module and adapter (README, "Your code under a
/// contract"). Every path is relative to the plan's folder and must stay inside the repository
/// that holds the plan (the nearest folder above it with `.git`, else the plan's own folder),
/// symbolic links resolved.
extension PlanLoader {
    public static let subjectKeys = ["package", "module", "product", "adapter", "claims", "mutants"]
    static let mutantKeys = ["id", "fault", "contract", "edits"]
    static let editKeys = ["file", "find", "replace"]

    static func readSubject(_ field: SchemaField, template: String?, planPath: String, reader r: inout SchemaReader) -> SubjectSpec? {
        guard let object = r.object(field) else { return nil }
        r.checkKeys(object, allowed: subjectKeys)
        let planDir = SafePath.resolvedExisting(URL(fileURLWithPath: planPath).standardizedFileURL.deletingLastPathComponent().path)
        let repository = repositoryRoot(above: planDir)
        var ok = true
        var contract: ContractInfo?
        if let template {
            let info = TemplateInfo.named(template)
            contract = info?.surface.flatMap { TemplateInfo.named($0)?.contract }
            if info?.surface == nil {
                r.report("template '\(template)' has no contract surface to put a subject under (subjects run under: \(TemplateInfo.all.filter { $0.surface != nil }.map(\.name).joined(separator: ", ")))", field)
                ok = false
            }
        }

        // package: a folder with a Package.swift.
        var packageDir: String?
        var packageText = ""
        let packageField = r.required(object, "package", hint: "the folder of your SwiftPM package, relative to the plan, e.g. \"..\"")
        if let f = packageField, let rel = r.nonEmptyString(f, what: "a package folder relative to the plan") {
            if let dir = insidePath(rel, planDir: planDir, repository: repository, field: f, what: "package", reader: &r) {
                var isDir: ObjCBool = false
                if !FileManager.default.fileExists(atPath: dir, isDirectory: &isDir) || !isDir.boolValue {
                    r.report("package folder '\(SchemaReader.excerpt(rel))' does not exist (looked at \(dir))", f)
                } else if let data = FileManager.default.contents(atPath: dir + "/Package.swift") {
                    packageDir = dir
                    packageText = String(decoding: data, as: UTF8.self)
                } else {
                    r.report("'\(SchemaReader.excerpt(rel))' holds no Package.swift; name the folder of a SwiftPM package", f)
                }
            }
        }

        var module: String?
        if let f = r.required(object, "module", hint: "the target that holds your implementation, e.g. \"AppCache\""),
           let m = r.nonEmptyString(f, what: "a module name") {
            if !SchemaReader.isIdentifier(m) {
                r.report("a module name is an identifier (letters, digits and '_'), got '\(SchemaReader.excerpt(m))'", f)
            } else if packageDir != nil {
                let targets = declaredTargets(packageText)
                if targets.contains(m) { module = m } else {
                    let known = targets.isEmpty ? "it declares no targets" : "targets: " + targets.joined(separator: ", ")
                    let hint = SchemaReader.suggestion(for: m, among: targets).map { "did you mean '\($0)'? " } ?? ""
                    r.report("unknown module '\(m)': the package's Package.swift declares no target named \"\(m)\"; \(hint)(\(known))", f)
                }
            }
        }
        var product: String?
        if let f = object.field("product"), let p = r.nonEmptyString(f, what: "a library product name") {
            if packageDir != nil && !packageText.contains("\"\(p)\"") {
                r.report("unknown product '\(SchemaReader.excerpt(p))': the package's Package.swift does not name it", f)
            } else { product = p }
        }

        var adapter: String?
        var adapterRel = ""
        if let f = r.required(object, "adapter", hint: "the Swift file that maps your types onto the contract's surface (docs/templates.md)"),
           let rel = r.nonEmptyString(f, what: "an adapter file relative to the plan") {
            adapterRel = rel
            if let path = insidePath(rel, planDir: planDir, repository: repository, field: f, what: "adapter", reader: &r) {
                var isDir: ObjCBool = false
                if !FileManager.default.fileExists(atPath: path, isDirectory: &isDir) || isDir.boolValue {
                    r.report("adapter file '\(SchemaReader.excerpt(rel))' does not exist (looked at \(path))", f)
                } else if !path.hasSuffix(".swift") {
                    r.report("the adapter must be a .swift file (got '\(SchemaReader.excerpt(rel))')", f)
                } else {
                    adapter = path
                }
            }
        }

        var claims: [String]?
        if let f = object.field("claims") {
            claims = r.array(f) { r, element in
                guard let id = r.nonEmptyString(element, what: "a contract id such as '\(contract?.ids.first ?? "C1")'") else { return nil }
                if let contract, !contract.ids.contains(id) {
                    r.report("'\(SchemaReader.excerpt(id))' is not an id of the \(contract.version) contract (ids: \(contract.ids.joined(separator: ", ")))", element)
                    return nil
                }
                return id
            }
        }

        var mutants: [MutantSpec] = []
        if let f = object.field("mutants") {
            mutants += r.array(f) { r, element in readInlineMutant(element, template: template ?? "", contract: contract, reader: &r) } ?? []
        }
        if let adapter, let f = object.field("adapter") {
            mutants += besideAdapterMutants(adapter, template: template ?? "", field: f, reader: &r)
        }
        if let contract {
            for m in mutants where !contract.ids.contains(m.contract) {
                r.report("mutant \(m.id) names '\(SchemaReader.excerpt(m.contract))', not an id of the \(contract.version) contract (ids: \(contract.ids.joined(separator: ", ")); declared in \(m.declaredIn ?? "the plan"))",
                         object.field("mutants") ?? object.field("adapter") ?? field)
            }
        }
        var seen: Set<String> = []
        for m in mutants where !seen.insert(m.id).inserted {
            r.report("two mutants have the id '\(m.id)'; give each its own id", object.field("mutants") ?? field)
        }
        if let packageDir {
            for m in mutants { checkApplies(m, packageDir: packageDir, field: object.field("mutants") ?? object.field("adapter") ?? field, reader: &r) }
        }

        guard ok, let packageDir, let module, let adapter, let packageRel = packageField.flatMap({ r.string($0) }) else { return nil }
        return SubjectSpec(package: packageRel, module: module, product: product, adapter: adapterRel, claims: claims,
                           mutants: mutants, packageDirectory: packageDir, adapterPath: adapter)
    }

    /// The nearest folder at or above `dir` holding `.git` (folder or file), else `dir`.
    package static func repositoryRoot(above dir: String) -> String {
        var cur = dir
        for _ in 0..<64 {
            if FileManager.default.fileExists(atPath: cur + "/.git") { return cur }
            let parent = (cur as NSString).deletingLastPathComponent
            if parent == cur || parent.isEmpty { break }
            cur = parent
        }
        return dir
    }

    /// `rel` resolved against the plan's folder, symlinks resolved, if it stays inside the repository.
    private static func insidePath(_ rel: String, planDir: String, repository: String, field: SchemaField, what: String,
                                   reader r: inout SchemaReader) -> String? {
        if rel.hasPrefix("/") {
            r.report("the \(what) path must be relative to the plan (got an absolute path)", field)
            return nil
        }
        if rel.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
            r.report("control character in the \(what) path", field)
            return nil
        }
        let joined = URL(fileURLWithPath: planDir).appendingPathComponent(rel).standardizedFileURL.path
        let resolved = SafePath.resolvedExisting(joined)
        guard resolved == repository || SafePath.isStrictlyInside(resolved, parent: repository) else {
            r.report("the \(what) path '\(SchemaReader.excerpt(rel))' leaves the repository \(repository) (resolved: \(resolved)); only files of the repository that holds the plan are pushed", field)
            return nil
        }
        return resolved
    }

    /// Target names declared in a Package.swift (`.target(name: "X"`, `.executableTarget(name:`, …).
    package static func declaredTargets(_ manifest: String) -> [String] {
        var out: [String] = []
        var rest = Substring(manifest)
        while let r = rest.range(of: "arget(") {
            rest = rest[r.upperBound...]
            let trimmed = rest.drop { $0 == " " || $0 == "\n" || $0 == "\t" || $0 == "\r" }
            guard trimmed.hasPrefix("name:") else { continue }
            let afterName = trimmed.dropFirst(5).drop { $0 == " " || $0 == "\n" || $0 == "\t" }
            guard afterName.first == "\"" else { continue }
            let name = afterName.dropFirst().prefix { $0 != "\"" && $0 != "\n" }
            if !name.isEmpty && !out.contains(String(name)) { out.append(String(name)) }
        }
        return out
    }

    private static func readInlineMutant(_ field: SchemaField, template: String, contract info: ContractInfo?, reader r: inout SchemaReader) -> MutantSpec? {
        guard let object = r.object(field) else { return nil }
        r.checkKeys(object, allowed: mutantKeys)
        let id = r.required(object, "id", hint: "letters, digits, - and _").flatMap { r.nonEmptyString($0, what: "a mutant id") }
        let fault = r.required(object, "fault", hint: "what is broken, in words").flatMap { r.nonEmptyString($0, what: "the fault in words") }
        let contract = r.required(object, "contract", hint: "the contract id whose test must kill it, e.g. \"\(info?.ids.first ?? "C1")\"").flatMap { r.nonEmptyString($0, what: "a contract id") }
        var edits: [MutantEdit] = []
        if let f = r.required(object, "edits", hint: "[{\"file\": …, \"find\": …, \"replace\": …}], paths relative to the package") {
            edits = r.array(f) { r, element in
                guard let e = r.object(element) else { return nil }
                r.checkKeys(e, allowed: editKeys)
                guard let file = r.required(e, "file", hint: "a path relative to the package").flatMap({ r.nonEmptyString($0, what: "a file path") }),
                      let find = r.required(e, "find", hint: "the exact text to replace").flatMap({ r.string($0) }),
                      let replace = r.required(e, "replace", hint: "the replacement text (may be empty)").flatMap({ r.string($0) }) else { return nil }
                return MutantEdit(file: file, find: find, replace: replace)
            } ?? []
        }
        guard let id, let fault, let contract else { return nil }
        var spec = MutantSpec(id: id, fault: fault, contract: contract, template: template, edits: edits)
        spec.declaredIn = "the plan's subject.mutants"
        if let problem = spec.problem() {
            r.report("not a valid mutant: \(problem)", field)
            return nil
        }
        return spec
    }

    /// `mutants/<id>/mutant.json` in the adapter's folder (the format of Templates/mutants; "template" may be left out).
    private static func besideAdapterMutants(_ adapter: String, template: String, field: SchemaField, reader r: inout SchemaReader) -> [MutantSpec] {
        let dir = (adapter as NSString).deletingLastPathComponent + "/mutants"
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: dir) else { return [] }
        struct Described: Decodable { var id: String; var fault: String; var contract: String; var template: String?; var edits: [MutantEdit] }
        var out: [MutantSpec] = []
        for name in names.sorted() {
            let path = dir + "/" + name + "/mutant.json"
            guard let data = FileManager.default.contents(atPath: path) else { continue }
            let decoder = JSONDecoder()
            decoder.allowsJSON5 = true
            do {
                let d = try decoder.decode(Described.self, from: data)
                var spec = MutantSpec(id: d.id, fault: d.fault, contract: d.contract, template: d.template ?? template, edits: d.edits)
                spec.declaredIn = path
                if let problem = spec.problem() { r.report("\(path): not a valid mutant description: \(problem)", field); continue }
                out.append(spec)
            } catch {
                r.report("\(path): not a valid mutant description: \(DecodingErrorText.line(error))", field)
            }
        }
        return out
    }

    /// A stale edit is a plan problem: it names the mutant, the file and where the mutant is declared.
    private static func checkApplies(_ mutant: MutantSpec, packageDir: String, field: SchemaField, reader r: inout SchemaReader) {
        var files: [String: Data] = [:]
        for edit in mutant.edits where files[edit.file] == nil {
            if let why = Workspace.pathProblem(edit.file) {
                r.report("mutant \(mutant.id) edits \(edit.file.debugDescription): \(why)", field)
                return
            }
            let path = SafePath.resolvedExisting(packageDir + "/" + edit.file)
            guard SafePath.isStrictlyInside(path, parent: packageDir), let data = FileManager.default.contents(atPath: path) else {
                r.report("mutant \(mutant.id) edits \(edit.file), which the package \(packageDir) does not have (declared in \(mutant.declaredIn ?? "the plan"))", field)
                return
            }
            files[edit.file] = data
        }
        do { try MutantEdit.apply(mutant.edits, mutant: mutant.id, to: &files) } catch {
            r.report(RenderError.subjectMutant(error, declaredIn: mutant.declaredIn), field)
        }
    }
}
