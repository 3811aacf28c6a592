import Foundation
import XCFleetModel

/// Which Xcode a job uses on a host, resolved from the plan (`SuiteSpec.xcode`) and the host
/// (`ToolchainSpec.xcode`, `.developerDir`). Pure: the commands it names are run by `XcodebuildJob`.
///
/// - An explicit `developerDir` wins; its `xcodebuild -version` must satisfy the wanted version, if any.
/// - Otherwise a wanted version is looked for in `/Applications` (`ls -1 /Applications`):
///   `Xcode-<v>.app`, then `Xcode_<v>.app`, then other `Xcode-…`/`Xcode_…` bundles whose version
///   satisfies it (newest first), then `Xcode.app`; each candidate is checked with `xcodebuild -version`.
/// - With neither, the host's selected Xcode (`xcode-select`) is used and only recorded.
///
/// Every refusal is a `RemoteShellError(.toolchain, …)`: an infrastructure failure, so the job
/// moves to another host.
public struct XcodeToolchain: Equatable, Sendable {
    public enum Selection: Equatable, Sendable {
        /// `DEVELOPER_DIR` named by the fleet file.
        case developerDir(String)
        /// Search `/Applications` for this version.
        case search(version: String)
        /// No pin: whatever `xcode-select` chose on the host.
        case selected
    }

    public var selection: Selection
    /// The version the result must satisfy (plan first, then host), if any.
    public var wantedVersion: String?
    public var host: String

    public static let applicationsDirectory = "/Applications"

    public init(selection: Selection, wantedVersion: String?, host: String) {
        self.selection = selection
        self.wantedVersion = wantedVersion
        self.host = host
    }

    /// Resolves the selection. Throws when plan and host pin different Xcode versions.
    public static func resolve(suite: SuiteSpec, host: HostSpec) throws -> XcodeToolchain {
        let planVersion = suite.xcode.flatMap(nonEmpty)
        let hostVersion = host.toolchain.xcode.flatMap(nonEmpty)
        if let p = planVersion, let h = hostVersion,
           !XcodeVersion(version: h).satisfies(p), !XcodeVersion(version: p).satisfies(h) {
            throw RemoteShellError(.toolchain, host: host.name,
                                   "suite '\(suite.name)' wants Xcode \(p) but the fleet file says this host has Xcode \(h): give the host an xcode:\(p) label only where that Xcode is installed, or change the plan's \"xcode\"")
        }
        let wanted = planVersion ?? hostVersion
        if let dir = host.toolchain.developerDir.flatMap(nonEmpty) {
            return XcodeToolchain(selection: .developerDir(normalizedDeveloperDir(dir)), wantedVersion: wanted, host: host.name)
        }
        if let wanted {
            return XcodeToolchain(selection: .search(version: wanted), wantedVersion: wanted, host: host.name)
        }
        return XcodeToolchain(selection: .selected, wantedVersion: nil, host: host.name)
    }

    /// `ls -1 /Applications`, when the selection needs a search (nil otherwise).
    public var listingCommand: ShellCommand? {
        if case .search = selection { return ShellCommand(["ls", "-1", XcodeToolchain.applicationsDirectory]) }
        return nil
    }

    /// Developer directories to try, in order. `listing` is the output of `listingCommand`
    /// (ignored unless searching). Empty when a search finds no Xcode bundle at all.
    public func candidates(listing: String = "") -> [String] {
        switch selection {
        case .developerDir(let dir):
            return [dir]
        case .selected:
            return []
        case .search(let version):
            let names = Set(listing.split(whereSeparator: \.isNewline)
                .map { $0.trimmingCharacters(in: .whitespaces) }
                .filter { $0.hasPrefix("Xcode") && $0.hasSuffix(".app") && !$0.contains("/") })
            var ordered: [String] = []
            for exact in ["Xcode-\(version).app", "Xcode_\(version).app"] where names.contains(exact) { ordered.append(exact) }
            let others = names.compactMap { name -> (String, [Int])? in
                guard !ordered.contains(name), let v = XcodeToolchain.bundleVersion(name), XcodeVersion(version: v).satisfies(version) else { return nil }
                return (name, XcodeVersion.components(v))
            }.sorted { $0.1 == $1.1 ? $0.0 < $1.0 : $0.1.lexicographicallyPrecedes($1.1) == false }
            ordered += others.map(\.0)
            if names.contains("Xcode.app") { ordered.append("Xcode.app") }
            return ordered.map { XcodeToolchain.applicationsDirectory + "/" + $0 + "/Contents/Developer" }
        }
    }

