import Foundation

/// A 1-based line and column in a JSON text. Columns count Unicode scalars, a tab counts as one.
public struct JSONPosition: Equatable, Hashable, Comparable, Sendable, CustomStringConvertible {
    public var line: Int
    public var column: Int

    public init(line: Int, column: Int) {
        self.line = line
        self.column = column
    }

    public static func < (a: JSONPosition, b: JSONPosition) -> Bool {
        (a.line, a.column) < (b.line, b.column)
    }

    public var description: String { "\(line):\(column)" }
}

/// A number as written in the document. The literal is kept so that messages can quote it and
/// so that huge values (`1e400`, 30 digits) are reported instead of silently rounded.
public struct JSONNumber: Equatable, Hashable, Sendable, CustomStringConvertible {
    public var literal: String

    public init(literal: String) { self.literal = literal }

    /// The value as a whole number, when it is one and fits in `Int` (`3`, `3.0`, `3e2`); nil otherwise.
    public var intValue: Int? {
        if let i = Int(literal) { return i }
        guard let d = Double(literal), d.isFinite, d == d.rounded(),
              abs(d) <= 9_007_199_254_740_992 else { return nil }
        return Int(d)
    }

    /// The value as a finite `Double`; nil when it overflows (`1e400`).
    public var doubleValue: Double? {
        guard let d = Double(literal), d.isFinite else { return nil }
        return d
    }

    /// True when the literal has no fraction or exponent.
    public var isIntegerLiteral: Bool { !literal.contains(where: { $0 == "." || $0 == "e" || $0 == "E" }) }

    public var description: String { literal }
}

/// One key and its value, with the key's position.
public struct JSONMember: Equatable, Sendable {
    public var key: String
    public var keyPosition: JSONPosition
    public var value: JSONNode

    public init(key: String, keyPosition: JSONPosition, value: JSONNode) {
        self.key = key
        self.keyPosition = keyPosition
        self.value = value
    }
}

/// An object's members in document order (keys are unique: the parser rejects duplicates).
public struct JSONObject: Equatable, Sendable {
    public private(set) var members: [JSONMember]
    private var index: [String: Int]

    public init(members: [JSONMember] = []) {
        self.members = []
        self.index = [:]
        for m in members { _ = insert(m) }
    }

    /// Adds a member; returns the existing member instead when the key is already present.
    package mutating func insert(_ member: JSONMember) -> JSONMember? {
        if let i = index[member.key] { return members[i] }
        index[member.key] = members.count
        members.append(member)
        return nil
    }

    public subscript(key: String) -> JSONMember? {
        guard let i = index[key] else { return nil }
        return members[i]
    }

    public var keys: [String] { members.map(\.key) }
    public var isEmpty: Bool { members.isEmpty }

    public static func == (a: JSONObject, b: JSONObject) -> Bool { a.members == b.members }
}

/// A parsed JSON value.
public enum JSONValue: Equatable, Sendable {
    case null
    case bool(Bool)
    case number(JSONNumber)
    case string(String)
    case array([JSONNode])
    case object(JSONObject)

