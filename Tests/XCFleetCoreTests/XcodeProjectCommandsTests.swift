import Foundation
import XCTest
@testable import XCFleetCore
import XCFleetModel
import XCFleetTestSupport

/// The xcodebuild commands for a team's own workspace or project. No Mac runs here: the exact
/// command lines are golden (`golden/xcode-project-commands.txt`), so any change is reviewed.
final class XcodeProjectCommandsTests: XCTestCase {
    func testCommandLinesAreGolden() throws {
        let workspace = XcodeProjectCommands(container: .workspace("App.xcworkspace"), scheme: "App", testPlan: "Unit Tests")
        let project = XcodeProjectCommands(container: .project("Sub Dir/App.xcodeproj"), scheme: "App's Scheme")
        let destination = "platform=iOS Simulator,name=iPhone 16,OS=18.4"
        let run = "/w/builds/k/DerivedData/Build/Products/App_Unit Tests_iphonesimulator18.4-arm64.xctestrun"
        let commands: [(String, ShellCommand)] = [
            ("build (workspace, test plan, portable products)", workspace.buildForTesting(destination: "generic/platform=iOS Simulator", derivedDataPath: "/w/builds/k/DerivedData", testProductsPath: "/w/builds/k/App.xctestproducts")),
            ("build (project, default plan)", project.buildForTesting(destination: "platform=macOS", derivedDataPath: "/w/builds/k/DerivedData")),
            ("enumerate", XcodeProjectCommands.enumerateTests(xctestrun: run, destination: destination, outputPath: "/w/jobs/j/tests.json")),
            ("enumerate one configuration", XcodeProjectCommands.enumerateTests(xctestrun: run, destination: destination, outputPath: "/w/jobs/j/tests.json", configuration: "German")),
            ("shard", XcodeProjectCommands.testWithoutBuilding(xctestrun: run, destination: destination, resultBundlePath: "/w/jobs/j/result.xcresult",
                                                              only: ["AppTests/CacheTests/testHit", "AppTests/Suite/check()", "AppTests/CacheTests/testHit"],
                                                              skip: ["AppTests/Slow"], configuration: "German", environment: ["XCFLEET_REPETITION": "0"])),
            ("everything", XcodeProjectCommands.testWithoutBuilding(xctestrun: run, destination: destination, resultBundlePath: "/w/jobs/j/result.xcresult")),
        ]
        let text = commands.map { "# \($0.0)\n\(XcodeCommandLine.render($0.1))\n" }.joined(separator: "\n")
        try GoldenFile.assertMatches(text, "xcode-project-commands.txt", what: "xcodebuild commands for a team project")
        // The argument vectors themselves: a name with spaces is one word, never split.
        XCTAssertEqual(project.buildForTesting(destination: "platform=macOS", derivedDataPath: "/d").arguments.prefix(6),
                       ["xcodebuild", "build-for-testing", "-project", "Sub Dir/App.xcodeproj", "-scheme", "App's Scheme"])
        let shard = commands[4].1
        XCTAssertEqual(shard.arguments.filter { $0.hasPrefix("-only-testing:") }, ["-only-testing:AppTests/CacheTests/testHit", "-only-testing:AppTests/Suite/check()"])
        XCTAssertEqual(shard.environment, ["TEST_RUNNER_XCFLEET_REPETITION": "0"])
        XCTAssertFalse(commands[5].1.arguments.contains { $0.hasPrefix("-only-testing") })
    }
}
