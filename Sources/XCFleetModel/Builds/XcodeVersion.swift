import Foundation

/// What `xcodebuild -version` printed: `Xcode 16.4` / `Build version 16F6`.
public struct XcodeVersion: Equatable, Sendable, CustomStringConvertible {
    /// Dotted version (`16.4`, `15.0.1`).
    public var version: String
    /// Build number (`16F6`), when printed.
    public var build: String?

    public init(version: String, build: String? = nil) {
        self.version = version
        self.build = build
    }

    public var description: String { build.map { "\(version) (\($0))" } ?? version }

    /// Finds the `Xcode X` and `Build version Y` lines anywhere in the output (xcodebuild may print
    /// warnings before them). Nil when there is no `Xcode <digits…>` line.
    public static func parse(_ output: String) -> XcodeVersion? {
        var version: String?
        var build: String?
        for raw in output.split(whereSeparator: \.isNewline) {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if version == nil, line.hasPrefix("Xcode ") {
                let v = line.dropFirst(6).trimmingCharacters(in: .whitespaces)
                if XcodeVersion.isDottedVersion(v) { version = v }
            } else if build == nil, line.hasPrefix("Build version ") {
                let b = line.dropFirst(14).trimmingCharacters(in: .whitespaces)
                if !b.isEmpty, !b.contains(" ") { build = b }
            }
        }
        return version.map { XcodeVersion(version: $0, build: build) }
    }

    /// Whether this Xcode is the one `wanted` names. `wanted` is a dotted version whose components
    /// must be a prefix of this version's (`16` accepts 16.x, `16.4` accepts 16.4 and 16.4.1,
    /// `16.4.0` is the same as `16.4`), or a build number (`16F6`) that must match exactly.
    public func satisfies(_ wanted: String) -> Bool {
        let w = wanted.trimmingCharacters(in: .whitespaces)
        if XcodeVersion.isDottedVersion(w) {
            let want = XcodeVersion.components(w)
            let have = XcodeVersion.components(version)
            guard want.count <= max(have.count, 3) else { return false }
            for (i, n) in want.enumerated() where (i < have.count ? have[i] : 0) != n { return false }
            return true
        }
        return build.map { $0.caseInsensitiveCompare(w) == .orderedSame } ?? false
    }

    package static func isDottedVersion(_ s: String) -> Bool {
        !s.isEmpty && s.count <= 32 && s.split(separator: ".", omittingEmptySubsequences: false).allSatisfy { part in
            !part.isEmpty && part.count <= 6 && part.allSatisfy { $0.isASCII && $0.isNumber }
        }
    }

    /// Numeric components; trailing `.0`s removed so `16.4.0` equals `16.4`.
    package static func components(_ s: String) -> [Int] {
        var parts = s.split(separator: ".").map { Int($0) ?? 0 }
        while parts.count > 1, parts.last == 0 { parts.removeLast() }
        return parts
    }
}
