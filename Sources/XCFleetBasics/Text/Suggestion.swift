/// "Did you mean …?" for a mistyped word: the closest candidate by edit distance, when it is close.
public enum Suggestion {
    /// The candidate nearest to `word` (edit distance, case-insensitive), if it is about a third
    /// of the word's length away or less (at least 1, at most 3 edits); ties go to the first.
    public static func closest(to word: String, among candidates: [String]) -> String? {
        let limit = max(1, min(3, (word.count + 1) / 3))
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

    /// Edit distance between two strings (by Character): insertions, deletions, substitutions
    /// and swaps of two neighbours (`chekc` → `check` is one edit) each count 1.
    public static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var d = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { d[i][0] = i }
        for j in 0...b.count { d[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] { d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1) }
            }
        }
        return d[a.count][b.count]
    }
}
