/// "Did you mean …?" for a mistyped word: the closest candidate by edit distance, when it is close.
public enum Suggestion {
    /// The candidate nearest to `word` (Levenshtein distance, case-insensitive), if it is at most
    /// a third of the word's length away (and at least 1, at most 3 edits); ties go to the first.
    public static func closest(to word: String, among candidates: [String]) -> String? {
        let limit = max(1, min(3, word.count / 3))
        var best: (candidate: String, distance: Int)?
        for c in candidates {
            let d = distance(word.lowercased(), c.lowercased())
            if d <= limit, d < (best?.distance ?? Int.max) { best = (c, d) }
        }
        return best?.candidate
    }

    /// `" (did you mean 'x'?)"`-style clause, or "" when nothing is close.
    public static func clause(for word: String, among candidates: [String], prefix: String = "") -> String {
        closest(to: word, among: candidates).map { "; did you mean '\(prefix)\($0)'?" } ?? ""
    }

    /// Levenshtein distance between two strings (by Character).
    public static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            swap(&previous, &current)
        }
        return previous[b.count]
    }
}
