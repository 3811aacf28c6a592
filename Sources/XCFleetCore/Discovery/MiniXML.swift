import Foundation
import XCFleetBasics

/// One element of a small XML document: what `.xcscheme` files and XML property lists
/// (`.xctestrun`) need, and nothing more. Attributes and children keep their order in the file.
package struct XMLElement: Equatable, Sendable {
    package var name: String
    package var attributes: [(name: String, value: String)]
    package var children: [XMLElement]
    /// The element's own character data (entities decoded; CDATA kept as written).
    package var text: String
    /// 1-based line of the `<` that opens it.
    package var line: Int

    package func attribute(_ name: String) -> String? { attributes.first(where: { $0.name == name })?.value }
    package func children(named name: String) -> [XMLElement] { children.filter { $0.name == name } }
    package func child(_ name: String) -> XMLElement? { children.first(where: { $0.name == name }) }
    /// Every element below this one (depth first, file order) named `name`.
    package func descendants(named name: String) -> [XMLElement] {
        var out: [XMLElement] = []
        var stack: [XMLElement] = children.reversed()
        while let e = stack.popLast() {
            if e.name == name { out.append(e) }
            stack.append(contentsOf: e.children.reversed())
        }
        return out
    }

    package static func == (a: XMLElement, b: XMLElement) -> Bool {
        a.name == b.name && a.attributes.map(\.name) == b.attributes.map(\.name)
            && a.attributes.map(\.value) == b.attributes.map(\.value) && a.children == b.children && a.text == b.text
    }
}

/// Why a document could not be read, with the line it stopped at.
package struct XMLSyntaxError: Error, Equatable, Sendable, CustomStringConvertible {
    package var message: String
    package var line: Int
    package var description: String { "line \(line): \(message)" }
}

