import Foundation

/// A value found in a document together with its path, for messages.
package struct SchemaField {
    package let node: JSONNode
    package let path: JSONPath
    package var position: JSONPosition { node.position }

    package init(node: JSONNode, path: JSONPath) {
        self.node = node
        self.path = path
    }
}

/// An object found in a document together with its path and position.
package struct SchemaObject {
    package let object: JSONObject
    package let path: JSONPath
    package let position: JSONPosition

    package func field(_ key: String) -> SchemaField? {
        object[key].map { SchemaField(node: $0.value, path: path / key) }
    }

    package init(object: JSONObject, path: JSONPath, position: JSONPosition) {
        self.object = object
        self.path = path
        self.position = position
    }
}

/// Reads typed values out of a `JSONDocument` while collecting every problem (it never stops at
/// the first). Loaders describe their schema with it; it owns the wording of common messages.
package struct SchemaReader {
    package let file: String
    package private(set) var problems: [ValidationProblem] = []

    package init(file: String) { self.file = file }

    package mutating func report(_ message: String, at path: JSONPath, _ position: JSONPosition?) {
        problems.append(ValidationProblem(file: file, path: path.description, line: position?.line,
                                          column: position?.column, message: message))
    }

    package mutating func report(_ message: String, _ field: SchemaField) {
        report(message, at: field.path, field.position)
    }

    /// All problems, ordered by position (problems without a position first), stable otherwise.
    package var sortedProblems: [ValidationProblem] {
        problems.enumerated().sorted { a, b in
            let ka = (a.element.line ?? 0, a.element.column ?? 0)
            let kb = (b.element.line ?? 0, b.element.column ?? 0)
            return ka != kb ? ka < kb : a.offset < b.offset
        }.map(\.element)
    }

    // MARK: Documents

    /// Parses `data`, or records one problem with the syntax error's line and column.
    package mutating func document(_ data: Data) -> JSONDocument? {
        do {
            return try JSONDocument(data: data)
        } catch {
            report("invalid JSON: \(error.message)", at: .root, error.position)
            return nil
        }
    }

    /// Reads a file of at most `limit` bytes through `InputFile` (links resolved before the
    /// regular-file check, non-blocking open, size cap, read deadline), or records why it cannot be read.
    package mutating func readFile(_ path: String, limit: Int = 4 << 20) -> Data? {
        do {
            return try InputFile.read(path, limit: limit)
        } catch {
            switch error.kind {
            case .directory: report("cannot read the file: it is a directory; name a .json file", at: .root, nil)
            case .tooLarge: report("the file is larger than \(limit / (1 << 20)) MiB; this is not a plan or fleet file", at: .root, nil)
            default: report("cannot read the file: \(error.reason)", at: .root, nil)
            }
            return nil
        }
    }

    // MARK: Objects and keys

    package mutating func object(_ field: SchemaField) -> SchemaObject? {
        guard case .object(let o) = field.node.value else {
            report("expected an object, got \(field.node.value.kindDescription)", field)
            return nil
        }
        return SchemaObject(object: o, path: field.path, position: field.position)
    }

    /// Reports every key not in `allowed`, suggesting the closest allowed key. `misplaced` gives a
    /// specific message for keys that exist elsewhere but not here.
    package mutating func checkKeys(_ object: SchemaObject, allowed: [String], misplaced: [String: String] = [:]) {
        for member in object.object.members where !allowed.contains(member.key) {
            let path = object.path / member.key
            let shown = JSONPath.escaped(member.key)
            if let why = misplaced[member.key] {
                report("'\(shown)' is not allowed here; \(why)", at: path, member.keyPosition)
            } else if let suggestion = Self.suggestion(for: member.key, among: allowed) {
                report("unknown key '\(shown)'; did you mean '\(suggestion)'?", at: path, member.keyPosition)
            } else {
                report("unknown key '\(shown)'; allowed keys are \(allowed.joined(separator: ", "))", at: path, member.keyPosition)
            }
        }
    }

    /// The field, or a "missing required key" problem at the object's position.
    package mutating func required(_ object: SchemaObject, _ key: String, hint: String) -> SchemaField? {
        if let f = object.field(key) { return f }
        report("missing required key '\(key)'; \(hint)", at: object.path / key, object.position)
        return nil
    }

    // MARK: Scalars

    package mutating func string(_ field: SchemaField) -> String? {
        guard case .string(let s) = field.node.value else {
            report("expected a string, got \(field.node.value.kindDescription)", field)
            return nil
        }
        return s
    }

    /// A string that is not empty or only whitespace.
    package mutating func nonEmptyString(_ field: SchemaField, what: String = "a value") -> String? {
        guard let s = string(field) else { return nil }
        if s.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
            report("must not be empty; give \(what)", field)
            return nil
        }
        return s
    }

    package mutating func bool(_ field: SchemaField) -> Bool? {
        guard case .bool(let b) = field.node.value else {
            var hint = ""
            if case .string(let s) = field.node.value, s == "true" || s == "false" { hint = "; write \(s) without quotes" }
            report("expected true or false, got \(field.node.value.kindDescription)\(hint)", field)
            return nil
        }
        return b
    }

    /// A whole number within `range`.
    package mutating func int(_ field: SchemaField, in range: ClosedRange<Int>) -> Int? {
        guard case .number(let n) = field.node.value else {
            report("expected a number, got \(field.node.value.kindDescription)\(Self.unquoteHint(field))", field)
            return nil
        }
        guard let d = n.doubleValue, d >= Double(range.lowerBound), d <= Double(range.upperBound) else {
            report("must be between \(range.lowerBound) and \(range.upperBound) (got \(Self.excerpt(n.literal)))", field)
            return nil
        }
        guard let i = n.intValue else {
            report("must be a whole number between \(range.lowerBound) and \(range.upperBound) (got \(Self.excerpt(n.literal)))", field)
            return nil
        }
        return i
    }

    /// A number of seconds within `range`; fractions allowed.
    package mutating func seconds(_ field: SchemaField, in range: ClosedRange<Int>) -> Double? {
        guard case .number(let n) = field.node.value else {
            report("expected a number of seconds, got \(field.node.value.kindDescription)\(Self.unquoteHint(field))", field)
            return nil
        }
        guard let d = n.doubleValue, d >= Double(range.lowerBound), d <= Double(range.upperBound) else {
            report("must be between \(range.lowerBound) and \(range.upperBound) (got \(Self.excerpt(n.literal)))", field)
            return nil
        }
        return d
    }

    /// One of the raw values of `E` (lists them, and suggests the closest, when it is not).
    package mutating func choice<E: RawRepresentable & CaseIterable>(_ field: SchemaField, _ type: E.Type) -> E? where E.RawValue == String {
        guard let s = string(field) else { return nil }
        if let e = E(rawValue: s) { return e }
        let names = E.allCases.map(\.rawValue)
        let list = names.map { "'\($0)'" }.joined(separator: ", ")
        if let suggestion = Self.suggestion(for: s, among: names) {
            report("must be one of \(list) (got '\(Self.excerpt(s))'); did you mean '\(suggestion)'?", field)
        } else {
            report("must be one of \(list) (got '\(Self.excerpt(s))')", field)
        }
        return nil
    }

    /// One of `options` (raw spelling → value), for enums without `CaseIterable`.
    package mutating func choice<E>(_ field: SchemaField, options: [(String, E)]) -> E? {
        guard let s = string(field) else { return nil }
        if let hit = options.first(where: { $0.0 == s }) { return hit.1 }
        let names = options.map(\.0)
        let list = names.map { "'\($0)'" }.joined(separator: ", ")
        if let suggestion = Self.suggestion(for: s, among: names) {
            report("must be one of \(list) (got '\(Self.excerpt(s))'); did you mean '\(suggestion)'?", field)
        } else {
            report("must be one of \(list) (got '\(Self.excerpt(s))')", field)
        }
        return nil
    }

    /// An array, each element checked by `element` (which reports its own problems and returns nil).
    package mutating func array<T>(_ field: SchemaField, element: (inout SchemaReader, SchemaField) -> T?) -> [T]? {
        guard case .array(let nodes) = field.node.value else {
            report("expected an array, got \(field.node.value.kindDescription)", field)
            return nil
        }
        var out: [T] = []
        var ok = true
        for (i, node) in nodes.enumerated() {
            if let v = element(&self, SchemaField(node: node, path: field.path / i)) { out.append(v) } else { ok = false }
        }
        return ok ? out : nil
    }

    // MARK: Text helpers

    /// "; write 3 without quotes" when a string holds a plain number.
    package static func unquoteHint(_ field: SchemaField) -> String {
        guard case .string(let s) = field.node.value, s.count <= 20, Double(s) != nil,
              s.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == "." || $0 == "-") }) else { return "" }
        return "; write \(s) without quotes"
    }

    /// Input text shortened and with control characters escaped, for quoting in a message.
    package static func excerpt(_ s: String) -> String { JSONPath.escaped(s) }

    /// `[A-Za-z_][A-Za-z0-9_]*`
    package static func isIdentifier(_ s: String) -> Bool {
        guard let first = s.unicodeScalars.first, first.isASCIILetterOrUnderscore else { return false }
        return s.unicodeScalars.allSatisfy { $0.isASCIILetterOrUnderscore || ("0"..."9").contains($0) }
    }

    /// The candidate closest to `word` by edit distance (case-insensitive), when close enough to be a typo.
    package static func suggestion(for word: String, among candidates: [String]) -> String? {
        let w = Array(word.lowercased().unicodeScalars)
        guard !w.isEmpty, w.count <= 64 else { return nil }
        var best: (String, Int)?
        for c in candidates {
            let cs = Array(c.lowercased().unicodeScalars)
            let limit = max(1, min(3, max(w.count, cs.count) / 3))
            guard abs(cs.count - w.count) <= limit else { continue }
            let d = editDistance(w, cs)
            if d <= limit, best.map({ d < $0.1 }) ?? true { best = (c, d) }
        }
        return best?.0
    }

    /// Levenshtein distance with adjacent transpositions counted as one edit.
    package static func editDistance(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var prevPrev = [Int](repeating: 0, count: b.count + 1)
        var prev = Array(0...b.count)
        var cur = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            cur[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                var v = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    v = min(v, prevPrev[j - 2] + 1)
                }
                cur[j] = v
            }
            (prevPrev, prev, cur) = (prev, cur, prevPrev)
        }
        return prev[b.count]
    }
}
