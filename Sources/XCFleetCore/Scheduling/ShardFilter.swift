import Foundation
import XCFleetModel

/// Command-line arguments that make a test runner run exactly one shard's tests.
///
/// Test names are in manifest form `Suite/test` (`Suite` may carry a module prefix, `Module.Class`).
public enum ShardFilter {
    /// The regular expression for `swift test --filter`, anchored and escaped:
    /// `^(Module\.Class/testA|Module\.Class/testB)$`.
    ///
    /// On Linux (and macOS) SwiftPM matches `--filter` against `Module.Class/test`; a name without a
    /// module prefix gets `module` put in front. An empty list gives a pattern that matches nothing.
    public static func swiftTestFilter(tests: [String], module: String) -> String {
        let names = Array(Set(tests.map { qualified($0, module: module) })).sorted()
        guard !names.isEmpty else { return "^$" }
        return "^(" + names.map(escapeRegex).joined(separator: "|") + ")$"
    }

    /// `swift test` arguments: `["--filter", pattern]`.
    public static func swiftTestArguments(tests: [String], module: String) -> [String] {
        ["--filter", swiftTestFilter(tests: tests, module: module)]
    }

    /// `xcodebuild test` arguments, one per test: `-only-testing:Target/Class/test`
    /// (a module prefix on the class is dropped: xcodebuild names the test target instead).
    public static func xcodebuildOnlyTesting(tests: [String], target: String) -> [String] {
        let names = Array(Set(tests)).sorted()
        return names.map { name in
            let id = identifier(name)
            return "-only-testing:\(target)/\(id.shortDescription)"
        }
    }

    /// Backslash before every character that has a meaning in a regular expression.
    public static func escapeRegex(_ text: String) -> String {
        let special: Set<Character> = ["\\", "^", "$", ".", "|", "?", "*", "+", "(", ")", "[", "]", "{", "}"]
        var out = ""
        out.reserveCapacity(text.count)
        for c in text {
            if special.contains(c) { out.append("\\") }
            out.append(c)
        }
        return out
    }

    private static func identifier(_ name: String) -> TestIdentifier {
        guard let slash = name.firstIndex(of: "/") else { return TestIdentifier(suite: "", name: name) }
        return TestIdentifier(suite: String(name[..<slash]), name: String(name[name.index(after: slash)...]))
    }

    private static func qualified(_ name: String, module: String) -> String {
        let id = identifier(name)
        guard !id.suite.isEmpty else { return name }
        let suite = id.suite.contains(".") || module.isEmpty ? id.suite : "\(module).\(id.suite)"
        return "\(suite)/\(id.name)"
    }
}