/// A strict reader for well-formed XML without a DTD: the prolog, comments, processing
/// instructions, CDATA, the five named entities and numeric character references. Input comes
/// from users' repositories and hosts: nesting is bounded, every index is checked, nothing traps.
package enum MiniXML {
    package static let maxDepth = 128

    package static func parse(_ data: Data) throws(XMLSyntaxError) -> XMLElement {
        var reader = Reader(bytes: [UInt8](data))
        return try reader.document()
    }

    package static func parse(_ text: String) throws(XMLSyntaxError) -> XMLElement { try parse(Data(text.utf8)) }

    private struct Reader {
        let bytes: [UInt8]
        var i = 0
        var line = 1

        init(bytes: [UInt8]) {
            // A UTF-8 byte order mark is allowed before the prolog.
            self.bytes = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? Array(bytes.dropFirst(3)) : bytes
        }

        var atEnd: Bool { i >= bytes.count }
        func peek(_ offset: Int = 0) -> UInt8? { i + offset < bytes.count ? bytes[i + offset] : nil }
        mutating func advance(_ n: Int = 1) {
            for _ in 0..<n where i < bytes.count {
                if bytes[i] == 0x0A { line += 1 }
                i += 1
            }
        }
        func fail(_ message: String) -> XMLSyntaxError { XMLSyntaxError(message: message, line: line) }
        func startsHere(_ s: String) -> Bool {
            let u = Array(s.utf8)
            guard i + u.count <= bytes.count else { return false }
            return bytes[i..<(i + u.count)].elementsEqual(u)
        }
        mutating func skip(until terminator: String, what: String) throws(XMLSyntaxError) {
            while !atEnd {
                if startsHere(terminator) { advance(terminator.utf8.count); return }
                advance()
            }
            throw fail("\(what) is not closed")
        }
        mutating func skipSpace() {
            while let b = peek(), b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D { advance() }
        }

        /// Comments, processing instructions and a DOCTYPE (without an internal subset) outside the root.
        mutating func skipMisc() throws(XMLSyntaxError) {
            while true {
                skipSpace()
                if startsHere("<?") { try skip(until: "?>", what: "a processing instruction") }
                else if startsHere("<!--") { try skip(until: "-->", what: "a comment") }
                else if startsHere("<!DOCTYPE") {
                    while let b = peek(), b != UInt8(ascii: ">") {
                        if b == UInt8(ascii: "[") { throw fail("a DOCTYPE with an internal subset is not read") }
                        advance()
                    }
                    guard !atEnd else { throw fail("the DOCTYPE is not closed") }
                    advance()
                } else { return }
            }
        }

        mutating func document() throws(XMLSyntaxError) -> XMLElement {
            try skipMisc()
            guard peek() == UInt8(ascii: "<") else { throw fail(atEnd ? "the document is empty" : "expected an element") }
            let root = try element(depth: 0)
            try skipMisc()
            guard atEnd else { throw fail("text after the root element") }
            return root
        }

        static func isNameByte(_ b: UInt8) -> Bool {
            b >= 0x80 || (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A)
                || b == UInt8(ascii: "_") || b == UInt8(ascii: "-") || b == UInt8(ascii: ".") || b == UInt8(ascii: ":")
        }

        mutating func name() throws(XMLSyntaxError) -> String {
            let start = i
            while let b = peek(), Self.isNameByte(b) { advance() }
            guard i > start else { throw fail("expected a name") }
            return String(decoding: bytes[start..<i], as: UTF8.self)
        }

        /// Decodes character data up to (not including) `stop`, resolving entities.
        mutating func characters(stopAt stop: UInt8) throws(XMLSyntaxError) -> String {
            var out: [UInt8] = []
            while let b = peek(), b != stop {
                if b == UInt8(ascii: "&") {
                    out.append(contentsOf: try entity())
                } else {
                    out.append(b)
                    advance()
                }
            }
            return String(decoding: out, as: UTF8.self)
        }

        mutating func entity() throws(XMLSyntaxError) -> [UInt8] {
            advance() // &
            let start = i
            while let b = peek(), b != UInt8(ascii: ";"), i - start < 12 { advance() }
            guard peek() == UInt8(ascii: ";") else { throw fail("an entity is not closed with ';'") }
            let body = String(decoding: bytes[start..<i], as: UTF8.self)
            advance()
            switch body {
            case "lt": return [UInt8(ascii: "<")]
            case "gt": return [UInt8(ascii: ">")]
            case "amp": return [UInt8(ascii: "&")]
            case "quot": return [UInt8(ascii: "\"")]
            case "apos": return [UInt8(ascii: "'")]
            default:
                var value: UInt32?
                if body.hasPrefix("#x") || body.hasPrefix("#X") { value = UInt32(body.dropFirst(2), radix: 16) }
                else if body.hasPrefix("#") { value = UInt32(body.dropFirst(1), radix: 10) }
                guard let v = value, v != 0, let scalar = Unicode.Scalar(v) else { throw fail("unknown entity '&\(body.prefix(12));'") }
                return Array(String(Character(scalar)).utf8)
            }
        }

        mutating func element(depth: Int) throws(XMLSyntaxError) -> XMLElement {
            guard depth < MiniXML.maxDepth else { throw fail("elements are nested deeper than \(MiniXML.maxDepth)") }
            let openLine = line
            advance() // <
            let tag = try name()
            var attributes: [(name: String, value: String)] = []
            while true {
                skipSpace()
                guard let b = peek() else { throw fail("the tag <\(tag)> is not closed") }
                if b == UInt8(ascii: "/") {
                    advance()
                    guard peek() == UInt8(ascii: ">") else { throw fail("expected '>' after '/' in <\(tag)>") }
                    advance()
                    return XMLElement(name: tag, attributes: attributes, children: [], text: "", line: openLine)
                }
                if b == UInt8(ascii: ">") { advance(); break }
                let attribute = try name()
                skipSpace()
                guard peek() == UInt8(ascii: "=") else { throw fail("expected '=' after the attribute \(attribute)") }
                advance()
                skipSpace()
                guard let quote = peek(), quote == UInt8(ascii: "\"") || quote == UInt8(ascii: "'") else {
                    throw fail("the value of \(attribute) is not quoted")
                }
                advance()
                let value = try characters(stopAt: quote)
                guard peek() == quote else { throw fail("the value of \(attribute) is not closed") }
                advance()
                if attributes.contains(where: { $0.name == attribute }) { throw fail("the attribute \(attribute) appears twice in <\(tag)>") }
                attributes.append((attribute, value))
            }
            var children: [XMLElement] = []
            var text = ""
            while true {
                guard let b = peek() else { throw fail("<\(tag)> (line \(openLine)) is not closed") }
                if b != UInt8(ascii: "<") { text += try characters(stopAt: UInt8(ascii: "<")); continue }
                if startsHere("</") {
                    advance(2)
                    let closing = try name()
                    skipSpace()
                    guard closing == tag, peek() == UInt8(ascii: ">") else {
                        throw fail("</\(closing)> closes <\(tag)> (line \(openLine))")
                    }
                    advance()
                    return XMLElement(name: tag, attributes: attributes, children: children, text: text, line: openLine)
                }
                if startsHere("<!--") { try skip(until: "-->", what: "a comment"); continue }
                if startsHere("<?") { try skip(until: "?>", what: "a processing instruction"); continue }
                if startsHere("<![CDATA[") {
                    advance(9)
                    let start = i
                    while !atEnd && !startsHere("]]>") { advance() }
                    guard !atEnd else { throw fail("a CDATA section is not closed") }
                    text += String(decoding: bytes[start..<i], as: UTF8.self)
                    advance(3)
                    continue
                }
                children.append(try element(depth: depth + 1))
            }
        }
    }
}
