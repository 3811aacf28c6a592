import Foundation
import XCFleetBasics
import XCFleetModel

/// Where xcfleet's pushed files live: a folder holding `Templates/` and `Sources/CacheContract/`.
///
/// Search order (first match wins), documented in the README:
/// 1. `--templates DIR` on the command line, then the `XCFLEET_HOME` environment variable;
/// 2. next to the executable: `<bin>/../share/xcfleet` (what `scripts/install.sh` lays out);
/// 3. the executable's folder and its parents (a build inside the repository: `.build/debug/xcfleet`);
/// 4. the current directory and its parents.
public struct TemplateRoot: Equatable, Sendable {
    public var url: URL

    public init(url: URL) { self.url = url }

    public var templates: URL { url.appendingPathComponent("Templates") }
    public var cacheContractSources: URL { url.appendingPathComponent("Sources/CacheContract") }

    static func isRoot(_ url: URL) -> Bool {
        let fm = FileManager.default
        return fm.fileExists(atPath: url.appendingPathComponent("Templates/package/Package.swift").path)
            && fm.fileExists(atPath: url.appendingPathComponent("Sources/CacheContract").path)
    }

    /// Finds the root by the documented search order; the error lists every place looked at.
    public static func locate(explicit: String? = nil,
                              environment: [String: String] = ProcessInfo.processInfo.environment,
                              executablePath: String = CommandLine.arguments.first ?? "",
                              currentDirectory: String = FileManager.default.currentDirectoryPath) throws -> TemplateRoot {
        var tried: [String] = []
        func check(_ path: String) -> TemplateRoot? {
            let url = URL(fileURLWithPath: path).standardizedFileURL
            tried.append(url.path)
            return isRoot(url) ? TemplateRoot(url: url) : nil
        }
        if let explicit {
            if let root = check(explicit) { return root }
            throw RenderError.templatesNotFound(tried: tried)
        }
        if let home = environment["XCFLEET_HOME"], !home.isEmpty {
            if let root = check(home) { return root }
            throw RenderError.templatesNotFound(tried: tried)
        }
        let exe = URL(fileURLWithPath: executablePath).resolvingSymlinksInPath()
        let bin = exe.deletingLastPathComponent()
        if let root = check(bin.deletingLastPathComponent().appendingPathComponent("share/xcfleet").path) { return root }
        for dir in ancestors(of: bin) { if let root = check(dir.path) { return root } }
        for dir in ancestors(of: URL(fileURLWithPath: currentDirectory)) { if let root = check(dir.path) { return root } }
        throw RenderError.templatesNotFound(tried: tried)
    }

    private static func ancestors(of url: URL) -> [URL] {
        var out: [URL] = []
        var cur = url.standardizedFileURL
        for _ in 0..<32 {
            out.append(cur)
            let parent = cur.deletingLastPathComponent()
            if parent.path == cur.path { break }
            cur = parent
        }
        return out
    }
}

extension MutantSpec {
    /// Reads one `mutant.json` (JSON with comments and trailing commas, like plans). Every problem
    /// is a `RenderError.badMutant` naming the file.
    public static func load(_ url: URL) throws -> MutantSpec {
        let data: Data
        do { data = try InputFile.read(url.path) } catch { throw RenderError.unreadable(url.path, error.reason) }
        struct OldForm: Decodable { var replaces: String?; var file: String? }
        let decoder = JSONDecoder()
        decoder.allowsJSON5 = true
        if let old = try? decoder.decode(OldForm.self, from: data), old.replaces != nil || old.file != nil {
            throw RenderError.badMutant(url.path, "uses the old full-file form (\"replaces\"/\"file\"); write \"edits\": [{\"file\": …, \"find\": …, \"replace\": …}] instead (docs/templates.md)")
        }
        let spec: MutantSpec
        do { spec = try decoder.decode(MutantSpec.self, from: data) } catch {
            throw RenderError.badMutant(url.path, MutantSpec.describe(error))
        }
        if let problem = spec.problem() { throw RenderError.badMutant(url.path, problem) }
        return spec
    }

