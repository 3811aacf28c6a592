import Foundation

/// The list of tests a rendered suite must run and see pass (`xcfleet-manifest.json`).
public struct SuiteManifest: Equatable, Codable, Sendable {
    public var suite: String
    public var template: String
    public var testTarget: String
    public var mutant: String?
    /// `Class/testName`, in file order.
    public var tests: [String]
}

/// A suite rendered into a standalone SwiftPM package.
public struct RenderedSuite: Equatable, Sendable {
    public var workspace: Workspace
    public var manifest: SuiteManifest
    /// Folder name inside the render output (`xcfleet render`).
    public var directoryName: String
    /// Where each file came from (template, core source, generated, mutant), for `LocationMapper`.
    public var sourceMap = SourceMap(base: .repository, entries: [])
}

public enum RenderError: Error, Equatable, CustomStringConvertible {
    case templatesNotFound(tried: [String])
    case unknownTemplate(String)
    case unreadable(String, String)
    case badMutant(String, String)
    case mutantTargetMissing(mutant: String, path: String)

    public var description: String {
        switch self {
        case .templatesNotFound(let tried):
            return "cannot find xcfleet's templates (a folder with Templates/ and Sources/CacheContract/); looked in: \(tried.joined(separator: ", ")); set XCFLEET_HOME or pass --templates DIR"
        case .unknownTemplate(let name):
            return "no template '\(name)' under Templates/ (known: \(TemplateInfo.names.sorted().joined(separator: ", ")))"
        case .unreadable(let path, let why): return "\(path): cannot read: \(why)"
        case .badMutant(let path, let why): return "\(path): not a valid mutant description: \(why)"
        case .mutantTargetMissing(let mutant, let path): return "mutant \(mutant) replaces \(path), which the rendered package does not have"
        }
    }
}

/// Renders plan suites into packages: the scaffold from `Templates/package`, the `CacheContract`
/// sources, the template's test files, one generated `XCFleetSettings.swift`, and the manifest.
public struct Renderer: Sendable {
    public var root: TemplateRoot

    public init(root: TemplateRoot) { self.root = root }

