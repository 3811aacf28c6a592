import Foundation

/// Where a value sits in a JSON document, rendered like `suites[1].timeouts.test`.
/// Keys that are not plain identifiers are quoted: `environment["MY VAR"]`.
public struct JSONPath: Equatable, Hashable, Sendable, CustomStringConvertible {
    public enum Component: Equatable, Hashable, Sendable {
        case key(String)
        case index(Int)
    }

    public var components: [Component]

    public init(_ components: [Component] = []) { self.components = components }

    public static let root = JSONPath()

    public var isRoot: Bool { components.isEmpty }

    public func appending(_ key: String) -> JSONPath { JSONPath(components + [.key(key)]) }
    public func appending(index: Int) -> JSONPath { JSONPath(components + [.index(index)]) }

    public static func / (path: JSONPath, key: String) -> JSONPath { path.appending(key) }
    public static func / (path: JSONPath, index: Int) -> JSONPath { path.appending(index: index) }

    public var description: String {
        var out = ""
        for c in components {
            switch c {
            case .index(let i):
                out += "[\(i)]"
            case .key(let k):
                if Self.isPlain(k) {
                    out += out.isEmpty ? k : "." + k
                } else {
                    out += "[\"" + Self.escaped(k) + "\"]"
                }
            }
        }
        return out
    }

    /// Identifier-like keys (letters, digits, `_`, `-`, not starting with a digit or `-`).
    package static func isPlain(_ key: String) -> Bool {
        guard let first = key.unicodeScalars.first, first.isASCIILetterOrUnderscore else { return false }
        return key.unicodeScalars.allSatisfy { $0.isASCIILetterOrUnderscore || ("0"..."9").contains($0) || $0 == "-" }
    }

    package static func escaped(_ key: String) -> String {
        var out = ""
        for s in key.unicodeScalars.prefix(60) {
            switch s {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case _ where s.value < 0x20 || s.value == 0x7F: out += String(format: "\\u%04X", Int(s.value))
            default: out.unicodeScalars.append(s)
            }
        }
        if key.unicodeScalars.count > 60 { out += "…" }
        return out
    }
}

extension Unicode.Scalar {
    package var isASCIILetterOrUnderscore: Bool {
        ("a"..."z").contains(self) || ("A"..."Z").contains(self) || self == "_"
    }
}