    /// `xcodebuild -version`, under `developerDir` when given.
    public func versionCommand(developerDir: String?) -> ShellCommand {
        ShellCommand(["xcodebuild", "-version"], environment: developerDir.map { ["DEVELOPER_DIR": $0] } ?? [:])
    }

    /// Checks one candidate's `xcodebuild -version` output. Returns the version when it is acceptable.
    public func check(versionOutput: String, developerDir: String?) throws -> XcodeVersion {
        let place = developerDir.map { "at \($0)" } ?? "selected with xcode-select"
        guard let found = XcodeVersion.parse(versionOutput) else {
            let shown = versionOutput.split(separator: "\n").prefix(2).joined(separator: " / ").prefix(200)
            throw RemoteShellError(.toolchain, host: host,
                                   "`xcodebuild -version` for the Xcode \(place) printed no version (\(shown.isEmpty ? "no output" : String(shown))): check that Xcode is installed there and its license accepted (`sudo xcodebuild -license accept`)")
        }
        if let wanted = wantedVersion, !found.satisfies(wanted) {
            throw RemoteShellError(.toolchain, host: host,
                                   "the Xcode \(place) is \(found), but Xcode \(wanted) is wanted: install it as /Applications/Xcode-\(wanted).app or set toolchain.developerDir / toolchain.xcode for this host in the fleet file")
        }
        return found
    }

    /// The error when a search found nothing acceptable. `tried` pairs each candidate with what it was.
    public func noMatch(tried: [(String, String)]) -> RemoteShellError {
        let wanted = wantedVersion ?? "?"
        let list = tried.isEmpty ? "no Xcode*.app in \(XcodeToolchain.applicationsDirectory)"
                                 : tried.map { "\($0.0): \($0.1)" }.joined(separator: "; ")
        return RemoteShellError(.toolchain, host: host,
                                "no Xcode \(wanted) on this host (\(list)): install it as /Applications/Xcode-\(wanted).app or set toolchain.developerDir in the fleet file")
    }

    /// `…/Xcode-16.4.app` → `…/Xcode-16.4.app/Contents/Developer`; other paths unchanged (trailing `/` dropped).
    public static func normalizedDeveloperDir(_ path: String) -> String {
        var p = path
        while p.count > 1, p.hasSuffix("/") { p.removeLast() }
        return p.hasSuffix(".app") ? p + "/Contents/Developer" : p
    }

    /// `Xcode-16.4.app` / `Xcode_16.4.1.app` / `Xcode-16.4-beta.app` → `16.4` / `16.4.1` / `16.4`.
    static func bundleVersion(_ name: String) -> String? {
        guard name.hasPrefix("Xcode-") || name.hasPrefix("Xcode_"), name.hasSuffix(".app") else { return nil }
        let middle = name.dropFirst(6).dropLast(4)
        let digits = middle.prefix { $0.isASCII && ($0.isNumber || $0 == ".") }
        let v = String(digits).trimmingCharacters(in: CharacterSet(charactersIn: "."))
        return XcodeVersion.isDottedVersion(v) ? v : nil
    }

    private static func nonEmpty(_ s: String) -> String? {
        let t = s.trimmingCharacters(in: .whitespaces)
        return t.isEmpty ? nil : t
    }
}