    private static func describe(_ error: Error) -> String {
        guard let e = error as? DecodingError else { return "\(error)" }
        func path(_ c: [CodingKey]) -> String {
            c.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined().trimmingCharacters(in: CharacterSet(charactersIn: "."))
        }
        switch e {
        case .keyNotFound(let key, let ctx): return "missing \"\(path(ctx.codingPath + [key]))\""
        case .typeMismatch(_, let ctx), .valueNotFound(_, let ctx): return "\(path(ctx.codingPath)): \(ctx.debugDescription)"
        case .dataCorrupted(let ctx): return "not valid JSON: \(ctx.underlyingError.map { "\($0)" } ?? ctx.debugDescription)"
        @unknown default: return "\(error)"
        }
    }

    /// Every mutant under `Templates/mutants/*/mutant.json`, sorted by id.
    public static func all(in root: TemplateRoot) throws -> [MutantSpec] {
        let dir = root.templates.appendingPathComponent("mutants")
        let fm = FileManager.default
        guard let names = try? fm.contentsOfDirectory(atPath: dir.path) else { return [] }
        var out: [MutantSpec] = []
        for name in names.sorted() {
            let manifest = dir.appendingPathComponent(name).appendingPathComponent("mutant.json")
            guard fm.fileExists(atPath: manifest.path) else { continue }
            out.append(try load(manifest))
        }
        return out.sorted { $0.id < $1.id }
    }
}

/// The templates a plan may name: xcfleet's built-ins, and a team's own under `--templates DIR`.
///
/// `--templates DIR` is either an xcfleet root (a folder with `Templates/package` and
/// `Sources/CacheContract`, as before: its other `Templates/<name>/` folders are templates too),
/// or a folder of a team's own templates, each `DIR/<name>/` a test target's `.swift` files; the
/// built-ins then come from the root found by the usual search.
public struct TemplateCatalog: Sendable {
    public var root: TemplateRoot
    /// Where a team's templates are (nil: only the built-ins).
    public var userTemplates: URL?

    public init(root: TemplateRoot, userTemplates: URL? = nil) {
        self.root = root
        self.userTemplates = userTemplates
    }

    public static func locate(explicit: String?,
                              environment: [String: String] = ProcessInfo.processInfo.environment,
                              executablePath: String = CommandLine.arguments.first ?? "",
                              currentDirectory: String = FileManager.default.currentDirectoryPath) throws -> TemplateCatalog {
        guard let explicit else {
            return TemplateCatalog(root: try TemplateRoot.locate(environment: environment, executablePath: executablePath, currentDirectory: currentDirectory))
        }
        let url = URL(fileURLWithPath: explicit).standardizedFileURL
        if TemplateRoot.isRoot(url) { return TemplateCatalog(root: TemplateRoot(url: url), userTemplates: url.appendingPathComponent("Templates")) }
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDir), isDir.boolValue else {
            throw RenderError.templatesNotFound(tried: [url.path])
        }
        let root = try TemplateRoot.locate(environment: environment, executablePath: executablePath, currentDirectory: currentDirectory)
        return TemplateCatalog(root: root, userTemplates: url)
    }

    /// The names a plan may use in `"template"` (for `PlanLoader`).
    public var names: Set<String> { TemplateInfo.names.union(TemplateCatalog.userTemplateNames(in: userTemplates)) }

    /// Folders under `dir` holding at least one `.swift` file (not hidden, not a built-in or reserved name).
    public static func userTemplateNames(in dir: URL?) -> Set<String> {
        guard let dir, let names = try? FileManager.default.contentsOfDirectory(atPath: dir.path) else { return [] }
        var out: Set<String> = []
        for name in names where !name.hasPrefix(".") && !TemplateInfo.reservedFolders.contains(name) && TemplateInfo.named(name) == nil
            && SafePath.isPlainComponent(name) {
            let files = (try? FileManager.default.contentsOfDirectory(atPath: dir.appendingPathComponent(name).path)) ?? []
            if files.contains(where: { $0.hasSuffix(".swift") }) { out.insert(name) }
        }
        return out
    }

    public var renderer: Renderer { Renderer(root: root, userTemplates: userTemplates) }
}
