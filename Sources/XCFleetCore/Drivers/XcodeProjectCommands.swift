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
    public static func testWithoutBuilding(xctestrun: String, destination: String, resultBundlePath: String,
                                           only: [String] = [], skip: [String] = [], configuration: String? = nil,
                                           environment: [String: String] = [:]) -> ShellCommand {
        var args = ["xcodebuild", "test-without-building", "-xctestrun", xctestrun, "-destination", destination,
                    "-resultBundlePath", resultBundlePath]
        if let configuration { args += ["-only-test-configuration", configuration] }
        // Sorted and without repeats, so that the same shard is always the same command.
        args += Set(only).sorted().map { "-only-testing:" + $0 }
        args += Set(skip).sorted().map { "-skip-testing:" + $0 }
        args += ["-enableCodeCoverage", "NO", "-collect-test-diagnostics", "on-failure"]
        var command = ShellCommand(args)
        // xcodebuild passes `TEST_RUNNER_<NAME>` to the test process as `<NAME>`, and nothing else.
        for (k, v) in environment { command.environment["TEST_RUNNER_" + k] = v }
        return command
    }
}
