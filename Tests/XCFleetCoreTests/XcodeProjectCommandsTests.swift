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
        // A selection in parts: each run its own result bundle, every run with the skip.
        let split = XcodeProjectCommands.testWithoutBuilding(xctestrun: run, destination: destination, resultBundlePath: "/w/jobs/j/result.xcresult",
                                                             only: ["T/C/testA", "T/C/testB", "T/C/testC"], skip: ["T/Slow"], partBytes: 70)
        let text = (commands + [("shard in parts (partBytes 70)", split)]).map { c in
            "# \(c.0)\n\(XcodeCommandLine.render(c.1))\n" + (c.1.input.map { "# standard input\n" + String(decoding: $0, as: UTF8.self) } ?? "")
        }.joined(separator: "\n")
        try GoldenFile.assertMatches(text, "xcode-project-commands.txt", what: "xcodebuild commands for a team project")
        // The argument vectors themselves: a name with spaces is one word, never split.
        XCTAssertEqual(project.buildForTesting(destination: "platform=macOS", derivedDataPath: "/d").arguments.prefix(6),
                       ["xcodebuild", "build-for-testing", "-project", "Sub Dir/App.xcodeproj", "-scheme", "App's Scheme"])
        // The selection is on standard input, never on the command line.
        let shard = commands[4].1
        XCTAssertFalse(shard.arguments.contains { $0.contains("testHit") })
        XCTAssertEqual(String(decoding: shard.input ?? [], as: UTF8.self),
                       "r /w/jobs/j/result.xcresult\no AppTests/CacheTests/testHit\no AppTests/Suite/check()\ns AppTests/Slow\n")
        XCTAssertEqual(shard.environment, ["TEST_RUNNER_XCFLEET_REPETITION": "0"])
        XCTAssertEqual(commands[5].1.arguments.first, "xcodebuild", "no selection: xcodebuild itself")
        XCTAssertNil(commands[5].1.input)
        XCTAssertEqual(XcodeProjectCommands.selectionParts(only: ["T/C/testA", "T/C/testB", "T/C/testC"], partBytes: 70), [["T/C/testA", "T/C/testB"], ["T/C/testC"]])
        XCTAssertEqual(XcodeProjectCommands.resultBundles(resultBundlePath: "/j/result.xcresult", only: ["T/C/testA", "T/C/testB", "T/C/testC"], partBytes: 70),
                       ["/j/result.xcresult", "/j/result-2.xcresult"])
        XCTAssertEqual(XcodeProjectCommands.resultBundles(resultBundlePath: "/j/result.xcresult", only: []), ["/j/result.xcresult"])
        // A line break inside an identifier cannot make two tests of one: it arrives as a control
        // character, which the host refuses.
        let smuggled = XcodeProjectCommands.testWithoutBuilding(xctestrun: run, destination: destination, resultBundlePath: "/r.xcresult",
                                                                only: ["T/C/testA\nT/C/testB"])
        XCTAssertEqual(String(decoding: smuggled.input ?? [], as: UTF8.self), "r /r.xcresult\no T/C/testA\u{1}T/C/testB\n")
        // 5,000 tests of 60 bytes fit one run; 10,000 do not (macOS takes 1 MiB of arguments).
        let many = (0..<10_000).map { "AppTests/Part\($0 / 100)Tests/testNumber\($0)_abcdefghijklmnopqrstu" }
        XCTAssertEqual(XcodeProjectCommands.selectionParts(only: Array(many.prefix(5_000))).count, 1)
        let parts = XcodeProjectCommands.selectionParts(only: many)
        XCTAssertEqual(parts.count, 2)
        XCTAssertEqual(parts.joined().sorted(), many.sorted())
        for p in parts { XCTAssertLessThanOrEqual(p.reduce(0) { $0 + $1.utf8.count + 23 }, XcodeProjectCommands.selectionPartBytes) }
    }
}
