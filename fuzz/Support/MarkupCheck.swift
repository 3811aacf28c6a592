import Foundation

/// Well-formedness checks the report targets apply to what the renderers wrote.
enum MarkupCheck {
    /// A small XML 1.0 well-formedness checker (no DTD): one root element, properly nested
    /// and closed tags, quoted attributes without `<`, unique attribute names per element,
    /// only the five predefined entities or character references, only legal characters,
    /// no `]]>` in character data. Returns the first problem, or nil.
    static func xmlProblem(_ text: String) -> String? {
        let s = Array(text.unicodeScalars)
        var i = 0
        var stack: [String] = []
        var roots = 0
        func legal(_ u: Unicode.Scalar) -> Bool {
            switch u.value {
            case 0x9, 0xA, 0xD, 0x20...0xD7FF, 0xE000...0xFFFD, 0x10000...0x10FFFF: return true
            default: return false
            }
        }
        func isNameStart(_ u: Unicode.Scalar) -> Bool { u.properties.isAlphabetic || u == "_" || u == ":" }
        func isName(_ u: Unicode.Scalar) -> Bool { isNameStart(u) || u.properties.numericType != nil || u == "-" || u == "." }
        func name() -> String? {
            guard i < s.count, isNameStart(s[i]) else { return nil }
            var n = String.UnicodeScalarView()
            while i < s.count, isName(s[i]) { n.append(s[i]); i += 1 }
            return String(n)
        }
        func skipSpace() { while i < s.count, s[i] == " " || s[i] == "\n" || s[i] == "\t" || s[i] == "\r" { i += 1 } }
        func reference() -> String? { // at '&'
            var j = i + 1
            var ref = ""
            while j < s.count, s[j] != ";", j - i < 12 { ref.unicodeScalars.append(s[j]); j += 1 }
            guard j < s.count, s[j] == ";" else { return "unterminated reference at \(i)" }
            if ["amp", "lt", "gt", "quot", "apos"].contains(ref) { i = j + 1; return nil }
            let number: UInt32?
            if ref.hasPrefix("#x") { number = UInt32(ref.dropFirst(2), radix: 16) } else if ref.hasPrefix("#") { number = UInt32(ref.dropFirst()) } else { number = nil }
            guard let n = number, let u = Unicode.Scalar(n), legal(u) else { return "bad reference &\(ref); at \(i)" }
            i = j + 1
            return nil
        }
        // Prolog: optional XML declaration.
        if text.hasPrefix("<?xml") {
            guard let end = text.range(of: "?>") else { return "unterminated XML declaration" }
            i = text[..<end.upperBound].unicodeScalars.count
        }
        while i < s.count {
            let c = s[i]
            guard legal(c) else { return "illegal character U+\(String(c.value, radix: 16)) at \(i)" }
            if c == "<" {
                if i + 3 < s.count, s[i + 1] == "!", s[i + 2] == "-", s[i + 3] == "-" {
                    var j = i + 4
                    while j + 2 < s.count, !(s[j] == "-" && s[j + 1] == "-" && s[j + 2] == ">") { j += 1 }
                    guard j + 2 < s.count else { return "unterminated comment" }
                    i = j + 3
                    continue
                }
                if i + 1 < s.count, s[i + 1] == "/" {
                    i += 2
                    guard let n = name() else { return "bad end tag at \(i)" }
                    skipSpace()
                    guard i < s.count, s[i] == ">" else { return "bad end tag </\(n) at \(i)" }
                    i += 1
                    guard stack.last == n else { return "end tag </\(n)> does not match <\(stack.last ?? "none")>" }
                    stack.removeLast()
                    continue
                }
                i += 1
                guard let n = name() else { return "bad start tag at \(i)" }
                if stack.isEmpty { roots += 1; if roots > 1 { return "more than one root element" } }
                var attributes: Set<String> = []
                while true {
                    let before = i
                    skipSpace()
                    guard i < s.count else { return "unterminated tag <\(n)" }
                    if s[i] == ">" { i += 1; stack.append(n); break }
                    if s[i] == "/", i + 1 < s.count, s[i + 1] == ">" { i += 2; break }
                    guard i > before, let a = name() else { return "bad attribute in <\(n)> at \(i)" }
                    guard attributes.insert(a).inserted else { return "duplicate attribute \(a) in <\(n)>" }
                    skipSpace()
                    guard i < s.count, s[i] == "=" else { return "attribute \(a) without value" }
                    i += 1
                    skipSpace()
                    guard i < s.count, s[i] == "\"" || s[i] == "'" else { return "unquoted attribute \(a)" }
                    let quote = s[i]
                    i += 1
                    while i < s.count, s[i] != quote {
                        guard legal(s[i]) else { return "illegal character in attribute \(a)" }
                        if s[i] == "<" { return "< in attribute \(a)" }
                        if s[i] == "&" { if let p = reference() { return p }; continue }
                        i += 1
                    }
                    guard i < s.count else { return "unterminated attribute \(a)" }
                    i += 1
                }
                continue
            }
            if c == "&" { if let p = reference() { return p }; continue }
            if c == ">", i >= 2, s[i - 1] == "]", s[i - 2] == "]" { return "]]> in character data" }
            if stack.isEmpty, !(c == " " || c == "\n" || c == "\t" || c == "\r") { return "text outside the root element at \(i)" }
            i += 1
        }
        if !stack.isEmpty { return "unclosed <\(stack.last!)>" }
        if roots != 1 { return "no root element" }
        return nil
    }

