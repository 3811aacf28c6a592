import Foundation
import XCFleetModel

/// Renders an argument vector as one POSIX shell line, for display, logs and golden tests only.
/// Commands are always run as `ShellCommand` argument vectors; this text is never executed by xcfleet.
public enum XcodeCommandLine {
    /// `VAR=value … arg arg …`: environment first (sorted by name), every word quoted as needed.
    public static func render(_ command: ShellCommand) -> String {
        let env = command.environment.sorted { $0.key < $1.key }.map { "\($0.key)=\(quote($0.value))" }
        var words = command.arguments.map(quote)
        // A leading `NAME=value` word would be read as an assignment: quote it even when it is plain.
        if let first = command.arguments.first, first.contains("="), words.first == first { words[0] = "'\(first)'" }
        return (env + words).joined(separator: " ")
    }

    /// Single-quotes a word unless it consists only of characters no shell treats specially;
    /// an embedded `'` becomes `'\''`. The empty string becomes `''`.
    public static func quote(_ word: String) -> String {
        if word.isEmpty { return "''" }
        let safe = word.unicodeScalars.allSatisfy { s in
            s.isASCII && (CharacterSet.alphanumerics.contains(s) || "-_./:=@%+,".unicodeScalars.contains(s))
        }
        if safe { return word }
        return "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
