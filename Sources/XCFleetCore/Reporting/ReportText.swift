import Foundation
import XCFleetBasics
import XCFleetModel

/// Text helpers shared by the renderers: escaping per output language and locale-free,
/// fixed number formatting (so output never depends on the machine it was rendered on).
package enum ReportText {
    // MARK: Numbers

    /// `value` with exactly `digits` decimals, no grouping, `.` as separator. Non-finite → `"-"`.
    package static func fixed(_ value: Double, _ digits: Int) -> String {
        guard value.isFinite else { return "-" }
        let digits = max(0, min(digits, 9))
        var scale = 1.0
        for _ in 0..<digits { scale *= 10 }
        let scaled = (abs(value) * scale).rounded()
        guard scaled < 9.0e15 else { return String(describing: value) }
        let units = UInt64(scaled)
        let whole = units / UInt64(scale)
        let frac = units % UInt64(scale)
        let sign = (value < 0 && units != 0) ? "-" : ""
        guard digits > 0 else { return "\(sign)\(whole)" }
        var fracText = String(frac)
        while fracText.count < digits { fracText = "0" + fracText }
        return "\(sign)\(whole).\(fracText)"
    }

    /// Seconds for JUnit's `time` attribute: never negative, never NaN (SUREFIRE_TIME pattern).
    package static func junitSeconds(_ value: Double?) -> String {
        guard let v = value, v.isFinite, v > 0 else { return "0.000" }
        return fixed(min(v, 999_999_999_999), 3)
    }

    /// Human duration: `0.042 s`, `12.3 s`, `4 min 05 s`.
    package static func duration(_ seconds: Double?) -> String {
        guard let s = seconds, s.isFinite else { return "-" }
        if s < 0 { return "-" }
        if s < 1 { return fixed(s, 3) + " s" }
        if s < 60 { return fixed(s, 1) + " s" }
        guard s < 1e12 else { return fixed(s, 0) + " s" }
        let total = Int(s.rounded())
        let sec = total % 60
        return "\(total / 60) min \(sec < 10 ? "0" : "")\(sec) s"
    }

    /// A metric value in its unit: ratios as percent, bytes in KiB/MiB, otherwise plain.
    package static func metric(_ value: Double, unit: String) -> String {
        guard value.isFinite else { return "-" }
        switch unit {
        case "ratio":
            return fixed(value * 100, 1) + "%"
        case "bytes":
            let a = abs(value)
            if a >= 1_073_741_824 { return fixed(value / 1_073_741_824, 2) + " GiB" }
            if a >= 1_048_576 { return fixed(value / 1_048_576, 2) + " MiB" }
            if a >= 1024 { return fixed(value / 1024, 1) + " KiB" }
            return fixed(value, 0) + " B"
        case "s", "seconds":
            return duration(value)
        default:
            let digits = value == value.rounded() && abs(value) < 1e12 ? 0 : 3
            return fixed(value, digits) + (unit.isEmpty || unit == "count" ? "" : " " + unit)
        }
    }

    /// A signed metric change in its unit (`+1.2 MiB`, `-3.0%`).
    package static func signedMetric(_ value: Double, unit: String) -> String {
        guard value.isFinite else { return "-" }
        let text = metric(unit == "ratio" ? value : value, unit: unit)
        return value > 0 ? "+" + text : text
    }

    // MARK: Characters

    /// Whether a scalar may appear in an XML 1.0 document.
    package static func isXMLLegal(_ s: Unicode.Scalar) -> Bool {
        switch s.value {
        case 0x9, 0xA, 0xD: return true
        case 0x20...0xD7FF, 0xE000...0xFFFD, 0x10000...0x10FFFF: return true
        default: return false
        }
    }

    /// Replaces characters illegal in XML 1.0 (and so unsafe in HTML) with U+FFFD.
    package static func legal(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: { !isXMLLegal($0) }) else { return text }
        var out = String.UnicodeScalarView()
        for s in text.unicodeScalars { out.append(isXMLLegal(s) ? s : "\u{FFFD}") }
        return String(out)
    }

    // MARK: Escaping

    /// XML character data: `&`, `<`, `>` escaped (so `]]>` can never appear), illegal characters replaced.
    package static func xmlText(_ text: String) -> String {
        escape(text) { s in
            switch s {
            case "&": return "&amp;"
            case "<": return "&lt;"
            case ">": return "&gt;"
            default: return nil
            }
        }
    }

    /// XML attribute value (for double quotes): also quotes and whitespace controls as references,
    /// so tabs and line breaks survive attribute-value normalisation.
    package static func xmlAttribute(_ text: String) -> String {
        escape(text) { s in
            switch s {
            case "\"": return "&quot;"
            case "'": return "&apos;"
            case "\t": return "&#9;"
            case "\n": return "&#10;"
            case "\r": return "&#13;"
            case "&": return "&amp;"
            case "<": return "&lt;"
            case ">": return "&gt;"
            default: return nil
            }
        }
    }

    /// HTML text or attribute value: every markup character escaped, illegal characters replaced.
    package static func html(_ text: String) -> String {
        escape(text) { s in
            switch s {
            case "&": return "&amp;"
            case "<": return "&lt;"
            case ">": return "&gt;"
            case "\"": return "&quot;"
            case "'": return "&#39;"
            default: return nil
            }
        }
    }

    /// Replaces illegal characters and neutralises bidi controls and line separators
    /// (`TerminalText.layoutReplacement`), then each scalar the table names with its replacement.
    private static func escape(_ text: String, _ replacement: (Unicode.Scalar) -> String?) -> String {
        // Printable ASCII without a markup character (most names and paths) stays as it is: no
        // table replaces a letter, digit or other such character, and none is illegal or a layout control.
        if text.utf8.allSatisfy({ b in
            b >= 0x20 && b < 0x7F && b != UInt8(ascii: "&") && b != UInt8(ascii: "<") && b != UInt8(ascii: ">")
                && b != UInt8(ascii: "\"") && b != UInt8(ascii: "'")
        }) { return text }
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for s in legal(text).unicodeScalars {
            let s = TerminalText.layoutReplacement(s) ?? s
            if let r = replacement(s) { out += r } else { out.unicodeScalars.append(s) }
        }
        return out
    }

    /// Markdown inline text on one line: markup characters backslash-escaped, `<`/`>`/`&` as
    /// entities (GitHub would otherwise treat them as HTML), line breaks and controls as spaces.
    ///
    /// Text from tests must not ping people or turn into links in a pull-request comment, so a
    /// zero-width space (U+200B) goes after every `@` (mentions, team mentions, e-mail autolinks),
    /// between `#` and a digit after a non-word character (issue references; `job#0` stays), inside `://` and after `www` (GitHub's bare-URL
    /// autolinks). GitHub matches those only on contiguous characters, so the invisible break
    /// stops them while the text reads the same; entities (`&#64;`) would not help (GitHub links
    /// mentions after decoding them), and code spans cannot hold arbitrary text (backticks, and
    /// `|` still splits a table cell).
    package static func markdown(_ text: String) -> String {
        var out = ""
        var last3: [Unicode.Scalar] = [" ", " ", " "] // the three input scalars before `s`
        for s in legal(text).unicodeScalars {
            let s = TerminalText.layoutReplacement(s) ?? s // bidi controls and line separators
            defer { last3 = [last3[1], last3[2], s] }
            let previous = last3[2]
            if previous == "#" && ("0"..."9").contains(s) && !isWordScalar(last3[1]) { out += zeroWidthSpace } // `job#0` is no reference
            if previous == ":" && s == "/" { out += zeroWidthSpace }
            if s == ".", String(String.UnicodeScalarView(last3)).lowercased() == "www" { out += zeroWidthSpace }
            switch s {
            case "@": out += "@" + zeroWidthSpace
            case "\n", "\r", "\t": out += " "
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\\", "`", "*", "_", "[", "]", "|", "~":
                out += "\\"
                out.unicodeScalars.append(s)
            default: out.unicodeScalars.append(s)
            }
        }
        return out
    }

    private static let zeroWidthSpace = "\u{200B}"

    private static func isWordScalar(_ s: Unicode.Scalar) -> Bool {
        s.properties.isAlphabetic || s.properties.numericType != nil || s == "_"
    }

    /// Shortens a single line to at most `limit` characters, marking the cut.
    package static func clip(_ text: String, _ limit: Int) -> String {
        let oneLine = text.replacingOccurrences(of: "\r\n", with: "\n")
        guard oneLine.count > limit, limit > 1 else { return oneLine }
        return String(oneLine.prefix(limit - 1)) + "…"
    }

    /// `file:line` (or just the file, or nil).
    /// The mapped repository location, else the file and line as printed; nil when the runner
    /// did not know it (`<unknown>:0`, which XCTest prints for a thrown error), and no line 0.
    package static func location(_ f: FailureDetail) -> String? {
        if let loc = f.location { return loc.display }
        guard let file = f.file, !file.isEmpty, file != "<unknown>" else { return nil }
        guard let line = f.line, line > 0 else { return file }
        return "\(file):\(line)"
    }

    /// `file:line: message`, or the message alone.
    package static func failureLine(_ f: FailureDetail) -> String {
        if let loc = location(f) { return "\(loc): \(f.message)" }
        return f.message
    }

    /// The run directory's copy of an attempt's raw output, relative to the run directory
    /// (`logs/<job id encoded>-a<N>.log`, as the runner writes it).
    package static func attemptLogPath(jobID: String, attempt: Int) -> String {
        "logs/" + SafePath.encodedComponent(jobID) + "-a\(attempt).log"
    }

    /// `27 tests not run because of this crash: …`: the one line under a job's cause.
    package static func notRunLine(count: Int, reason: String) -> String {
        let tests = "\(count) test\(count == 1 ? "" : "s") not run"
        if reason.hasPrefix("the test process crashed") { return "\(tests) because of this crash (\(reason))" }
        return "\(tests): \(reason)"
    }

    /// A crash's backtrace in a few frames, those in the repository first:
    /// `DictionaryCache.swift:35 DictionaryCache.subscript.getter ← DictionaryCacheTests.swift:31 DictionaryCacheTests.testC3()`.
    package static func backtraceExcerpt(_ frames: [FailureDetail]?, limit: Int = 3) -> String? {
        guard let frames, !frames.isEmpty else { return nil }
        let inRepository = frames.filter { $0.location?.repositoryPath != nil }
        let shown = (inRepository.isEmpty ? frames : inRepository).prefix(limit)
        return shown.map { f in (location(f).map { "\($0) " } ?? "") + f.message }.joined(separator: " ← ")
    }
}