    /// Tags and attributes the HTML renderers produce themselves. Anything else in the output
    /// came from input that was not escaped.
    static let htmlTags: Set<String> = [
        "!DOCTYPE", "a", "body", "br", "circle", "details", "div", "figcaption", "figure", "footer", "g",
        "h1", "h2", "h3", "h4", "head", "header", "html", "i", "img", "li", "line", "main", "meta", "nav", "ol", "p",
        "polyline", "pre", "rect", "section", "span", "strong", "style", "summary", "svg", "table", "tbody",
        "td", "text", "th", "thead", "title", "tr", "ul",
    ]
    static let htmlAttributes: Set<String> = [
        "aria-label", "charset", "class", "content", "cx", "cy", "fill-opacity", "fill", "font-size", "height",
        "href", "id", "lang", "name", "points", "r", "role", "rx", "stroke-width", "stroke", "style", "text-anchor",
        "title", "width", "x1", "x2", "x", "y1", "y2", "y", "open", "viewBox", "xmlns", "preserveAspectRatio",
        "dominant-baseline", "transform", "d", "stroke-dasharray", "opacity", "ry", "colspan", "rowspan", "scope",
        "http-equiv", "src", "alt", "loading",
    ]

    /// Every `href="…"` value in `html` (attribute values as written, entities not decoded).
    static func hrefs(_ html: String) -> [String] { attributeValues("href", in: html) }

    /// Every value of attribute `name` in `html` (as written, entities not decoded).
    static func attributeValues(_ name: String, in html: String) -> [String] {
        var out: [String] = []
        var rest = html[...]
        while let r = rest.range(of: " \(name)=\"") {
            let after = rest[r.upperBound...]
            guard let end = after.firstIndex(of: "\"") else { break }
            out.append(String(after[..<end]))
            rest = after[end...]
        }
        return out
    }

    /// Bidi controls and line separators, which no report may carry raw.
    static func invisibleControl(in text: String) -> Unicode.Scalar? {
        text.unicodeScalars.first { u in
            switch u.value {
            case 0x202A...0x202E, 0x2066...0x2069, 0x200E, 0x200F, 0x061C, 0x2028, 0x2029, 0x0085: return true
            default: return false
            }
        }
    }

    /// Returns the first tag in `html` whose name is not one the renderer writes, or whose
    /// attributes do not parse as `name="value"` (a quote from input breaking out), or nil.
    static func htmlProblem(_ html: String) -> String? {
        let s = Array(html.unicodeScalars)
        var i = 0
        var inStyle = false
        while i < s.count {
            guard s[i] == "<" else { i += 1; continue }
            var j = i + 1
            if j < s.count, s[j] == "/" { j += 1 }
            var name = ""
            while j < s.count, s[j].properties.isAlphabetic || s[j] == "!" || (s[j].properties.numericType != nil && !name.isEmpty) {
                name.unicodeScalars.append(s[j]); j += 1
            }
            if inStyle && name != "style" { return "< inside <style> at \(i)" }
            guard htmlTags.contains(name) || htmlTags.contains(name.lowercased()) && name == "!DOCTYPE" else {
                return "unexpected tag <\(name)> at \(i): \(String(String.UnicodeScalarView(s[i..<min(s.count, i + 60)])))"
            }
            if name == "style" { inStyle = s[i + 1] != "/" }
            // Attributes: name, name="value" (no '<' or '"' inside), until '>'.
            while j < s.count, s[j] != ">" {
                if s[j] == " " || s[j] == "\n" || s[j] == "/" { j += 1; continue }
                var attr = ""
                while j < s.count, s[j] != "=", s[j] != " ", s[j] != ">" { attr.unicodeScalars.append(s[j]); j += 1 }
                if name == "!DOCTYPE" { continue }
                guard htmlAttributes.contains(attr) else {
                    return "bad attribute '\(attr)' in <\(name)> at \(i)"
                }
                if j < s.count, s[j] == "=" {
                    j += 1
                    guard j < s.count, s[j] == "\"" else { return "unquoted attribute \(attr) in <\(name)> at \(i)" }
                    j += 1
                    while j < s.count, s[j] != "\"" {
                        if s[j] == "<" || s[j] == ">" && name != "path" { return "markup in attribute \(attr) of <\(name)> at \(i)" }
                        j += 1
                    }
                    j += 1
                }
            }
            i = j
        }
        return nil
    }
}
