import Foundation

/// The XCTest methods of Swift source, read with a small lexer instead of line matching: for
/// rendered templates, whose manifest is known before anything is built (for a team's own code
/// the manifest comes from what was built: `SwiftTestList`, `XcodeTestEnumeration`).
///
/// A test is what XCTest runs: an instance method `func test…()` without parameters, not
/// `private`/`fileprivate`, not `static`/`class`, returning nothing, declared directly in a class
/// that inherits `XCTestCase` (or in an extension of one). Comments, string literals and
/// `#if false` / `#if 0` blocks are not code. Other `#if` conditions cannot be decided here:
/// every branch counts, so a test in any branch must be seen (the build decides which compiles).
public enum SwiftTestScanner {
    /// `Class/test` names in source order.
    public static func tests(in source: String) -> [String] {
        let tokens = lex(source)
        var out: [String] = []
        var testCaseClasses = Set<String>()
        // Pass 1 finds the XCTestCase classes, also through a base class of this file (an
        // extension may come before its class): repeated until nothing new is found.
        var bases: Set<String> = ["XCTestCase"]
        var i = 0
        repeat {
            bases.formUnion(testCaseClasses)
            i = 0
            while i < tokens.count {
                if tokens[i] == .word("class"), i + 1 < tokens.count, case .word(let name) = tokens[i + 1],
                   inherits(tokens, from: i + 2, bases) { testCaseClasses.insert(name) }
                i += 1
            }
        } while !testCaseClasses.isSubset(of: bases)
        // Pass 2 walks bodies by brace depth.
        var depth = 0
        var bodies: [(depth: Int, name: String?)] = []   // open type bodies; name set for XCTestCase ones
        var pending: String??                              // a type declaration waiting for its `{`
        i = 0
        while i < tokens.count {
            let t = tokens[i]
            switch t {
            case .open:
                depth += 1
                if let p = pending { bodies.append((depth, p)); pending = nil }
            case .close:
                if bodies.last?.depth == depth { bodies.removeLast() }
                depth = max(0, depth - 1)
            case .word(let w) where ["class", "struct", "enum", "actor", "protocol", "extension"].contains(w):
                // `class func` / `class var` are members, not types.
                if w == "class", i + 1 < tokens.count, case .word(let next) = tokens[i + 1],
                   ["func", "var", "let", "subscript", "override", "final", "static"].contains(next) { break }
                if i + 1 < tokens.count, case .word(let name) = tokens[i + 1] {
                    let isTestCase = (w == "class" || w == "extension") && testCaseClasses.contains(name)
                    pending = .some(isTestCase ? name : nil)
                    i += 1
                }
            case .word("func"):
                guard let body = bodies.last, body.depth == depth, let cls = body.name,
                      i + 1 < tokens.count, case .word(let name) = tokens[i + 1], name.hasPrefix("test") else { break }
                if isTestSignature(tokens, at: i), let joined = nameable(cls, name) { out.append(joined) }
            default:
                break
            }
            i += 1
        }
        return out
    }

    /// `Class/test`, or nil when that text could not name the test again: a raw identifier in
    /// backticks may be empty or hold a `/`, and whatever else the text holds, the name must split
    /// back into this class and this method.
    static func nameable(_ cls: String, _ name: String) -> String? {
        let joined = "\(cls)/\(name)"
        let parts = joined.split(separator: "/", omittingEmptySubsequences: false)
        guard !cls.isEmpty, parts.count == 2, parts[0] == cls, parts[1] == name else { return nil }
        return joined
    }

    // MARK: Signature

    /// `func testX() [async] [throws] [-> Void | -> ()] {`, with no disqualifying modifier before it.
    static func isTestSignature(_ tokens: [Token], at funcIndex: Int) -> Bool {
        // Modifiers back to the previous declaration boundary.
        var j = funcIndex - 1
        while j >= 0, case .word(let w) = tokens[j], modifierWords.contains(w) {
            if ["private", "fileprivate", "static", "class"].contains(w) { return false }
            j -= 1
        }
        var k = funcIndex + 2
        guard k < tokens.count, tokens[k] == .parenOpen, k + 1 < tokens.count, tokens[k + 1] == .parenClose else { return false }
        k += 2
        while k < tokens.count, case .word(let w) = tokens[k], ["async", "throws", "rethrows"].contains(w) { k += 1 }
        if k < tokens.count, tokens[k] == .arrow {
            if k + 1 < tokens.count, tokens[k + 1] == .word("Void") { k += 2 }
            else if k + 2 < tokens.count, tokens[k + 1] == .parenOpen, tokens[k + 2] == .parenClose { k += 3 }
            else { return false }
        }
        return k < tokens.count && tokens[k] == .open
    }

    static let modifierWords: Set<String> = ["public", "open", "internal", "private", "fileprivate", "final", "override",
                                             "static", "class", "nonisolated", "dynamic", "@objc", "@MainActor", "mutating"]

    /// The inheritance clause after a type name (generic parameters skipped) names `base`.
    static func inherits(_ tokens: [Token], from start: Int, _ bases: Set<String>) -> Bool {
        var k = start
        var angle = 0
        while k < tokens.count {
            switch tokens[k] {
            case .angleOpen: angle += 1
            case .angleClose: angle = max(0, angle - 1)
            case .colon where angle == 0:
                var m = k + 1
                while m < tokens.count, tokens[m] != .open {
                    if case .word(let w) = tokens[m], bases.contains(w) { return true }
                    if tokens[m] == .word("where") { break }
                    m += 1
                }
                return false
            case .open: return false
            default: break
            }
            k += 1
        }
        return false
    }

