import Foundation
import XCFleetModel

/// The attachments of a result bundle's failing tests (Xcode 16+): `xcrun xcresulttool export
/// attachments --path B --output-path D --only-failures` writes each attachment as a file into D and
/// a `manifest.json` that maps the files to their tests:
/// ```
/// [ { "testIdentifier": "LoginTests/testLogin()",
///     "attachments": [ { "exportedFileName": "7B1…F0.png",
///                        "suggestedHumanReadableName": "Screenshot_0_7B1…F0.png",
///                        "isAssociatedWithFailure": true } ] } ]
/// ```
/// The command and the manifest's reading are pure; the export runs on the Mac after the result
/// bundle was read and the files come back like the test's own attachments (docs/attachments.md).
/// Not run on a Mac by this project's tests: the command text is golden and the manifest reader is
/// checked against a hand-written manifest of the documented shape.
public enum XCResultAttachments {
    /// The folder, inside the job directory, the export writes into.
    public static let folderName = ".xcfleet-xcresult-attachments"

    /// One exported file.
    public struct Exported: Equatable, Sendable {
        /// The file's name in the export folder (xcresulttool's, a UUID and an extension).
        public var file: String
        /// The name the test gave it (`suggestedHumanReadableName`), else the file's.
        public var name: String
        /// `Class/test` as xcfleet names the test (the manifest's `()` dropped, as `XCResultParser` does).
        public var test: String?
    }

    /// Whether this Xcode has `export attachments` (Xcode 16+; unknown versions are tried).
    public static func available(_ xcode: XcodeVersion?) -> Bool {
        XCResultParser.hasTestResultsCommand(xcode)
    }

    public static func exportCommand(bundle: String, output: String, developerDir: String?) -> ShellCommand {
        ShellCommand(["xcrun", "xcresulttool", "export", "attachments", "--path", bundle, "--output-path", output, "--only-failures"],
                     environment: developerDir.map { ["DEVELOPER_DIR": $0] } ?? [:])
    }

    /// The manifest's files. Entries without a file name, or whose file name is not a plain name
    /// in the folder, are skipped; unknown keys are ignored. Throws only when the document is not
    /// a JSON array.
    public static func parseManifest(_ data: Data) throws -> [Exported] {
        guard let top = try JSONSerialization.jsonObject(with: data) as? [Any] else {
            throw XCResultError(what: "xcresulttool export attachments", detail: "manifest.json is not a list")
        }
        var out: [Exported] = []
        for case let group as [String: Any] in top {
            let test = (group["testIdentifier"] as? String).map(testName)
            for case let a as [String: Any] in (group["attachments"] as? [Any]) ?? [] {
                guard let file = a["exportedFileName"] as? String, !file.isEmpty, !file.contains("/"), file != ".", file != "..",
                      file != "manifest.json" else { continue }
                let name = (a["suggestedHumanReadableName"] as? String).flatMap { $0.isEmpty ? nil : $0 } ?? file
                out.append(Exported(file: file, name: name, test: test))
            }
        }
        return out
    }

    /// `LoginTests/testLogin()` → `LoginTests/testLogin`; a module or bundle prefix of the class is dropped.
    static func testName(_ identifier: String) -> String {
        var parts = identifier.split(separator: "/").map(String.init)
        guard parts.count >= 2 else { return identifier }
        if parts[parts.count - 1].hasSuffix("()") { parts[parts.count - 1].removeLast(2) }
        let cls = parts[parts.count - 2].split(separator: ".").last.map(String.init) ?? parts[parts.count - 2]
        return cls + "/" + parts[parts.count - 1]
    }
}
