import Foundation

/// What a command-line option's value must be. The executable's command table declares one per
/// option and its argument parser checks every value with `check` before the command runs.
public enum OptionKind: Sendable, Equatable {
    case flag
    /// Any non-empty text (the command may check it further, e.g. `--run-id`).
    case string
    /// A non-empty path (whether it exists is the command's question).
    case path
    case int(ClosedRange<Int>)
    case double(ClosedRange<Double>)
    case choice([String])

    /// A value that passed `check`.
    public enum Value: Sendable, Equatable {
        case text(String)
        case int(Int)
        case double(Double)
    }

    /// `raw` as this kind's value, or what was expected instead
    /// (`expected a number between 0 and 1 (got 'abc')`). `placeholder` is the option's `FILE`.
    public func check(_ raw: String, placeholder: String? = nil) -> Checked {
        let shown = TerminalText.sanitize(raw)
        func expected(_ what: String, _ hint: String = "") -> Checked {
            .refused("expected \(what) (got '\(shown)')\(hint)")
        }
        let trimmed = raw.trimmingCharacters(in: .whitespaces)
        switch self {
        case .flag:
            return raw.isEmpty ? .accepted(.text("")) : .refused("takes no value")
        case .string:
            return raw.isEmpty ? expected("a value" + (placeholder.map { " \($0)" } ?? "")) : .accepted(.text(raw))
        case .path:
            return raw.isEmpty ? expected("a path") : .accepted(.text(raw))
        case .int(let range):
            guard let n = Int(trimmed), range.contains(n) else { return expected("a whole number between \(range.lowerBound) and \(range.upperBound)") }
            return .accepted(.int(n))
        case .double(let range):
            guard let x = Double(trimmed), x.isFinite, range.contains(x) else {
                return expected("a number between \(Self.format(range.lowerBound)) and \(Self.format(range.upperBound))")
            }
            return .accepted(.double(x))
        case .choice(let words):
            guard words.contains(raw) else { return expected("one of \(words.joined(separator: ", "))", Suggestion.clause(for: raw, among: words)) }
            return .accepted(.text(raw))
        }
    }

    /// `check`'s answer: the value, or why it was refused (the part after `--name: `).
    public enum Checked: Sendable, Equatable {
        case accepted(Value)
        case refused(String)
    }

    /// What `--help` adds to an option's text: the values `check` accepts, so the two agree.
    public var helpSuffix: String {
        switch self {
        case .flag, .string, .path: return ""
        case .int(let r): return " — between \(r.lowerBound) and \(r.upperBound)"
        case .double(let r): return " — between \(Self.format(r.lowerBound)) and \(Self.format(r.upperBound))"
        case .choice(let words): return " — one of \(words.joined(separator: ", "))"
        }
    }

    /// `0`, `0.5`, `1` (no trailing `.0`).
    public static func format(_ x: Double) -> String {
        x == x.rounded() && abs(x) < 1e15 ? String(Int(x)) : String(x)
    }
}
