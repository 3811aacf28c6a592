import Foundation
import XCTest
import XCFleetTestSupport

/// What the compiler cannot enforce about the layers (docs/architecture.md): `Package.swift`
/// makes a wrong-way import a compile error; these check that the basics import Foundation only
/// and that the core opens no file, process, socket or clock.
final class LayeringTests: XCTestCase {
    private func sources(_ module: String) throws -> [(path: String, text: String)] {
        let dir = TestPaths.packageRoot.appendingPathComponent("Sources/\(module)")
        guard let walker = FileManager.default.enumerator(atPath: dir.path) else { throw XCTSkip("no \(dir.path)") }
        var out: [(String, String)] = []
        for case let rel as String in walker where rel.hasSuffix(".swift") {
            out.append(("\(module)/\(rel)", try String(contentsOf: dir.appendingPathComponent(rel), encoding: .utf8)))
        }
        XCTAssertFalse(out.isEmpty, "\(module) has Swift files")
        return out.sorted { $0.0 < $1.0 }
    }

    /// Code lines only: comments and string literals (multi-line ones too: a generated
    /// package's `import XCTest` is text, not an import) say "file" and "clock" freely.
    private func codeLines(_ text: String) -> [(Int, String)] {
        var out: [(Int, String)] = []
        var inBlock = false
        var inMultiline = false
        for (i, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            var line = String(raw)
            if inMultiline {
                guard let end = line.range(of: "\"\"\"") else { continue }
                line = String(line[end.upperBound...])
                inMultiline = false
            }
            if let open = line.range(of: "\"\"\""), line[open.upperBound...].trimmingCharacters(in: .whitespaces).isEmpty {
                line = String(line[..<open.lowerBound])
                inMultiline = true
            }
            if inBlock { if let end = line.range(of: "*/") { line = String(line[end.upperBound...]); inBlock = false } else { continue } }
            line = line.replacingOccurrences(of: #"/\*.*?\*/"#, with: "", options: .regularExpression)
            if let start = line.range(of: "/*") { line = String(line[..<start.lowerBound]); inBlock = true }
            if let comment = line.range(of: "//") { line = String(line[..<comment.lowerBound]) }
            line = line.replacingOccurrences(of: #""([^"\\]|\\.)*""#, with: "\"\"", options: .regularExpression)
            out.append((i + 1, line))
        }
        return out
    }

    private func imports(_ text: String) -> Set<String> {
        Set(codeLines(text).compactMap { (_, line) -> String? in
            let l = line.trimmingCharacters(in: .whitespaces)
            guard l.hasPrefix("import ") || l.hasPrefix("@_exported import ") else { return nil }
            return l.split(separator: " ").last.map(String.init)
        })
    }

    func testEachLayerImportsOnlyTheLayersAboveIt() throws {
        let allowed: [String: Set<String>] = [
            "XCFleetBasics": ["Foundation", "Glibc", "Darwin"],
            "XCFleetModel": ["Foundation", "Glibc", "Darwin", "XCFleetBasics"],
            "XCFleetCore": ["Foundation", "Glibc", "Darwin", "XCFleetBasics", "XCFleetModel"],
            "XCFleetHostScripts": ["Foundation", "XCFleetBasics", "XCFleetModel", "XCFleetCore"],
        ]
        for (module, ok) in allowed {
            for file in try sources(module) {
                let extra = imports(file.text).subtracting(ok)
                XCTAssertTrue(extra.isEmpty, "\(file.path) imports \(extra.sorted()); \(module) may import only \(ok.sorted())")
            }
        }
    }

    func testTheCoreOpensNoFileProcessSocketOrClock() throws {
        let forbidden = ["FileManager", "FileHandle", "Process(", "ProcessInfo", "Date()", "Date.now", "ContinuousClock", "SuspendingClock",
                         "DispatchQueue", "Thread.", "Thread(", "fopen(", "open(", "socket(", "getenv(", "InputFile.", "contentsOf: URL",
                         "String(contentsOf", "Data(contentsOf", ".write(to:", "sleep(", "arc4random", "SystemRandomNumberGenerator", ".random("]
        var found: [String] = []
        for file in try sources("XCFleetCore") {
            for (n, line) in codeLines(file.text) {
                for word in forbidden where line.contains(word) { found.append("\(file.path):\(n): \(word)") }
            }
        }
        XCTAssertEqual(found, [], "the core makes decisions over values; do the I/O in XCFleetKit and pass the result in")
    }

    /// The check itself finds what it looks for (a test that cannot fail is a defect).
    func testTheCheckSeesForbiddenCallsAndIgnoresComments() {
        let code = codeLines("let x = FileManager.default // FileManager in a comment\n/* Date() */ let s = \"Date()\"")
        XCTAssertTrue(code[0].1.contains("FileManager"))
        XCTAssertFalse(code[0].1.contains("comment"))
        XCTAssertFalse(code[1].1.contains("Date()"))
        XCTAssertEqual(imports("import Foundation\n@_exported import XCFleetCore\n"), ["Foundation", "XCFleetCore"])
        XCTAssertEqual(imports("import Foundation\nlet p = \"\"\"\nimport XCTest\n\"\"\"\nimport Glibc\n"), ["Foundation", "Glibc"])
    }
}
