import Foundation
import XCFleetBasics

/// A value of an XML property list, with dictionaries in file order (Foundation's reader
/// forgets the order, and an `.xctestrun` of format 1 lists its targets as top-level keys).
package indirect enum PropertyListValue: Equatable, Sendable {
    case string(String)
    case integer(Int)
    case real(Double)
    case bool(Bool)
    case date(String)
    case data(String)
    case array([PropertyListValue])
    case dictionary([(key: String, value: PropertyListValue)])

    package subscript(key: String) -> PropertyListValue? {
        guard case .dictionary(let members) = self else { return nil }
        return members.first(where: { $0.key == key })?.value
    }

    package var string: String? { if case .string(let s) = self { return s }; return nil }
    package var bool: Bool? { if case .bool(let b) = self { return b }; return nil }
    package var integer: Int? {
        switch self {
        case .integer(let i): return i
        case .string(let s): return Int(s)
        default: return nil
        }
    }
    package var array: [PropertyListValue]? { if case .array(let a) = self { return a }; return nil }
    package var members: [(key: String, value: PropertyListValue)]? {
        if case .dictionary(let m) = self { return m }; return nil
    }
    /// An array of strings (anything else in it is dropped).
    package var strings: [String] { array?.compactMap(\.string) ?? [] }

    package static func == (a: PropertyListValue, b: PropertyListValue) -> Bool {
        switch (a, b) {
        case (.string(let x), .string(let y)), (.date(let x), .date(let y)), (.data(let x), .data(let y)): return x == y
        case (.integer(let x), .integer(let y)): return x == y
        case (.real(let x), .real(let y)): return x == y
        case (.bool(let x), .bool(let y)): return x == y
        case (.array(let x), .array(let y)): return x == y
        case (.dictionary(let x), .dictionary(let y)):
            return x.map(\.key) == y.map(\.key) && x.map(\.value) == y.map(\.value)
        default: return false
        }
    }
}

package struct PropertyListError: Error, Equatable, Sendable, CustomStringConvertible {
    package var message: String
    package var line: Int?
    package var description: String { line.map { "line \($0): \(message)" } ?? message }
}

package enum PropertyList {
    /// Reads an XML property list (`<plist version="1.0">` around one value).
    package static func parse(_ data: Data) throws(PropertyListError) -> PropertyListValue {
        if data.starts(with: Array("bplist".utf8)) {
            throw PropertyListError(message: "a binary property list; convert it with `plutil -convert xml1` (xcodebuild writes XML)", line: nil)
        }
        let root: XMLElement
        do { root = try MiniXML.parse(data) } catch { throw PropertyListError(message: error.message, line: error.line) }
        guard root.name == "plist" else { throw PropertyListError(message: "the root element is <\(root.name)>, not <plist>", line: root.line) }
        guard root.children.count == 1, let only = root.children.first else {
            throw PropertyListError(message: "<plist> holds \(root.children.count) values; expected one", line: root.line)
        }
        return try value(only)
    }

    static func value(_ e: XMLElement) throws(PropertyListError) -> PropertyListValue {
        switch e.name {
        case "string": return .string(e.text)
        case "integer":
            guard let i = Int(e.text.trimmingCharacters(in: .whitespacesAndNewlines)) else {
                throw PropertyListError(message: "<integer> holds '\(e.text.prefix(40))'", line: e.line)
            }
            return .integer(i)
        case "real":
            guard let d = Double(e.text.trimmingCharacters(in: .whitespacesAndNewlines)) else {
                throw PropertyListError(message: "<real> holds '\(e.text.prefix(40))'", line: e.line)
            }
            return .real(d)
        case "true": return .bool(true)
        case "false": return .bool(false)
        case "date": return .date(e.text)
        case "data": return .data(e.text.filter { !$0.isWhitespace })
        case "array":
            var items: [PropertyListValue] = []
            for child in e.children { items.append(try value(child)) }
            return .array(items)
        case "dict":
            var members: [(key: String, value: PropertyListValue)] = []
            var pending: String?
            for child in e.children {
                if let key = pending {
                    guard child.name != "key" else { throw PropertyListError(message: "the key '\(key.prefix(60))' has no value", line: child.line) }
                    members.append((key, try value(child)))
                    pending = nil
                } else {
                    guard child.name == "key" else { throw PropertyListError(message: "<\(child.name)> where a <key> was expected", line: child.line) }
                    pending = child.text
                }
            }
            if let key = pending { throw PropertyListError(message: "the key '\(key.prefix(60))' has no value", line: e.line) }
            return .dictionary(members)
        default:
            throw PropertyListError(message: "unknown property list element <\(e.name)>", line: e.line)
        }
    }
}
