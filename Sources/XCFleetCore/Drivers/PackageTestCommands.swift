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

    /// The command that runs `selected` (discovered names; nil: every test). A library none of the
    /// selected tests belongs to is not started; both run even when the first fails, and the
    /// command fails when either did.
    /// `all`: every discovered test (a library with none is not started either). Swift Testing
    /// gets `--attachments-path "$XCFLEET_ATTACHMENTS_DIR"` when that folder exists, so that
    /// `Attachment.record` files land where the collect step fetches them (docs/attachments.md);
    /// the option goes to Swift Testing only (run plainly, the bundle would read it as an XCTest filter).
    /// On macOS (`darwin`) it is `swift test --skip-build --package-path` in the cached build's
    /// package folder, with `--attachments-path` when that `swift test` lists the option.
    ///
    /// The selection travels on the command's standard input, never on its command line (a shard
    /// of a few thousand tests would not fit in an SSH exec request): one line per part, `x*`
    /// (every XCTest test), `x LIST` (an XCTest filter: names joined by commas), `t*` (Swift
    /// Testing unfiltered) or `t REGEX` (one `--filter`). A selection longer than one argument may
    /// be (Linux: 128 KiB) is split into several parts: XCTest then runs once per part, each its own
    /// process with its own totals (the collator adds them up); Swift Testing takes every `--filter`
    /// in one run. `partBytes` bounds a part (tests only).
    public static func run(bundle: String, packageFolder: String, darwin: Bool, selected: [String]?, all: [String],
                           swiftTesting: Set<String>, partBytes: Int = 100_000) -> ShellCommand {
        if darwin {
            // Each input line one `--filter` (SwiftPM takes several and runs what any of them
            // matches). `--attachments-path` when this `swift test` has it (SwiftPM 6.2 and later).
            let script = #"d=$0; set --; while IFS= read -r l; do set -- "$@" --filter "$l"; done; if [ -n "${XCFLEET_ATTACHMENTS_DIR:-}" ] && [ -d "$XCFLEET_ATTACHMENTS_DIR" ] && swift test --help 2>/dev/null | grep -q -e --attachments-path; then set -- --attachments-path "$XCFLEET_ATTACHMENTS_DIR" "$@"; fi; exec swift test --skip-build --package-path "$d" "$@""#
            return ShellCommand(["sh", "-c", script, packageFolder], input: selected.map { lines(regexParts($0, partBytes: partBytes)) })
        }
        let hasXCTest = all.contains { !swiftTesting.contains($0) }, hasTesting = all.contains(where: swiftTesting.contains)
        let xctest = selected.map { $0.filter { !swiftTesting.contains($0) } } ?? (hasXCTest ? nil : [])
        let testing = selected.map { $0.filter(swiftTesting.contains) } ?? (hasTesting ? nil : [])
        var parts: [String] = []
        // (with `selected` nil a library's tests all run unfiltered, so disabled ones show as skipped)
        if let xctest { parts += chunks(xctest, separator: ",", partBytes: partBytes).map { "x " + $0 } } else { parts.append("x*") }
        if let testing { parts += regexParts(testing, partBytes: partBytes).map { "t " + $0 } } else { parts.append("t*") }
        return ShellCommand(["sh", "-c", runScript, "sh", bundle], input: lines(parts))
    }

    /// `tests` as anchored expressions (`regex`), each at most about `partBytes` long.
    static func regexParts(_ tests: [String], partBytes: Int) -> [String] {
        var parts: [String] = [], part: [String] = [], size = 0
        for t in Array(Set(tests)).sorted() {
            let escaped = SwiftTestList.regexEscaped(t)
            if !part.isEmpty, size + escaped.utf8.count + 1 > partBytes {
                parts.append(anchored(part))
                part = []; size = 0
            }
            part.append(escaped); size += escaped.utf8.count + 1
        }
        if !part.isEmpty { parts.append(anchored(part)) }
        return parts
    }

    /// `items` joined by `separator` into as few strings of at most about `partBytes` as fit.
    static func chunks(_ items: [String], separator: String, partBytes: Int) -> [String] {
        var parts: [String] = [], part: [String] = [], size = 0
        for item in items {
            if !part.isEmpty, size + item.utf8.count + separator.utf8.count > partBytes {
                parts.append(part.joined(separator: separator))
                part = []; size = 0
            }
            part.append(item); size += item.utf8.count + separator.utf8.count
        }
        if !part.isEmpty { parts.append(part.joined(separator: separator)) }
        return parts
    }

    private static func lines(_ parts: [String]) -> [UInt8] {
        Array(parts.map { $0 + "\n" }.joined().utf8)
    }

    private static func anchored(_ escaped: [String]) -> String {
        "^(" + escaped.joined(separator: "|") + ")(/|$)"
    }

    /// Arguments that run every test `listing` (a file holding what `list` printed) names, each
    /// library unfiltered, and a library it names none of not started: what `run` does with
    /// `selected` nil, decided on the host (a chained template test, which runs right after its
    /// listing in the same exec, whose standard input is not its own). A line with a `(` before
    /// `recordsMarker` is Swift Testing's (`SwiftTestList`), any other XCTest's; the parts `run`
    /// would send go to `listing.parts` and `run`'s script reads them from there.
    public static func runListed(bundle: String, packageFolder: String, darwin: Bool, listing: String) -> [String] {
        if darwin {
            return ["sh", "-c", #"exec </dev/null; exec "$@""#, "sh"] + run(bundle: bundle, packageFolder: packageFolder, darwin: true, selected: nil,
                                                                              all: [], swiftTesting: []).arguments
        }
        let choose = #"awk -v m="$3" '$0 == m { exit } /\(/ { t = 1; next } NF { x = 1 } END { if (x) print "x*"; if (t) print "t*" }' "$2" > "$2.parts" || exit 70; exec < "$2.parts"; "#
        return ["sh", "-c", choose + runScript, "sh", bundle, listing, recordsMarker]
    }

    /// `run`'s script: `$1` the bundle; standard input the parts (`x*`, `x LIST`, `t*`, `t REGEX`).
    static let runScript = reraise + #"b=$1; st=0; tt=; set --; while IFS= read -r l; do case $l in "x*") "$b" </dev/null; s=$?; [ "$st" -ne 0 ] || st=$s ;; "x "*) "$b" "${l#x }" </dev/null; s=$?; [ "$st" -ne 0 ] || st=$s ;; "t*") tt=1 ;; "t "*) tt=1; set -- "$@" --filter "${l#t }" ;; esac; done; if [ -n "$tt" ]; then if [ -n "${XCFLEET_ATTACHMENTS_DIR:-}" ] && [ -d "$XCFLEET_ATTACHMENTS_DIR" ]; then set -- --attachments-path "$XCFLEET_ATTACHMENTS_DIR" "$@"; fi; "$b" --testing-library swift-testing "$@" </dev/null; t=$?; [ "$st" -ne 0 ] || st=$t; fi; end "$st""#

    /// `command` with its standard input carried on its command line instead: the lines are
    /// written to `file` on the host, which becomes the command's input (a command that shares an
    /// exec whose own input is taken, as a chained test does). Nil when the input is not whole
    /// lines without NUL bytes.
    public static func inputAsArguments(_ command: ShellCommand, file: String) -> ShellCommand? {
        guard let input = command.input else { return command }
        guard input.isEmpty || input.last == UInt8(ascii: "\n"), !input.contains(0),
              let text = String(bytes: input, encoding: .utf8) else { return nil }
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
        let script = #"f=$1; n=$2; shift 2; : > "$f" || exit 70; while [ "$n" -gt 0 ]; do printf '%s\n' "$1" >> "$f" || exit 70; shift; n=$((n - 1)); done; exec "$@" < "$f""#
        return ShellCommand(["sh", "-c", script, "sh", file, String(lines.count)] + lines + command.arguments, environment: command.environment)
    }

    /// `end STATUS`: exit with it, or, for a bundle a signal ended (a status above 128), end the
    /// same way (so a SIGKILL from the host is seen as one, as when the bundle runs on its own).
    public static let reraise = #"end() { if [ "$1" -gt 128 ] && [ "$1" -lt 160 ]; then trap - "$(($1 - 128))" 2>/dev/null; kill -"$(($1 - 128))" $$; fi; exit "$1"; }; "#

    /// An anchored expression selecting exactly these tests: Swift Testing matches `--filter`
    /// against a test's whole id, `Target.Suite/test()/File.swift:12:6`, so the name must end at a
    /// `/` or the end (`^(A|B)(/|$)`).
    public static func regex(_ tests: [String]) -> String {
        anchored(Array(Set(tests)).sorted().map(SwiftTestList.regexEscaped))
    }
}
