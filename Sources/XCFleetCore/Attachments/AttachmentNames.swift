import Foundation
import XCFleetBasics
import XCFleetModel

/// Names for fetched attachments: the host's name for a file is untrusted, so the copy in the run
/// directory gets a name of xcfleet's own, made of `A-Z a-z 0-9 . _ -` components (no `.`/`..`,
/// none starting with `.`), at most `maxDepth` folders deep, unique within the attempt. The host's
/// name is kept for display (escaped by every renderer).
public enum AttachmentNames {
    /// Entries the host lists at most (then it stops and says so).
    public static let listLimit = 2000
    /// Folders kept below the attempt's folder; deeper ones are joined into the file name.
    public static let maxDepth = 4
    /// Bytes a component keeps at most.
    public static let maxComponent = 96

    /// Extensions a browser would run script from when the file is opened from a link: stored with
    /// `.txt` appended, so report.html never links to a page, a script or an SVG document.
    static let activeExtensions: Set<String> = ["html", "htm", "xhtml", "xht", "shtml", "mht", "mhtml", "svg", "svgz", "xml", "xsl",
                                                "xslt", "js", "mjs", "hta", "swf", "pdf", "webarchive"]

    /// The name holds a control character, a bidi control or is not a relative path at all.
    public static func unusable(_ name: String) -> Bool {
        name.isEmpty || name.hasPrefix("/") || name.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F || $0 == "\u{FFFD}" }
    }

    /// The run directory's relative path of an attachment: `attachments/<job, encoded>/<attempt>/<safe>`.
    public static func runPath(jobID: String, attempt: Int, safeName: String) -> String {
        "attachments/" + SafePath.encodedComponent(jobID) + "/\(attempt)/" + safeName
    }

    /// A safe relative path for `name`, different from every path in `taken` (which it joins).
    public static func safePath(_ name: String, taken: inout Set<String>) -> String {
        var parts = name.split(separator: "/").map(String.init).filter { $0 != "." && !$0.isEmpty }.map(safeComponent)
        if parts.isEmpty { parts = ["attachment"] }
        if parts.count > maxDepth + 1 {
            parts = Array(parts.prefix(maxDepth)) + [parts.dropFirst(maxDepth).joined(separator: "_")]
        }
        var file = parts.removeLast()
        let ext = fileExtension(file)
        if activeExtensions.contains(ext) { file += ".txt" }
        let folder = parts.isEmpty ? "" : parts.joined(separator: "/") + "/"
        var candidate = folder + file
        var n = 2
        while taken.contains(candidate.lowercased()) {
            let (stem, suffix) = split(file)
            candidate = folder + stem + "-\(n)" + suffix
            n += 1
        }
        taken.insert(candidate.lowercased())
        return candidate
    }

    /// How a report shows the file, from its (safe) name's extension.
    public static func kind(of safeName: String) -> AttachmentKind {
        switch fileExtension(safeName) {
        case "png", "jpg", "jpeg", "gif", "webp": return .image
        case "mp4", "m4v", "mov", "webm": return .video
        case "txt", "log", "json", "jsonl", "csv", "md", "crash", "ips", "diff", "patch", "out", "err": return .text
        default: return .other
        }
    }

    static func safeComponent(_ s: String) -> String {
        var out = String(s.unicodeScalars.map { c -> Character in
            let ok = ("a"..."z").contains(c) || ("A"..."Z").contains(c) || ("0"..."9").contains(c) || c == "." || c == "_" || c == "-"
            return ok ? Character(c) : "_"
        })
        while out.hasPrefix(".") { out = "_" + out.dropFirst() }
        if out.utf8.count > maxComponent {
            let (stem, suffix) = split(out)
            let keep = suffix.utf8.count < 16 ? suffix : ""
            out = String(stem.prefix(maxComponent - keep.count)) + keep
        }
        return out.isEmpty ? "_" : out
    }

    static func fileExtension(_ name: String) -> String {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return "" }
        return name[name.index(after: dot)...].lowercased()
    }

    private static func split(_ file: String) -> (String, String) {
        guard let dot = file.lastIndex(of: "."), dot != file.startIndex else { return (file, "") }
        return (String(file[..<dot]), String(file[dot...]))
    }
}
