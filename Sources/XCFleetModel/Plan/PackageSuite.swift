import Foundation

/// The `package` of a suite: a team's own SwiftPM package, run as it is (README, "A team's own
/// package"). xcfleet pushes the files of the git repository that holds the plan, builds and tests
/// in the package's folder inside it, and takes the tests to require from what was built
/// (`swift test list` of the built products); the team's `Package.swift` is never edited.
public struct PackageSuite: Equatable, Codable, Sendable {
    /// The package folder as written in the plan (relative to the plan's folder).
    public var path: String
    /// The repository that holds the plan (absolute, symlinks resolved): what is pushed.
    public var repository: String
    /// The package's folder relative to `repository` ("" when the package is the repository's top).
    public var directory: String
    /// Only the discovered tests some entry selects run (nil: every test). See `TestSelection`.
    public var filter: [String]?
    /// Discovered tests some entry selects do not run (applied after `filter`, before shards split).
    public var skip: [String]?

    public init(path: String, repository: String, directory: String, filter: [String]? = nil, skip: [String]? = nil) {
        self.path = path
        self.repository = repository
        self.directory = directory
        self.filter = filter
        self.skip = skip
    }

    /// The package's name as its manifest declares it (`Package(name: "swift-log"`), when it is a
    /// plain name (letters, digits, `.`, `_`, `-`): it names the test bundle
    /// `<name>PackageTests.xctest`. Nil when it cannot be read from the text.
    public static func declaredName(manifest: String) -> String? {
        guard let call = manifest.range(of: "Package(") else { return nil }
        let rest = manifest[call.upperBound...].drop { $0.isWhitespace }
        guard rest.hasPrefix("name:") else { return nil }
        let value = rest.dropFirst(5).drop { $0.isWhitespace }
        guard value.first == "\"" else { return nil }
        let name = value.dropFirst().prefix { $0 != "\"" && $0 != "\n" }
        guard !name.isEmpty, name.count <= 200, name.allSatisfy(isPlainPathCharacter), name != "." else { return nil }
        return String(name)
    }

    /// Characters a package folder's path and name may hold (they reach the host's build-cache
    /// script as a file pattern).
    public static func isPlainPathCharacter(_ c: Character) -> Bool {
        c.isASCII && (c.isLetter || c.isNumber || c == "." || c == "_" || c == "-")
    }

    /// The package's folder below a job directory holding the repository (`dir` itself at the top).
    public func packageFolder(in dir: String) -> String {
        directory.isEmpty ? dir : dir + "/" + directory
    }
}

/// What a `filter` or `skip` entry of a package suite selects. Tests are named as `swift test list`
/// names them: `Target.Class/test` (XCTest), `Target.Suite/test()`, `Target.Suite/test(label:)`,
/// `Target.Outer/Inner/test()` and `Target.test()` (Swift Testing).
///
/// An entry selects a test when it is the test's name, or the start of it up to a `.`, `/` or `(`
/// (`ShelfTests` selects the target, `ShelfTests.ShelfTests` the class, `ShelfSwiftTests.OrderTests/fill`
/// the test `fill(capacity:)`); `*` stands for any run of characters (`*/testSlow*`). Matching is
/// exact otherwise (case-sensitive, no regular expressions).
public enum TestSelection {
    /// At most this many characters per entry.
    public static let maximumLength = 300

    /// Why `entry` is not a usable entry, or nil.
    public static func problem(_ entry: String) -> String? {
        if entry.isEmpty { return "an entry is empty" }
        if entry.count > maximumLength { return "an entry is longer than \(maximumLength) characters" }
        if entry.unicodeScalars.contains(where: { $0.properties.isWhitespace || $0.value < 0x20 || $0.value == 0x7F }) {
            return "an entry contains no spaces or control characters"
        }
        if entry.allSatisfy({ $0 == "*" }) { return "'\(entry)' would select every test; leave the key out instead" }
        guard let first = entry.unicodeScalars.first, first == "*" || first == "_" || first == "`" || first.properties.isAlphabetic else {
            return "an entry starts with a target name or '*'"
        }
        let allowed: Set<Character> = [".", "/", "(", ")", ":", "_", "*", "`"]
        if let bad = entry.first(where: { !($0.isLetter || $0.isNumber || allowed.contains($0)) }) {
            return "'\(bad)' cannot appear in a test name (entries are names such as 'Target.Class/test' with '*' as a wildcard, not regular expressions)"
        }
        return nil
    }

    /// Whether `entry` selects the test named `test` (`Target.Class/test`): the whole name, or a
    /// start of it that ends before a `.`, `/` or `(`.
    public static func matches(_ entry: String, _ test: String) -> Bool {
        let e = Array(entry), t = Array(test)
        if glob(e, t[...]) { return true }
        for j in t.indices where j > 0 && boundaries.contains(t[j]) {
            if glob(e, t[..<j]) { return true }
        }
        return false
    }

    /// The tests of `tests` left after `filter` (nil: all) and `skip`, in their order.
    public static func apply(filter: [String]?, skip: [String]?, to tests: [String]) -> [String] {
        tests.filter { test in
            (filter.map { $0.contains { matches($0, test) } } ?? true) && !(skip ?? []).contains { matches($0, test) }
        }
    }

    private static let boundaries: Set<Character> = [".", "/", "("]

    /// `*` matches any run of characters; everything else itself. Iterative, with one backtrack
    /// point (the last `*`), so no entry can make it take more than entry × name steps.
    private static func glob(_ e: [Character], _ t: ArraySlice<Character>) -> Bool {
        var i = 0, j = t.startIndex
        var star: Int?, resume = t.startIndex
        while j < t.endIndex {
            if i < e.count, e[i] == "*" {
                star = i; resume = j; i += 1
            } else if i < e.count, e[i] == t[j] {
                i += 1; j += 1
            } else if let s = star {
                i = s + 1; resume += 1; j = resume
            } else {
                return false
            }
        }
        while i < e.count, e[i] == "*" { i += 1 }
        return i == e.count
    }
}
