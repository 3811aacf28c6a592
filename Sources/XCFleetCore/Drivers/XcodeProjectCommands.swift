import Foundation
import XCFleetModel

/// The `xcodebuild` commands for a team's own Xcode workspace or project: build for testing once,
/// enumerate what was built, then run shards of it without building. Pure: argument vectors only
/// (run as `ShellCommand`s, never through a shell); their text is golden-tested, since no Mac runs here.
public struct XcodeProjectCommands: Equatable, Sendable {
    public enum Container: Equatable, Sendable {
        case workspace(String)
        case project(String)

        var arguments: [String] {
            switch self {
            case .workspace(let path): return ["-workspace", path]
            case .project(let path): return ["-project", path]
            }
        }
    }

    public var container: Container
    public var scheme: String
    /// `-testPlan NAME` (the plan's file name without `.xctestplan`); nil: the scheme's default.
    public var testPlan: String?

    public init(container: Container, scheme: String, testPlan: String? = nil) {
        self.container = container
        self.scheme = scheme
        self.testPlan = testPlan
    }

    /// `xcodebuild build-for-testing`: compiles the app and its test bundles into `derivedDataPath`
    /// and writes one `.xctestrun` per test plan into `<derivedDataPath>/Build/Products`.
    /// With `testProductsPath`, also a portable `.xctestproducts` bundle for hosts of the same class.
    public func buildForTesting(destination: String, derivedDataPath: String, testProductsPath: String? = nil) -> ShellCommand {
        var args = ["xcodebuild", "build-for-testing"] + container.arguments + ["-scheme", scheme]
        if let testPlan { args += ["-testPlan", testPlan] }
        args += ["-destination", destination, "-derivedDataPath", derivedDataPath]
        if let testProductsPath { args += ["-testProductsPath", testProductsPath] }
        args += ["-skipPackagePluginValidation", "-skipMacroValidation", "CODE_SIGNING_ALLOWED=NO"]
        return ShellCommand(args)
    }

    /// Lists the tests the built products hold (Xcode 15+), as JSON in `outputPath`
    /// (`XcodeTestEnumeration`). Nothing runs; the simulator is not booted.
    public static func enumerateTests(xctestrun: String, destination: String, outputPath: String,
                                      configuration: String? = nil) -> ShellCommand {
        var args = ["xcodebuild", "test-without-building", "-xctestrun", xctestrun, "-destination", destination]
        if let configuration { args += ["-only-test-configuration", configuration] }
        args += ["-enumerate-tests", "-test-enumeration-format", "json", "-test-enumeration-style", "flat",
                 "-test-enumeration-output-path", outputPath]
        return ShellCommand(args)
    }

    /// Runs one shard of the built tests: `only` (`-only-testing:`) and `skip` (`-skip-testing:`)
    /// hold `DiscoveredTest.onlyTestingIdentifier`s, so that Swift Testing tests are selected too
    /// (an `.xctestrun`'s `OnlyTestIdentifiers` does not filter them). Each configuration of a
    /// test plan is its own run (`-only-test-configuration`). The result bundle goes to the job.
    ///
    /// With no selection this is xcodebuild itself. With one, the selection travels on standard
    /// input, never on the command line (an SSH exec request carries about 32 KB, some 700
    /// `-only-testing:` words): `selectionScript` reads one `r BUNDLE` line per run, then its
    /// `o IDENTIFIER` and `s IDENTIFIER` lines, and builds each run's arguments on the host.
    /// A selection whose arguments would pass `partBytes` (macOS takes at most 1 MiB of arguments
    /// and environment) is split into several runs over the same build (`selectionParts`), each
    /// with its own result bundle (`resultBundles`); every run gets all of `skip`.
    public static func testWithoutBuilding(xctestrun: String, destination: String, resultBundlePath: String,
                                           only: [String] = [], skip: [String] = [], configuration: String? = nil,
                                           environment: [String: String] = [:], partBytes: Int = selectionPartBytes) -> ShellCommand {
        var args = ["xcodebuild", "test-without-building", "-xctestrun", xctestrun, "-destination", destination]
        let selected = !only.isEmpty || !skip.isEmpty
        if !selected { args += ["-resultBundlePath", resultBundlePath] }
        if let configuration { args += ["-only-test-configuration", configuration] }
        args += ["-enableCodeCoverage", "NO", "-collect-test-diagnostics", "on-failure"]
        var command = selected
            ? ShellCommand(["sh", "-c", selectionScript, "sh"] + args,
                           input: selectionInput(only: only, skip: skip, resultBundlePath: resultBundlePath, partBytes: partBytes))
            : ShellCommand(args)
        // xcodebuild passes `TEST_RUNNER_<NAME>` to the test process as `<NAME>`, and nothing else.
        for (k, v) in environment { command.environment["TEST_RUNNER_" + k] = v }
        return command
    }

