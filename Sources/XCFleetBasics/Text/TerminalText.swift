import Foundation

/// How much the console says during a run.
public enum ConsoleVerbosity: Sendable, Equatable {
    /// Nothing until the final summary.
    case quiet
    /// Run start, build/test phases, failures, each attempt's outcome.
    case normal
    /// Everything: every test, every phase, metrics and notes.
    case verbose
}

/// What a console line means; mapped to a colour only when colour is allowed.
public enum ConsoleStyle: Sendable, Equatable {
    case plain, failure, warning, success, dim, bold
}

/// One line of console output before it is styled for a terminal.
public struct ConsoleLine: Equatable, Sendable {
    public var text: String
    public var style: ConsoleStyle

    public init(_ text: String, _ style: ConsoleStyle = .plain) {
        self.text = text
        self.style = style
    }
}

/// Terminal text helpers: neutralising host-controlled strings, display columns, truncation,
/// ANSI styling and durations. Pure functions, no terminal I/O.
public enum TerminalText {
    /// Replaces control characters (C0, DEL, C1 — including ESC) with `?` and tabs/newlines with
    /// a space, so a test name or message from a host cannot move the cursor, recolour the
    /// terminal or break a line.
    public static func sanitize(_ text: String) -> String {
        var out = String.UnicodeScalarView()
        var changed = false
        for u in text.unicodeScalars {
            switch u.value {
            case 0x09, 0x0A, 0x0D: out.append(" "); changed = true
            case 0x00...0x1F, 0x7F...0x9F: out.append("?"); changed = true
            default:
                if let r = layoutReplacement(u) { out.append(r); changed = true } else { out.append(u) }
            }
        }
        return changed ? String(out) : text
    }

    /// The one rule every renderer (terminal, HTML, Markdown, JUnit, comparisons, annotations)
    /// applies to text from hosts, tests, quarantine files and the history: bidi controls
    /// (U+202A–U+202E, U+2066–U+2069, U+200E, U+200F, U+061C), which make a name read as another
    /// one, become U+FFFD; line and paragraph separators (U+2028, U+2029, U+0085), which start a
    /// line of their own in some viewers, become a space. nil: the scalar stays.
    public static func layoutReplacement(_ u: Unicode.Scalar) -> Unicode.Scalar? {
        switch u.value {
        case 0x202A...0x202E, 0x2066...0x2069, 0x200E, 0x200F, 0x061C: return "\u{FFFD}"
        case 0x2028, 0x2029, 0x0085: return " "
        default: return nil
        }
    }

    /// `text` with `layoutReplacement` applied to every scalar.
    public static func neutralizeLayout(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: { layoutReplacement($0) != nil }) else { return text }
        var out = String.UnicodeScalarView()
        for u in text.unicodeScalars { out.append(layoutReplacement(u) ?? u) }
        return String(out)
    }

    /// Columns a terminal uses for `scalar`: 0 for combining marks and zero-width characters,
    /// 2 for East Asian wide and most emoji, 1 otherwise. An approximation of `wcwidth`.
    public static func columns(of scalar: Unicode.Scalar) -> Int {
        let v = scalar.value
        if v == 0x200B || v == 0x200C || v == 0x200D || v == 0x2060 || v == 0xFEFF { return 0 }
        if (0xFE00...0xFE0F).contains(v) { return 0 }
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format: return 0
        default: break
        }
        if (0x1100...0x115F).contains(v) || (0x2E80...0x303E).contains(v) || (0x3041...0x33FF).contains(v)
            || (0x3400...0x4DBF).contains(v) || (0x4E00...0x9FFF).contains(v) || (0xA000...0xA4CF).contains(v)
            || (0xAC00...0xD7A3).contains(v) || (0xF900...0xFAFF).contains(v) || (0xFE30...0xFE4F).contains(v)
            || (0xFF00...0xFF60).contains(v) || (0xFFE0...0xFFE6).contains(v) || (0x1F300...0x1F64F).contains(v)
            || (0x1F900...0x1F9FF).contains(v) || (0x1FA70...0x1FAFF).contains(v) || (0x20000...0x3FFFD).contains(v) {
            return 2
        }
        return 1
    }

    /// Display columns of `text` (see `columns(of:)`).
    public static func columns(_ text: String) -> Int {
        text.unicodeScalars.reduce(0) { $0 + columns(of: $1) }
    }

    /// `text` cut to at most `width` columns, ending in `…` when it was cut.
    public static func truncate(_ text: String, to width: Int) -> String {
        guard width > 0 else { return "" }
        guard columns(text) > width else { return text }
        var out = String.UnicodeScalarView()
        var used = 0
        for u in text.unicodeScalars {
            let w = columns(of: u)
            if used + w > width - 1 { break }
            out.append(u)
            used += w
        }
        out.append("…")
        return String(out)
    }

    /// `text` padded with spaces (or truncated) to exactly `width` columns.
    public static func pad(_ text: String, to width: Int) -> String {
        let cut = truncate(text, to: width)
        let missing = width - columns(cut)
        return missing > 0 ? cut + String(repeating: " ", count: missing) : cut
    }

    /// `text` right-aligned in `width` columns.
    public static func padLeft(_ text: String, to width: Int) -> String {
        let cut = truncate(text, to: width)
        let missing = width - columns(cut)
        return missing > 0 ? String(repeating: " ", count: missing) + cut : cut
    }

    /// SGR parameters for a style.
    package static func sgr(_ style: ConsoleStyle) -> String? {
        switch style {
        case .plain: return nil
        case .failure: return "31"
        case .warning: return "33"
        case .success: return "32"
        case .dim: return "2"
        case .bold: return "1"
        }
    }

    /// `text` wrapped in the style's colour when `color` is true; unchanged otherwise.
    public static func paint(_ text: String, _ style: ConsoleStyle, color: Bool) -> String {
        guard color, let code = sgr(style), !text.isEmpty else { return text }
        return "\u{1B}[\(code)m\(text)\u{1B}[0m"
    }

    /// A clock duration: `0:07`, `12:34`, `1:02:03`; `-` when not finite or negative.
    public static func clock(_ seconds: Double) -> String {
        guard seconds.isFinite, seconds >= 0 else { return "-" }
        let total = seconds < 1e9 ? Int(seconds) : 999_999_999
        let h = total / 3600, m = (total / 60) % 60, s = total % 60
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return h > 0 ? "\(h):\(two(m)):\(two(s))" : "\(m):\(two(s))"
    }

    /// `12.3s` style seconds for event timestamps and test durations.
    public static func seconds(_ value: Double, digits: Int = 1) -> String {
        guard value.isFinite, abs(value) < 1e12 else { return "-" }
        return String(format: "%.\(max(0, min(digits, 6)))f", value) + "s"
    }
}
