/// POSIX shell quoting for remote command lines (sh, bash, zsh): single quotes, with `'` written
/// as `'\''`. Every remote path and argument goes through here; callers never join raw strings.
public enum ShellQuote {
    /// `s` as one shell word. Plain words (letters, digits, `-_./:=@%+,`) stay unquoted for readability.
    public static func quote(_ s: String) -> String {
        if !s.isEmpty && s.unicodeScalars.allSatisfy(isPlain) { return s }
        return "'" + s.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
    }

    /// Arguments quoted and joined with spaces.
    public static func join(_ arguments: [String]) -> String {
        arguments.map(quote).joined(separator: " ")
    }

    /// A valid environment variable name (`[A-Za-z_][A-Za-z0-9_]*`).
    public static func isValidName(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, first == "_" || isLetter(first) else { return false }
        return name.unicodeScalars.allSatisfy { $0 == "_" || isLetter($0) || ("0"..."9").contains($0) }
    }

    private static func isLetter(_ c: Unicode.Scalar) -> Bool { ("a"..."z").contains(c) || ("A"..."Z").contains(c) }

    private static func isPlain(_ c: Unicode.Scalar) -> Bool {
        isLetter(c) || ("0"..."9").contains(c) || "-_./:=@%+,".unicodeScalars.contains(c)
    }
}
