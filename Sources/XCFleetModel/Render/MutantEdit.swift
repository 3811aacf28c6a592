import Foundation

/// One exact text edit of a mutant: in `file` (a path inside the rendered package), the bytes of
/// `find` must occur exactly once; they are replaced by `replace`. Matching is byte for byte (no
/// whitespace folding, no Unicode normalisation, no fuzz), so a patch either applies exactly or
/// fails with a message naming the mutant, the file and the text that was not found.
public struct MutantEdit: Equatable, Codable, Sendable {
    public var file: String
    public var find: String
    public var replace: String

    public init(file: String, find: String, replace: String) {
        self.file = file
        self.find = find
        self.replace = replace
    }

    /// Applies `edits` in order to `files` (path → contents); later edits see earlier ones.
    /// Throws `RenderError.mutantTargetMissing` for a file the package does not have and
    /// `RenderError.mutantDoesNotApply` when a `find` occurs zero times or more than once.
    public static func apply(_ edits: [MutantEdit], mutant: String, to files: inout [String: Data]) throws {
        for (index, edit) in edits.enumerated() {
            guard let contents = files[edit.file] else { throw RenderError.mutantTargetMissing(mutant: mutant, path: edit.file) }
            let haystack = [UInt8](contents)
            let needle = [UInt8](edit.find.utf8)
            let hits = occurrences(of: needle, in: haystack, limit: 2)
            guard hits.count == 1, let at = hits.first else {
                throw RenderError.mutantDoesNotApply(mutant: mutant, file: edit.file, edit: index, find: edit.find, occurrences: hits.count)
            }
            var out = Array(haystack[..<at])
            out += Array(edit.replace.utf8)
            out += haystack[(at + needle.count)...]
            files[edit.file] = Data(out)
        }
    }

    /// Start offsets of `needle` in `haystack` (overlapping ones count), at most `limit` of them.
    package static func occurrences(of needle: [UInt8], in haystack: [UInt8], limit: Int) -> [Int] {
        guard !needle.isEmpty, needle.count <= haystack.count else { return [] }
        var out: [Int] = []
        let first = needle[0]
        var i = 0
        let last = haystack.count - needle.count
        while i <= last {
            if haystack[i] == first {
                var j = 1
                while j < needle.count && haystack[i + j] == needle[j] { j += 1 }
                if j == needle.count {
                    out.append(i)
                    if out.count >= limit { break }
                }
            }
            i += 1
        }
        return out
    }
}