    /// How many bytes of `-only-testing:` arguments one xcodebuild run gets: half of macOS's
    /// `ARG_MAX` (1 MiB for arguments and environment together).
    public static let selectionPartBytes = 512_000

    /// `only`, sorted and without repeats (the same shard is always the same runs), cut into the
    /// parts one run each takes: every part's arguments (`-only-testing:ID`, its NUL and pointer)
    /// stay within `partBytes`. No test: one part (a run with only `skip`).
    public static func selectionParts(only: [String], partBytes: Int = selectionPartBytes) -> [[String]] {
        var parts: [[String]] = [], part: [String] = [], size = 0
        for id in Set(only).sorted() {
            let bytes = "-only-testing:".utf8.count + id.utf8.count + 9
            if !part.isEmpty, size + bytes > partBytes {
                parts.append(part)
                part = []; size = 0
            }
            part.append(id); size += bytes
        }
        return parts.isEmpty || !part.isEmpty ? parts + [part] : parts
    }

    /// The result bundle of each run of a selection: `resultBundlePath` for the first, then
    /// `result-2.xcresult`, `result-3.xcresult`, … beside it. No selection: the one bundle.
    public static func resultBundles(resultBundlePath: String, only: [String], partBytes: Int = selectionPartBytes) -> [String] {
        let count = only.isEmpty ? 1 : selectionParts(only: only, partBytes: partBytes).count
        return (1...count).map { n in
            guard n > 1 else { return resultBundlePath }
            let stem = resultBundlePath.hasSuffix(".xcresult") ? String(resultBundlePath.dropLast(9)) : resultBundlePath
            return stem + "-\(n)" + (resultBundlePath.hasSuffix(".xcresult") ? ".xcresult" : "")
        }
    }

    static func selectionInput(only: [String], skip: [String], resultBundlePath: String, partBytes: Int) -> [UInt8] {
        let skips = Set(skip).sorted().map { "s " + framed($0) + "\n" }.joined()
        let parts = selectionParts(only: only, partBytes: partBytes)
        let bundles = resultBundles(resultBundlePath: resultBundlePath, only: only, partBytes: partBytes)
        var text = ""
        for (part, bundle) in zip(parts, bundles) {
            text += "r " + bundle + "\n" + part.map { "o " + framed($0) + "\n" }.joined() + skips
        }
        return Array(text.utf8)
    }

