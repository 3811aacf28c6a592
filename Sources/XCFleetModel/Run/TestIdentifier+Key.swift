import Foundation

extension TestIdentifier {
    /// `Class/test` without module prefix, `/` path or `()`: the same test in every printed form.
    public var testKey: String {
        var name = self.name
        if name.hasSuffix("()") { name.removeLast(2) }
        var cls = className
        if let slash = cls.lastIndex(of: "/") { cls = String(cls[cls.index(after: slash)...]) }
        return cls + "/" + name
    }
}
