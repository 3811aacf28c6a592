import Foundation
import XCFleetModel

/// Builds the `swift build` / `swift test` command lines for a pushed package. Building and testing
/// are separate phases so that each has its own deadline and build errors are told apart from test failures.
public struct SwiftPMDriver: Sendable {
    public init() {}

    /// `swift build --build-tests` in the package directory.
    public func buildCommand() -> ShellCommand {
        ShellCommand(["swift", "build", "--build-tests"])
    }

    /// `swift test --skip-build`, limited to `tests` (`Class/test`) when the job is a shard;
    /// `environment` reaches the test process (`TestRunEnvironment`).
    public func testCommand(only tests: [String]? = nil, environment: [String: String] = [:]) -> ShellCommand {
        var args = ["swift", "test", "--skip-build"]
        if let tests, !tests.isEmpty {
            args += ["--filter", SwiftPMDriver.filterExpression(for: tests)]
        }
        return ShellCommand(SwiftPMDriver.lineBuffered + args, environment: environment)
    }

    /// Runs a built test bundle directly (no SwiftPM start-up, nothing written into the build):
    /// on Linux the bundle is an executable taking XCTest's own `Module.Class/test[,…]` filter;
    /// on macOS `xcrun xctest [-XCTest filter] BUNDLE` (command construction only: not run on a Mac here).
    /// `environment` reaches the test process (`TestRunEnvironment`).
    public func bundleTestCommand(bundle: String, darwin: Bool, only tests: [String]? = nil, environment: [String: String] = [:]) -> ShellCommand {
        let filter = tests.flatMap { $0.isEmpty ? nil : $0.joined(separator: ",") }
        if darwin {
            return ShellCommand(["xcrun", "xctest"] + (filter.map { ["-XCTest", $0] } ?? []) + [bundle], environment: environment)
        }
        return ShellCommand(SwiftPMDriver.lineBuffered + [bundle] + (filter.map { [$0] } ?? []), environment: environment)
    }

    /// On Linux a test binary writing into a pipe buffers its output in 4 KiB blocks, so results
    /// would arrive late (and a quiet suite could trip the output-silence deadline). GNU `stdbuf`
    /// makes the test process line-buffered; hosts without it (macOS) run the command as it is.
    static let lineBuffered = ["sh", "-c", #"if command -v stdbuf >/dev/null 2>&1; then exec stdbuf -oL -eL "$@"; fi; exec "$@""#, "sh"]

    /// An anchored regular expression matching exactly the given tests. `swift test --filter`
    /// matches against `Module.Class/test`; module prefixes are allowed, everything else is escaped.
    public static func filterExpression(for tests: [String]) -> String {
        let specials = Set("\\^$.|?*+()[]{}")
        func escape(_ s: String) -> String { String(s.flatMap { specials.contains($0) ? ["\\", $0] : [$0] }) }
        return "^([^/]*\\.)?(" + tests.map(escape).joined(separator: "|") + ")$"
    }
}
