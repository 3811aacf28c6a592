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
    /// The line between XCTest's and Swift Testing's list and Swift Testing's own records of its
    /// tests (JSON lines of its event stream, which carry each test's display name).
    public static let recordsMarker = "XCFLEET-SWIFT-TESTING-RECORDS"

    /// Arguments that list every test: XCTest's (`Target.Class/test` lines), then Swift Testing's
    /// (`Target.Suite/test()` lines), then `recordsMarker` and Swift Testing's records (written to
    /// `records`, a file in the job directory, then removed). A bundle without Swift Testing
    /// (exit 69, `EX_UNAVAILABLE`) lists XCTest's only. `darwin`: macOS host.
    public static func list(bundle: String, packageFolder: String, records: String, darwin: Bool) -> [String] {
        if darwin { return ["swift", "test", "list", "--skip-build", "--package-path", packageFolder] }
        let script = reraise + #"b=$1; f=$2; "$b" --list-tests || end $?; rm -f "$f"; "$b" --testing-library swift-testing --list-tests --event-stream-output-path "$f" --event-stream-version 0; st=$?; [ "$st" -ne 69 ] || exit 0; [ "$st" -eq 0 ] || end "$st"; printf '%s\n' "$3"; cat "$f"; rm -f "$f""#
        return ["sh", "-c", script, "sh", bundle, records, recordsMarker]
    }

    /// Arguments that run `selected` (discovered names; nil: every test). A library none of the
    /// selected tests belongs to is not started; both run even when the first fails, and the
    /// command fails when either did.
    /// `all`: every discovered test (a library with none is not started either). Swift Testing
    /// gets `--attachments-path "$XCFLEET_ATTACHMENTS_DIR"` when that folder exists, so that
    /// `Attachment.record` files land where the collect step fetches them (docs/attachments.md);
    /// the option goes to Swift Testing only (run plainly, the bundle would read it as an XCTest filter).
    public static func run(bundle: String, packageFolder: String, darwin: Bool, selected: [String]?, all: [String],
                           swiftTesting: Set<String>) -> [String] {
        let hasXCTest = all.contains { !swiftTesting.contains($0) }, hasTesting = all.contains(where: swiftTesting.contains)
        let xctest = selected.map { $0.filter { !swiftTesting.contains($0) } } ?? (hasXCTest ? nil : [])
        let testing = selected.map { $0.filter(swiftTesting.contains) } ?? (hasTesting ? nil : [])
        if darwin {
            var args = ["swift", "test", "--skip-build", "--package-path", packageFolder]
            if let selected { args += ["--filter", regex(selected)] }
            return args
        }
        let x = xctest.map { $0.joined(separator: ",") } ?? "*"
        // (with `selected` nil a library's tests all run unfiltered, so disabled ones show as skipped)
        let t: [String]
        if let testing { t = testing.isEmpty ? ["-"] : ["--filter", regex(testing)] } else { t = [] }
        return ["sh", "-c", runScript, "sh", bundle, x] + t
    }

    /// Arguments that run every test `listing` (a file holding what `list` printed) names, each
    /// library unfiltered, and a library it names none of not started: what `run` does with
    /// `selected` nil, decided on the host (a chained template test, which runs right after its
    /// listing in the same exec). A line with a `(` before `recordsMarker` is Swift Testing's
    /// (`SwiftTestList`), any other XCTest's.
    public static func runListed(bundle: String, packageFolder: String, darwin: Bool, listing: String) -> [String] {
        if darwin { return ["swift", "test", "--skip-build", "--package-path", packageFolder] }
        let choose = #"h=$(awk -v m="$3" '$0 == m { exit } /\(/ { t = 1; next } NF { x = 1 } END { printf "%s%s", x ? "x" : "", t ? "t" : "" }' "$2") || exit 70; "#
            + #"b=$1; x=; case $h in *x*) x='*' ;; esac; case $h in *t*) set -- "$b" "$x" ;; *) set -- "$b" "$x" - ;; esac; "#
        return ["sh", "-c", choose + runScript, "sh", bundle, listing, recordsMarker]
    }

    /// `run`'s script: `$1` the bundle, `$2` XCTest's filter ("" none selected, "*" every test); the
    /// rest: Swift Testing's arguments ("-" none selected).
    static let runScript = reraise + #"b=$1; x=$2; shift 2; st=0; if [ "$x" = "*" ]; then "$b"; st=$?; elif [ -n "$x" ]; then "$b" "$x"; st=$?; fi; if [ "${1:-}" != - ]; then if [ -n "${XCFLEET_ATTACHMENTS_DIR:-}" ] && [ -d "$XCFLEET_ATTACHMENTS_DIR" ]; then set -- --attachments-path "$XCFLEET_ATTACHMENTS_DIR" "$@"; fi; "$b" --testing-library swift-testing "$@"; t=$?; [ "$st" -ne 0 ] || st=$t; fi; end "$st""#

    /// `end STATUS`: exit with it, or, for a bundle a signal ended (a status above 128), end the
    /// same way (so a SIGKILL from the host is seen as one, as when the bundle runs on its own).
    public static let reraise = #"end() { if [ "$1" -gt 128 ] && [ "$1" -lt 160 ]; then trap - "$(($1 - 128))" 2>/dev/null; kill -"$(($1 - 128))" $$; fi; exit "$1"; }; "#

    /// An anchored expression selecting exactly these tests: Swift Testing matches `--filter`
    /// against a test's whole id, `Target.Suite/test()/File.swift:12:6`, so the name must end at a
    /// `/` or the end (`^(A|B)(/|$)`).
    public static func regex(_ tests: [String]) -> String {
        "^(" + Array(Set(tests)).sorted().map(SwiftTestList.regexEscaped).joined(separator: "|") + ")(/|$)"
    }
}
