import Foundation

extension TestIdentifier {
    /// `Class/test` without module prefix, `/` path or `()`: the same test in every printed form.
    public var testKey: String {
        let (head, tail) = testKeyParts
        // One allocation: both parts are cut at ASCII bytes, so they stay valid UTF-8.
        return String(unsafeUninitializedCapacity: head.count + 1 + tail.count) { buffer in
            let slash = buffer.initialize(fromContentsOf: head)
            buffer[slash] = UInt8(ascii: "/")
            return slash + 1 + UnsafeMutableBufferPointer(rebasing: buffer[(slash + 1)...]).initialize(fromContentsOf: tail)
        }
    }

    /// `testKey` is `head + "/" + tail`: the class part of `suite` and `name` without `()`, as
    /// slices of their bytes (`head` holds no `/`).
    package var testKeyParts: (head: Substring.UTF8View, tail: Substring.UTF8View) {
        // On UTF-8 bytes (`.`, `/`, `(` and `)` are ASCII).
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
        return (s[from...], n[..<end])
    }
}