    public func render(_ suite: SuiteSpec, repetition: Int = 0, mutant: MutantSpec? = nil) throws -> RenderedSuite {
        guard let info = TemplateInfo.named(suite.template) else { throw RenderError.unknownTemplate(suite.template) }
        let packageName = Renderer.packageName(for: suite.name)
        var files: [String: WorkspaceFile] = [:]
        let (base, prefix) = root.sourceBase()
        var origins: [String: SourceOrigin] = [:]
        let substitutions = [
            "{{SUITE}}": suite.name, "{{PACKAGE_NAME}}": packageName, "{{TEST_TARGET}}": info.testTarget,
            "{{TEMPLATE}}": suite.template, "{{MUTANT_NOTE}}": mutant.map { "; mutant \($0.id): \($0.fault)" } ?? "",
        ]
        for (rel, data) in try readTree(root.templates.appendingPathComponent("package")) {
            var text = String(decoding: data, as: UTF8.self)
            for (k, v) in substitutions { text = text.replacingOccurrences(of: k, with: v) }
            files[rel] = WorkspaceFile(path: rel, contents: Data(text.utf8))
            origins[rel] = .template("\(prefix)Templates/package/\(rel)")
        }
        for (rel, data) in try readTree(root.cacheContractSources) where rel.hasSuffix(".swift") {
            let path = "Sources/CacheContract/\(rel)"
            files[path] = WorkspaceFile(path: path, contents: data)
            origins[path] = .core("\(prefix)Sources/CacheContract/\(rel)")
        }
        let testDir = "Tests/\(info.testTarget)"
        var testFiles: [(String, Data)] = []
        for (rel, data) in try readTree(root.templates.appendingPathComponent(suite.template)) where rel.hasSuffix(".swift") {
            testFiles.append((rel, data))
            files["\(testDir)/\(rel)"] = WorkspaceFile(path: "\(testDir)/\(rel)", contents: data)
            origins["\(testDir)/\(rel)"] = .template("\(prefix)Templates/\(suite.template)/\(rel)")
        }
        let settingsPath = "\(testDir)/XCFleetSettings.swift"
        files[settingsPath] = WorkspaceFile(path: settingsPath, contents: Data(Renderer.settingsFile(suite: suite, repetition: repetition, mutant: mutant?.id).utf8))
        origins[settingsPath] = .generated("XCFleetSettings.swift")
        if let mutant {
            let replacement = root.templates.appendingPathComponent("mutants").appendingPathComponent(mutant.id).appendingPathComponent(mutant.file)
            guard files[mutant.replaces] != nil else { throw RenderError.mutantTargetMissing(mutant: mutant.id, path: mutant.replaces) }
            guard let data = FileManager.default.contents(atPath: replacement.path) else { throw RenderError.unreadable(replacement.path, "missing mutant file") }
            files[mutant.replaces] = WorkspaceFile(path: mutant.replaces, contents: data)
            let original: String
            switch origins[mutant.replaces] {
            case .template(let p)?, .core(let p)?: original = p
            case .generated(let n)?: original = n
            case .mutant(_, let o, _)?: original = o
            case nil: original = mutant.replaces
            }
            origins[mutant.replaces] = .mutant(id: mutant.id, original: original,
                                               replacement: "\(prefix)Templates/mutants/\(mutant.id)/\(mutant.file)")
            if mutant.replaces.hasPrefix(testDir + "/") {
                testFiles.removeAll { "\(testDir)/\($0.0)" == mutant.replaces }
                testFiles.append((String(mutant.replaces.dropFirst(testDir.count + 1)), data))
            }
        }
        let tests = testFiles.sorted { $0.0 < $1.0 }.flatMap { Renderer.scanTests(String(decoding: $0.1, as: UTF8.self)) }
        let manifest = SuiteManifest(suite: suite.name, template: suite.template, testTarget: info.testTarget, mutant: mutant?.id, tests: tests)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let manifestData = (try? encoder.encode(manifest)) ?? Data()
        files["xcfleet-manifest.json"] = WorkspaceFile(path: "xcfleet-manifest.json", contents: manifestData + Data([0x0A]))
        origins["xcfleet-manifest.json"] = .generated("xcfleet-manifest.json")
        var dirName = suite.name
        if let mutant { dirName += "-mutant-\(mutant.id)" }
        if suite.repetitions > 1 { dirName += "-rep\(repetition)" }
        let map = SourceMap(base: base, entries: origins.map { SourceMapEntry(path: $0.key, origin: $0.value) })
        return RenderedSuite(workspace: Workspace(files: Array(files.values)), manifest: manifest, directoryName: dirName, sourceMap: map)
    }

    /// A SwiftPM-safe package name from a suite name.
    public static func packageName(for suite: String) -> String {
        let allowed = suite.unicodeScalars.map { CharacterSet.alphanumerics.contains($0) && $0.isASCII ? Character($0) : "-" }
        return "xcfleet-" + String(allowed)
    }

    /// Finds `Class/test` names: `class X: XCTestCase` declarations and `func testY(` inside them, in order.
    public static func scanTests(_ source: String) -> [String] {
        var out: [String] = []
        var currentClass: String?
        for raw in source.split(separator: "\n", omittingEmptySubsequences: false) {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("//") { continue }
            if let r = line.range(of: "class ") , line.contains("XCTestCase") {
                let rest = line[r.upperBound...]
                let name = rest.prefix { $0.isLetter || $0.isNumber || $0 == "_" }
                if !name.isEmpty { currentClass = String(name) }
                continue
            }
            if let cls = currentClass, let r = line.range(of: "func test") {
                let before = line[..<r.lowerBound]
                guard before.allSatisfy({ $0.isLetter || $0 == " " || $0 == "@" }) else { continue }
                let name = "test" + line[r.upperBound...].prefix { $0.isLetter || $0.isNumber || $0 == "_" }
                if line[r.upperBound...].dropFirst(name.count - 4).first == "(" { out.append("\(cls)/\(name)") }
            }
        }
        return out
    }

    /// The one generated settings file: the plan's parameters as typed Swift dictionaries.
    public static func settingsFile(suite: SuiteSpec, repetition: Int, mutant: String?) -> String {
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
        ints["repetition"] = repetition
        if let mutant { strings["mutant"] = mutant }
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
