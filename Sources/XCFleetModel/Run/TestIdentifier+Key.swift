import Foundation

extension TestIdentifier {
    /// `Class/test` without module prefix, `/` path or `()`: the same test in every printed form.
    public var testKey: String {
        // On UTF-8 bytes (`.`, `/`, `(` and `)` are ASCII): the key is built once per result.
        let s = suite.utf8
        var from = s.startIndex
        if let cut = s.lastIndex(where: { $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "/") }) {
            // `Module.Class` → `Class`, then anything up to a `/` (`Module.Suite/…` forms).
            if s[cut] == UInt8(ascii: "/") { from = s.index(after: cut) } else {
                let afterDot = s.index(after: cut)
                from = s[afterDot...].lastIndex(of: UInt8(ascii: "/")).map { s.index(after: $0) } ?? afterDot
            }
        }
        let n = name.utf8
        var end = n.endIndex
        if n.count >= 2, n.last == UInt8(ascii: ")"), n[n.index(end, offsetBy: -2)] == UInt8(ascii: "(") { end = n.index(end, offsetBy: -2) }
        var key = String(Substring(s[from...]))
        key.reserveCapacity(key.utf8.count + 1 + n.distance(from: n.startIndex, to: end))
        key += "/"
        key += Substring(n[..<end])
        return key
    }
}