    /// "a string", "an object", … for messages like "expected a number, got a string".
    public var kindDescription: String {
        switch self {
        case .null: return "null"
        case .bool: return "a bool"
        case .number: return "a number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }
}

/// A value and the position of its first character.
public struct JSONNode: Equatable, Sendable {
    public var value: JSONValue
    public var position: JSONPosition

    public init(_ value: JSONValue, at position: JSONPosition) {
        self.value = value
        self.position = position
    }
}

/// Why a text is not a JSON document, and where.
public struct JSONSyntaxError: Error, Equatable, Sendable, CustomStringConvertible {
    public var message: String
    public var position: JSONPosition

    public init(_ message: String, at position: JSONPosition) {
        self.message = message
        self.position = position
    }

    public var description: String { "\(position): \(message)" }
}

/// A JSON document parsed with source positions for every value and key.
///
/// The grammar is RFC 8259 JSON plus two conveniences for hand-written files (plans, fleets):
/// `// line` and `/* block */` comments, and a trailing comma after the last array element or
/// object member. Duplicate keys, invalid UTF-8, unescaped control characters, lone surrogate
/// escapes and nesting deeper than `maxDepth` are errors. Never traps, whatever the input.
public struct JSONDocument: Equatable, Sendable {
    public static let defaultMaxDepth = 64

    public var root: JSONNode

    public init(data: Data, maxDepth: Int = JSONDocument.defaultMaxDepth) throws(JSONSyntaxError) {
        var parser = JSONParser(bytes: [UInt8](data), maxDepth: maxDepth)
        root = try parser.parseDocument()
    }

    public init(text: String, maxDepth: Int = JSONDocument.defaultMaxDepth) throws(JSONSyntaxError) {
        try self.init(data: Data(text.utf8), maxDepth: maxDepth)
    }
}

/// Recursive-descent parser over bytes. Tracks line and column as it advances.
private struct JSONParser {
    let bytes: [UInt8]
    let maxDepth: Int
    var i = 0
    var line = 1
    var column = 1
    var depth = 0

    init(bytes: [UInt8], maxDepth: Int) {
        self.bytes = bytes
        self.maxDepth = maxDepth
    }

    var position: JSONPosition { JSONPosition(line: line, column: column) }
    var atEnd: Bool { i >= bytes.count }
    var peek: UInt8? { i < bytes.count ? bytes[i] : nil }

    mutating func advance() {
        guard i < bytes.count else { return }
        let b = bytes[i]
        i += 1
        if b == UInt8(ascii: "\n") {
            line += 1
            column = 1
        } else if b & 0xC0 != 0x80 {
            // Count lead bytes only, so a multi-byte scalar moves the column by one.
            column += 1
        }
    }

    mutating func parseDocument() throws(JSONSyntaxError) -> JSONNode {
        if let bad = Self.firstInvalidUTF8(bytes) {
            // Advance to the offending byte to report its position.
            while i < bad { advance() }
            throw JSONSyntaxError("invalid UTF-8 byte 0x\(String(bytes[bad], radix: 16, uppercase: true)); save the file as UTF-8", at: position)
        }
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { i = 3 }  // UTF-8 byte order mark
        try skipTrivia()
        guard !atEnd else { throw JSONSyntaxError("the file is empty; expected a JSON object", at: position) }
        let root = try parseValue()
        try skipTrivia()
        if !atEnd {
            throw JSONSyntaxError("unexpected \(describeCurrent()) after the end of the document", at: position)
        }
        return root
    }

    // MARK: Whitespace and comments

    mutating func skipTrivia() throws(JSONSyntaxError) {
        while let b = peek {
            switch b {
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"):
                advance()
            case UInt8(ascii: "/"):
                let start = position
                let next: UInt8? = i + 1 < bytes.count ? bytes[i + 1] : nil
                if next == UInt8(ascii: "/") {
                    while let c = peek, c != UInt8(ascii: "\n") { advance() }
                } else if next == UInt8(ascii: "*") {
                    advance(); advance()
                    var closed = false
                    while !atEnd {
                        if bytes[i] == UInt8(ascii: "*"), i + 1 < bytes.count, bytes[i + 1] == UInt8(ascii: "/") {
                            advance(); advance()
                            closed = true
                            break
                        }
                        advance()
                    }
                    if !closed { throw JSONSyntaxError("unterminated /* comment; close it with */", at: start) }
                } else {
                    throw JSONSyntaxError("unexpected '/'; comments start with // or /*", at: start)
                }
            default:
                return
            }
        }
    }

    // MARK: Values

    mutating func parseValue() throws(JSONSyntaxError) -> JSONNode {
        let start = position
        guard let b = peek else { throw JSONSyntaxError("unexpected end of file; expected a value", at: start) }
        switch b {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return JSONNode(.string(try parseString()), at: start)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return JSONNode(.number(try parseNumber()), at: start)
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "_"), UInt8(ascii: "+"), UInt8(ascii: "."):
            return JSONNode(try parseWord(), at: start)
        case UInt8(ascii: "'"):
            throw JSONSyntaxError("strings must use double quotes, not single quotes", at: start)
        default:
            throw JSONSyntaxError("unexpected \(describeCurrent()); expected a value", at: start)
        }
    }

    mutating func enter(_ start: JSONPosition) throws(JSONSyntaxError) {
        depth += 1
        if depth > maxDepth {
            throw JSONSyntaxError("nesting deeper than \(maxDepth) levels", at: start)
        }
    }

    mutating func parseObject() throws(JSONSyntaxError) -> JSONNode {
        let start = position
        try enter(start)
        advance()  // {
        var object = JSONObject()
        try skipTrivia()
        while true {
            guard let b = peek else {
                throw JSONSyntaxError("unterminated object; expected '}' to close the '{' at \(start)", at: position)
            }
            if b == UInt8(ascii: "}") { advance(); break }
            let keyPosition = position
            guard b == UInt8(ascii: "\"") else {
                if b == UInt8(ascii: ",") { throw JSONSyntaxError("unexpected ','; expected a key in double quotes", at: keyPosition) }
                throw JSONSyntaxError("expected a key in double quotes or '}', got \(describeCurrent())", at: keyPosition)
            }
            let key = try parseString()
            try skipTrivia()
            guard peek == UInt8(ascii: ":") else {
                throw JSONSyntaxError("expected ':' after the key \"\(Self.excerpt(key))\", got \(describeCurrent())", at: position)
            }
            advance()
            try skipTrivia()
            let value = try parseValue()
            if let first = object.insert(JSONMember(key: key, keyPosition: keyPosition, value: value)) {
                throw JSONSyntaxError("duplicate key \"\(Self.excerpt(key))\" (first at line \(first.keyPosition.line)); each key may appear once", at: keyPosition)
            }
            try skipTrivia()
            guard let sep = peek else { continue }  // reported as unterminated above
            if sep == UInt8(ascii: ",") {
                advance()
                try skipTrivia()
            } else if sep != UInt8(ascii: "}") {
                throw JSONSyntaxError("expected ',' or '}' after a member, got \(describeCurrent())", at: position)
            }
        }
        depth -= 1
        return JSONNode(.object(object), at: start)
    }

    mutating func parseArray() throws(JSONSyntaxError) -> JSONNode {
        let start = position
        try enter(start)
        advance()  // [
        var elements: [JSONNode] = []
        try skipTrivia()
        while true {
            guard let b = peek else {
                throw JSONSyntaxError("unterminated array; expected ']' to close the '[' at \(start)", at: position)
            }
            if b == UInt8(ascii: "]") { advance(); break }
            if b == UInt8(ascii: ",") { throw JSONSyntaxError("unexpected ','; expected a value", at: position) }
            elements.append(try parseValue())
            try skipTrivia()
            guard let sep = peek else { continue }
            if sep == UInt8(ascii: ",") {
                advance()
                try skipTrivia()
            } else if sep != UInt8(ascii: "]") {
                throw JSONSyntaxError("expected ',' or ']' after an element, got \(describeCurrent())", at: position)
            }
        }
        depth -= 1
        return JSONNode(.array(elements), at: start)
    }

    mutating func parseString() throws(JSONSyntaxError) -> String {
        let start = position
        advance()  // opening quote
        var out: [UInt8] = []
        while true {
            guard let b = peek else {
                throw JSONSyntaxError("unterminated string; add the closing '\"'", at: start)
            }
            switch b {
            case UInt8(ascii: "\""):
                advance()
                // The input was validated as UTF-8 and escapes produce valid scalars.
                return String(decoding: out, as: UTF8.self)
            case UInt8(ascii: "\\"):
                let escapePosition = position
                advance()
                guard let e = peek else { throw JSONSyntaxError("unterminated string; add the closing '\"'", at: start) }
                advance()
                switch e {
                case UInt8(ascii: "\""): out.append(0x22)
                case UInt8(ascii: "\\"): out.append(0x5C)
                case UInt8(ascii: "/"): out.append(0x2F)
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "u"):
                    let scalar = try parseUnicodeEscape(escapePosition)
                    out.append(contentsOf: Array(String(Character(scalar)).utf8))
                default:
                    throw JSONSyntaxError("invalid escape '\\\(Self.printable(e))'; valid escapes are \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX", at: escapePosition)
                }
            case 0x00..<0x20:
                throw JSONSyntaxError("control character U+\(String(format: "%04X", Int(b))) inside a string; write it as an escape such as \\n or \\t", at: position)
            default:
                out.append(b)
                advance()
            }
        }
    }