    /// The xcodebuild runs a selection command makes on the host (what `selectionScript` builds
    /// from its input): one argument vector per `r` line, with its bundle and its tests. nil for
    /// any other command; empty for an input the script refuses. For display and test doubles.
    public static func runs(of command: ShellCommand) -> [ShellCommand]? {
        let a = command.arguments
        guard a.count > 4, a[0] == "sh", a[1] == "-c", a[2] == selectionScript, a[3] == "sh" else { return nil }
        let text = String(decoding: command.input ?? [], as: UTF8.self)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).dropLast(text.hasSuffix("\n") ? 1 : 0)
        guard let first = lines.first, first.hasPrefix("r "), !text.unicodeScalars.contains(where: { ($0.value < 0x20 && $0 != "\n") || $0.value == 0x7F })
        else { return [] }
        var runs: [ShellCommand] = []
        for line in lines {
            let value = String(line.dropFirst(2))
            guard line.count > 2 else { return [] }
            switch line.prefix(2) {
            case "r ": runs.append(ShellCommand(Array(a.dropFirst(4)) + ["-resultBundlePath", value], environment: command.environment))
            case "o ": runs[runs.count - 1].arguments.append("-only-testing:" + value)
            case "s ": runs[runs.count - 1].arguments.append("-skip-testing:" + value)
            default: return []
            }
        }
        return runs
    }

    /// A command as the logs show it: a selection command as its first run's xcodebuild line with
    /// the selection counted (`[N tests on standard input, in K runs]`), never the script or 5,000 words.
    public static func display(_ command: ShellCommand) -> String {
        guard let runs = runs(of: command), let first = runs.first else { return XcodeCommandLine.render(command) }
        var shown = first
        shown.arguments.removeAll { $0.hasPrefix("-only-testing:") }
        let tests = runs.reduce(0) { n, run in n + run.arguments.filter { $0.hasPrefix("-only-testing:") }.count }
        return XcodeCommandLine.render(shown) + " [\(tests) -only-testing: on standard input" + (runs.count > 1 ? ", in \(runs.count) runs]" : "]")
    }

    /// One line per identifier: a line break inside one (the enumeration refuses them) becomes
    /// another control character, so that the host refuses the selection instead of reading two tests.
    static func framed(_ id: String) -> String {
        id.replacingOccurrences(of: "\r\n", with: "\u{1}").replacingOccurrences(of: "\n", with: "\u{1}")
    }

    /// `testWithoutBuilding`'s script: `"$@"` is the xcodebuild command without a selection and a
    /// result bundle; standard input the runs (`r BUNDLE`, then `o ID` / `s ID` lines). The input
    /// is kept in the job directory and checked whole before anything runs: a control character
    /// (other than the newlines between lines), a line of another form or a first line that starts
    /// no run is refused (exit 2, nothing run). Each run's lines become single-quoted words (`'`
    /// as `'\''`) appended to the command in one `eval` (appending word by word is quadratic in
    /// sh: 8 s for 5,000 tests in dash here). Every run goes, even after one fails; the command ends with
    /// the first failing run's status (a signal stays a signal: `PackageTestCommands.reraise`).
    static let selectionScript = PackageTestCommands.reraise + #"f=.xcfleet-selection.$$; cat > "$f" || { echo "xcfleet: cannot keep the test selection in $PWD" >&2; exit 2; }; n=$(($(wc -c < "$f"))); if [ "$n" -eq 0 ] || [ "$(($(LC_ALL=C tr -d '\000-\011\013-\037\177' < "$f" | wc -c)))" -ne "$n" ] || LC_ALL=C grep -v -q -e '^[ros] .' "$f" || ! head -n 1 "$f" | LC_ALL=C grep -q -e '^r .'; then rm -f "$f"; echo "xcfleet: refusing the test selection on standard input (empty, a control character, or a line that is not 'r BUNDLE', 'o TEST' or 's TEST')" >&2; exit 2; fi; words() { LC_ALL=C awk -v i="$1" '/^r /{k++} k==i' "$f" | LC_ALL=C sed -e "s/'/'\\\\''/g" -e "s/^r \(.*\)\$/-resultBundlePath '\1'/" -e "s/^o \(.*\)\$/'-only-testing:\1'/" -e "s/^s \(.*\)\$/'-skip-testing:\1'/" | tr '\n' ' '; }; part() { w=$(words "$1") || return 2; shift; eval "set -- \"\$@\" $w"; "$@" </dev/null; }; p=$(LC_ALL=C grep -c -e '^r ' "$f"); st=0; i=1; while [ "$i" -le "$p" ]; do part "$i" "$@"; s=$?; [ "$st" -ne 0 ] || st=$s; i=$((i + 1)); done; rm -f "$f"; end "$st""#
}
