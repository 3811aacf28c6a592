import Foundation
import XCFleetModel

/// The commands that list and run a team's package's built tests, from the cached build's test
/// bundle, without SwiftPM and without a rebuild (docs/builds.md, "A team's package").
///
/// On Linux the bundle `<Package>PackageTests.xctest` is an executable holding both libraries: run
/// plainly it is XCTest (`--list-tests`, or a `Target.Class/test,…` filter); with
/// `--testing-library swift-testing` it is Swift Testing (`--list-tests`, `--filter REGEX`). This is
/// what `swift test list --skip-build` and `swift test --skip-build --filter` run, without SwiftPM's
/// start-up (about 2.5 s here) or its `.build` lock (which would make shards on one host wait for
/// each other). On macOS they are `swift test list|test --skip-build --package-path` in the cached
/// build's package folder (command construction only: not run on a Mac).
public enum PackageTestCommands {
    /// Arguments that list every test: XCTest's, then Swift Testing's. `darwin`: macOS host.
    public static func list(bundle: String, packageFolder: String, darwin: Bool) -> [String] {
        if darwin { return ["swift", "test", "list", "--skip-build", "--package-path", packageFolder] }
        return ["sh", "-c", #"b=$1; "$b" --list-tests || exit $?; exec "$b" --testing-library swift-testing --list-tests"#, "sh", bundle]
    }

    /// Arguments that run `selected` (discovered names; nil: every test). A library none of the
    /// selected tests belongs to is not started; both run even when the first fails, and the
    /// command fails when either did.
    public static func run(bundle: String, packageFolder: String, darwin: Bool, selected: [String]?,
                           swiftTesting: Set<String>) -> [String] {
        let xctest = selected.map { $0.filter { !swiftTesting.contains($0) } }
        let testing = selected.map { $0.filter(swiftTesting.contains) }
        if darwin {
            var args = ["swift", "test", "--skip-build", "--package-path", packageFolder]
            if let selected { args += ["--filter", regex(selected)] }
            return args
        }
        // $2: XCTest's filter ("" none selected, "*" every test); the rest: Swift Testing's arguments
        // ("-" none selected).
        let script = #"b=$1; x=$2; shift 2; st=0; if [ "$x" = "*" ]; then "$b"; st=$?; elif [ -n "$x" ]; then "$b" "$x"; st=$?; fi; if [ "${1:-}" != - ]; then "$b" --testing-library swift-testing "$@"; t=$?; [ "$st" -ne 0 ] || st=$t; fi; exit "$st""#
        let x = xctest.map { $0.joined(separator: ",") } ?? "*"
        let t: [String]
        if let testing { t = testing.isEmpty ? ["-"] : ["--filter", regex(testing)] } else { t = [] }
        return ["sh", "-c", script, "sh", bundle, x] + t
    }

    /// An anchored expression selecting exactly these tests: Swift Testing matches `--filter`
    /// against a test's whole id, `Target.Suite/test()/File.swift:12:6`, so the name must end at a
    /// `/` or the end (`^(A|B)(/|$)`).
    public static func regex(_ tests: [String]) -> String {
        "^(" + Array(Set(tests)).sorted().map(SwiftTestList.regexEscaped).joined(separator: "|") + ")(/|$)"
    }
}