    // MARK: Lexer

    enum Token: Equatable {
        case word(String)
        case open, close, parenOpen, parenClose, angleOpen, angleClose, colon, arrow, other
    }

    /// Words and the punctuation the scanner needs; comments, strings and inactive `#if` blocks dropped.
    static func lex(_ source: String) -> [Token] {
        let s = Array(source.unicodeScalars)
        var tokens: [Token] = []
        var i = 0
        // `#if` nesting: each level says whether its current branch is skipped.
        var conditions: [(skipping: Bool, taken: Bool)] = []
        var skipping: Bool { conditions.contains { $0.skipping } }
        func isWordStart(_ c: Unicode.Scalar) -> Bool { c == "_" || c.properties.isAlphabetic }
        func isWord(_ c: Unicode.Scalar) -> Bool { isWordStart(c) || c.properties.numericType != nil }
        func restOfLine(from j: Int) -> (String, Int) {
            var k = j
            while k < s.count, s[k] != "\n" { k += 1 }
            return (String(String.UnicodeScalarView(s[j..<k])).trimmingCharacters(in: .whitespaces), k)
        }
        while i < s.count {
            let c = s[i]
            // Comments.
            if c == "/", i + 1 < s.count, s[i + 1] == "/" { while i < s.count, s[i] != "\n" { i += 1 }; continue }
            if c == "/", i + 1 < s.count, s[i + 1] == "*" {
                var nest = 1
                i += 2
                while i < s.count, nest > 0 {
                    if s[i] == "/", i + 1 < s.count, s[i + 1] == "*" { nest += 1; i += 2 }
                    else if s[i] == "*", i + 1 < s.count, s[i + 1] == "/" { nest -= 1; i += 2 }
                    else { i += 1 }
                }
                continue
            }
            // Compiler directives at the start of a line.
            if c == "#", i + 1 < s.count, isWordStart(s[i + 1]) {
                var k = i + 1
                while k < s.count, isWord(s[k]) { k += 1 }
                let directive = String(String.UnicodeScalarView(s[(i + 1)..<k]))
                if ["if", "elseif", "else", "endif"].contains(directive) {
                    let (condition, end) = restOfLine(from: k)
                    let literalFalse = condition == "false" || condition == "0"
                    let literalTrue = condition == "true" || condition == "1"
                    switch directive {
                    case "if": conditions.append((skipping: literalFalse, taken: literalTrue))
                    case "elseif":
                        if var top = conditions.popLast() {
                            top.skipping = top.taken || literalFalse
                            top.taken = top.taken || literalTrue
                            conditions.append(top)
                        }
                    case "else":
                        if var top = conditions.popLast() { top.skipping = top.taken; conditions.append(top) }
                    default: _ = conditions.popLast()
                    }
                    i = end
                    continue
                }
            }
            if skipping {
                // Strings may hold `#endif` or braces: still step over them while skipping.
                if c == "\"" { i = skipString(s, i) } else { i += 1 }
                continue
            }
            // String literals (plain, multi-line, raw with #).
            if c == "\"" || (c == "#" && i + 1 < s.count && (s[i + 1] == "\"" || s[i + 1] == "#")) {
                i = skipString(s, i)
                tokens.append(.other)
                continue
            }
            if isWordStart(c) || c == "@" || c == "`" {
                var k = i + 1
                while k < s.count, isWord(s[k]) || (c == "`" && s[k] != "`" && s[k] != "\n") { k += 1 }
                if c == "`" {
                    // An unclosed or empty backtick is not an identifier.
                    guard k < s.count, s[k] == "`", k > i + 1 else { tokens.append(.other); i = k; continue }
                    k += 1
                }
                var word = String(String.UnicodeScalarView(s[i..<k]))
                if word.hasPrefix("`") { word = String(word.dropFirst().dropLast()) }
                tokens.append(.word(word))
                i = k
                continue
            }
            switch c {
            case "{": tokens.append(.open)
            case "}": tokens.append(.close)
            case "(": tokens.append(.parenOpen)
            case ")": tokens.append(.parenClose)
            case "<": tokens.append(.angleOpen)
            case ">": tokens.append(.angleClose)
            case ":": tokens.append(.colon)
            case "-" where i + 1 < s.count && s[i + 1] == ">": tokens.append(.arrow); i += 1
            case " ", "\t", "\n", "\r": break
            default: tokens.append(.other)
            }
            i += 1
        }
        return tokens
    }

    /// The index after the string literal that starts at `start` (`"`, `"""`, `#"…"#`).
    static func skipString(_ s: [Unicode.Scalar], _ start: Int) -> Int {
        var i = start
        var hashes = 0
        while i < s.count, s[i] == "#" { hashes += 1; i += 1 }
        guard i < s.count, s[i] == "\"" else { return i }
        let multi = i + 2 < s.count && s[i + 1] == "\"" && s[i + 2] == "\""
        i += multi ? 3 : 1
        let quotes = multi ? 3 : 1
        while i < s.count {
            if s[i] == "\\" && hashes == 0 { i += 2; continue }
            if !multi && s[i] == "\n" { return i }
            if s[i] == "\"" {
                var q = 0
                while i + q < s.count, s[i + q] == "\"", q < quotes { q += 1 }
                if q == quotes {
                    var h = 0
                    while i + q + h < s.count, s[i + q + h] == "#", h < hashes { h += 1 }
                    if h == hashes { return i + q + h }
                }
                i += max(1, q)
                continue
            }
            i += 1
        }
        return i
    }
}
