import Foundation

/// One line for a `JSONDecoder` failure: the JSON path and what was wrong, never the Swift enum
/// dump `String(describing:)` gives (`keyNotFound(CodingKeys(stringValue: …), Context(…))`).
public enum DecodingErrorText {
    public static func line(_ error: Error) -> String {
        guard let error = error as? DecodingError else {
            return oneLine((error as? LocalizedError)?.errorDescription ?? "\(error)")
        }
        switch error {
        case let .keyNotFound(key, context):
            return "missing key \"\(oneLine(key.stringValue))\"" + at(context.codingPath)
        case let .typeMismatch(type, context):
            return "expected \(describe(type))" + at(context.codingPath)
        case let .valueNotFound(type, context):
            return "expected \(describe(type)), found null" + at(context.codingPath)
        case let .dataCorrupted(context):
            let underlying = context.underlyingError.map { ": " + oneLine(($0 as NSError).localizedDescription) } ?? ""
            return (context.codingPath.isEmpty ? "not valid JSON" : "invalid value") + at(context.codingPath) + underlying
        @unknown default:
            return "not the expected JSON"
        }
    }

    private static func at(_ path: [CodingKey]) -> String {
        guard !path.isEmpty else { return "" }
        let json = JSONPath(path.map { key in key.intValue.map { .index($0) } ?? .key(key.stringValue) })
        return " at " + oneLine(json.description)
    }

    private static func describe(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: return "a string"
        case is Int.Type, is Int32.Type, is Int64.Type, is Double.Type: return "a number"
        case is Bool.Type: return "true or false"
        default:
            let name = "\(type)"
            if name.hasPrefix("Array") { return "an array" }
            if name.hasPrefix("Dictionary") { return "an object" }
            return "a value of type \(name)"
        }
    }

    /// Clipped to one line of at most 200 characters.
    private static func oneLine(_ s: String) -> String {
        let flat = s.split(whereSeparator: \.isNewline).joined(separator: " ")
        return flat.count > 200 ? String(flat.prefix(199)) + "…" : flat
    }
}