    /// After `\u`: four hex digits, combining a surrogate pair when one follows.
    mutating func parseUnicodeEscape(_ escapePosition: JSONPosition) throws(JSONSyntaxError) -> Unicode.Scalar {
        let high = try parseHex4(escapePosition)
        if (0xD800...0xDBFF).contains(high) {
            guard i + 1 < bytes.count, bytes[i] == UInt8(ascii: "\\"), bytes[i + 1] == UInt8(ascii: "u") else {
                throw JSONSyntaxError("unpaired surrogate \\u\(String(format: "%04X", high)); a high surrogate must be followed by a low one", at: escapePosition)
            }
            let lowPosition = position
            advance(); advance()
            let low = try parseHex4(lowPosition)
            guard (0xDC00...0xDFFF).contains(low) else {
                throw JSONSyntaxError("unpaired surrogate \\u\(String(format: "%04X", high)); a high surrogate must be followed by a low one", at: escapePosition)
            }
            let value = 0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00)
            guard let s = Unicode.Scalar(value) else {
                throw JSONSyntaxError("invalid \\u escape", at: escapePosition)
            }
            return s
        }
        guard let s = Unicode.Scalar(high) else {
            throw JSONSyntaxError("unpaired surrogate \\u\(String(format: "%04X", high)); a low surrogate must follow a high one", at: escapePosition)
        }
        return s
    }

    mutating func parseHex4(_ escapePosition: JSONPosition) throws(JSONSyntaxError) -> UInt32 {
        var v: UInt32 = 0
        for _ in 0..<4 {
            guard let b = peek, let d = Self.hexValue(b) else {
                throw JSONSyntaxError("\\u must be followed by four hex digits", at: escapePosition)
            }
            v = v << 4 | d
            advance()
        }
        return v
    }

    static func hexValue(_ b: UInt8) -> UInt32? {
        switch b {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return UInt32(b - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return UInt32(b - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return UInt32(b - UInt8(ascii: "A") + 10)
        default: return nil
        }
    }

    static func isDigit(_ b: UInt8?) -> Bool {
        guard let b else { return false }
        return b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9")
    }

    /// `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`
    mutating func parseNumber() throws(JSONSyntaxError) -> JSONNumber {
        let start = position
        let startIndex = i
        if peek == UInt8(ascii: "-") { advance() }
        guard Self.isDigit(peek) else {
            throw JSONSyntaxError("invalid number: expected a digit after '-'", at: start)
        }
        if peek == UInt8(ascii: "0") {
            advance()
            if Self.isDigit(peek) { throw JSONSyntaxError("invalid number: no leading zeros allowed", at: start) }
        } else {
            while Self.isDigit(peek) { advance() }
        }
        if peek == UInt8(ascii: ".") {
            advance()
            guard Self.isDigit(peek) else { throw JSONSyntaxError("invalid number: expected a digit after '.'", at: start) }
            while Self.isDigit(peek) { advance() }
        }
        if peek == UInt8(ascii: "e") || peek == UInt8(ascii: "E") {
            advance()
            if peek == UInt8(ascii: "+") || peek == UInt8(ascii: "-") { advance() }
            guard Self.isDigit(peek) else { throw JSONSyntaxError("invalid number: expected a digit in the exponent", at: start) }
            while Self.isDigit(peek) { advance() }
        }
        if let b = peek, Self.isWordByte(b) {
            throw JSONSyntaxError("invalid number: unexpected \(describeCurrent())", at: start)
        }
        return JSONNumber(literal: String(decoding: bytes[startIndex..<i], as: UTF8.self))
    }

    static func isWordByte(_ b: UInt8) -> Bool {
        switch b {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "+"), UInt8(ascii: "-"):
            return true
        default:
            return false
        }
    }

    /// `true`, `false`, `null`; anything else word-like gets a message naming the word.
    mutating func parseWord() throws(JSONSyntaxError) -> JSONValue {
        let start = position
        let startIndex = i
        while let b = peek, Self.isWordByte(b), i - startIndex < 64 { advance() }
        let word = String(decoding: bytes[startIndex..<i], as: UTF8.self)
        switch word {
        case "true": return .bool(true)
        case "false": return .bool(false)
        case "null": return .null
        case "NaN", "Infinity", "+Infinity", "-Infinity":
            throw JSONSyntaxError("'\(word)' is not allowed; JSON numbers must be finite", at: start)
        case "True", "TRUE", "False", "FALSE", "Null", "NULL", "nil", "None":
            throw JSONSyntaxError("unexpected '\(word)'; JSON literals are lowercase: true, false, null", at: start)
        default:
            // The word is not quoted back: it may be a secret someone forgot to put in quotes.
            throw JSONSyntaxError("unexpected unquoted text; strings must be in double quotes", at: start)
        }
    }

    // MARK: Messages

    func describeCurrent() -> String {
        guard let b = peek else { return "end of file" }
        if b >= 0x20 && b < 0x7F { return "'\(Self.printable(b))'" }
        if b >= 0x80 {
            // Show the whole scalar (input is valid UTF-8 by now).
            var end = i + 1
            while end < bytes.count, bytes[end] & 0xC0 == 0x80, end - i < 4 { end += 1 }
            return "'\(String(decoding: bytes[i..<end], as: UTF8.self))'"
        }
        return "byte 0x\(String(format: "%02X", Int(b)))"
    }

    static func printable(_ b: UInt8) -> String {
        b >= 0x20 && b < 0x7F ? String(UnicodeScalar(b)) : String(format: "0x%02X", Int(b))
    }

    /// A key or word shortened for a message.
    static func excerpt(_ s: String) -> String {
        s.count <= 40 ? s : String(s.prefix(40)) + "…"
    }

    /// Index of the first byte that is not part of well-formed UTF-8 (no overlongs, no surrogates, ≤ U+10FFFF).
    static func firstInvalidUTF8(_ bytes: [UInt8]) -> Int? {
        var k = 0
        let n = bytes.count
        while k < n {
            let b = bytes[k]
            if b < 0x80 { k += 1; continue }
            let length: Int
            var lower: UInt8 = 0x80
            var upper: UInt8 = 0xBF
            switch b {
            case 0xC2...0xDF: length = 2
            case 0xE0: length = 3; lower = 0xA0
            case 0xE1...0xEC, 0xEE...0xEF: length = 3
            case 0xED: length = 3; upper = 0x9F
            case 0xF0: length = 4; lower = 0x90
            case 0xF1...0xF3: length = 4
            case 0xF4: length = 4; upper = 0x8F
            default: return k
            }
            guard k + length <= n else { return k }
            let second = bytes[k + 1]
            guard second >= lower && second <= upper else { return k }
            var j = 2
            while j < length {
                guard bytes[k + j] & 0xC0 == 0x80 else { return k }
                j += 1
            }
            k += length
        }
        return nil
    }
}

extension JSONSyntaxError: UserFacingError {
    public var userMessage: String { "JSON syntax error at \(description); fix the document there" }
    public var exitCode: Int32 { UserFacingErrors.ExitCode.usage }
}
