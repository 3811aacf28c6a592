import Foundation
import XCTest
@testable import XCFleetKit
import XCFleetTestSupport

/// Golden command lines of `XcodebuildDriver` and `XcodeCommandLine` (no Mac here: the exact
/// argument vectors and their shell rendering are what is verified).
final class XcodebuildDriverTests: XCTestCase {
    let job = "/Users/ci/xcfleet/jobs/cache-contract-1a2b"
    let xcode164 = "/Applications/Xcode-16.4.app/Contents/Developer"

    func testIOSSimulatorByUDIDWithPinnedXcode() {
        let cmd = XcodebuildDriver(developerDir: xcode164).testCommand(
            scheme: "xcfleet-cache-contract-Package", destination: "platform=iOS Simulator,id=5B2E9C4D-8F17-4A63-B0D2-91C7E5A3F408",
            jobDirectory: job, testTarget: "CacheContractTests")
        XCTAssertEqual(cmd.arguments.first, "xcodebuild")
        XCTAssertEqual(cmd.environment, ["DEVELOPER_DIR": xcode164])
        XCTAssertEqual(XcodeCommandLine.render(cmd),
            "DEVELOPER_DIR=/Applications/Xcode-16.4.app/Contents/Developer xcodebuild test -scheme xcfleet-cache-contract-Package -destination 'platform=iOS Simulator,id=5B2E9C4D-8F17-4A63-B0D2-91C7E5A3F408' -derivedDataPath /Users/ci/xcfleet/jobs/cache-contract-1a2b/DerivedData -resultBundlePath /Users/ci/xcfleet/jobs/cache-contract-1a2b/result.xcresult CODE_SIGNING_ALLOWED=NO")
        // The destination is one argument, never split at its space.
        XCTAssertTrue(cmd.arguments.contains("platform=iOS Simulator,id=5B2E9C4D-8F17-4A63-B0D2-91C7E5A3F408"))
    }

    func testMacOSWithSelectedXcode() {
        let cmd = XcodebuildDriver(developerDir: nil).testCommand(scheme: "CacheContract", destination: "platform=macOS",
                                                                  jobDirectory: job + "/", testTarget: "CacheContractTests")
        XCTAssertEqual(cmd.environment, [:])
        XCTAssertEqual(XcodeCommandLine.render(cmd),
            "xcodebuild test -scheme CacheContract -destination platform=macOS -derivedDataPath /Users/ci/xcfleet/jobs/cache-contract-1a2b/DerivedData -resultBundlePath /Users/ci/xcfleet/jobs/cache-contract-1a2b/result.xcresult CODE_SIGNING_ALLOWED=NO")
    }

    func testShardUsesOnlyTestingPerTestSortedAndUnique() {
        let cmd = XcodebuildDriver(developerDir: xcode164).testCommand(
            scheme: "xcfleet-cache-contract-Package", destination: "platform=macOS,arch=arm64", jobDirectory: job, testTarget: "CacheContractTests",
            onlyTesting: ["MemoryKeyTests/testC1_freshEqualKeyHits", "DictionaryCacheTests/testC10_doubleNeverEvicts", "CacheContractTests.MemoryKeyTests/testC1_freshEqualKeyHits"])
        XCTAssertEqual(XcodeCommandLine.render(cmd),
            "DEVELOPER_DIR=/Applications/Xcode-16.4.app/Contents/Developer xcodebuild test -scheme xcfleet-cache-contract-Package -destination platform=macOS,arch=arm64 -derivedDataPath /Users/ci/xcfleet/jobs/cache-contract-1a2b/DerivedData -resultBundlePath /Users/ci/xcfleet/jobs/cache-contract-1a2b/result.xcresult -only-testing:CacheContractTests/DictionaryCacheTests/testC10_doubleNeverEvicts -only-testing:CacheContractTests/MemoryKeyTests/testC1_freshEqualKeyHits CODE_SIGNING_ALLOWED=NO")
        // An empty shard list is not a filter (it would run nothing).
        let all = XcodebuildDriver(developerDir: nil).testCommand(scheme: "S", destination: "platform=macOS", jobDirectory: job, testTarget: "T", onlyTesting: [])
        XCTAssertFalse(all.arguments.contains { $0.hasPrefix("-only-testing") })
    }

    func testPathsWithSpacesAndQuotesAreQuoted() {
        let dir = "/Users/ci/it's a job/jobs/x"
        let cmd = XcodebuildDriver(developerDir: "/Applications/Xcode 16.4 beta.app/Contents/Developer").testCommand(
            scheme: "My \"Scheme\"", destination: "platform=iOS Simulator,id=ABC", jobDirectory: dir, testTarget: "T")
        XCTAssertEqual(cmd.arguments[3], "My \"Scheme\"")
        XCTAssertEqual(cmd.arguments[7], "/Users/ci/it's a job/jobs/x/DerivedData")
        XCTAssertEqual(XcodeCommandLine.render(cmd),
            "DEVELOPER_DIR='/Applications/Xcode 16.4 beta.app/Contents/Developer' xcodebuild test -scheme 'My \"Scheme\"' -destination 'platform=iOS Simulator,id=ABC' -derivedDataPath '/Users/ci/it'\\''s a job/jobs/x/DerivedData' -resultBundlePath '/Users/ci/it'\\''s a job/jobs/x/result.xcresult' CODE_SIGNING_ALLOWED=NO")
    }

    func testBuildForTestingIntoAGivenDerivedData() {
        let cmd = XcodebuildDriver(developerDir: xcode164).buildForTestingCommand(
            scheme: "xcfleet-cache-contract-Package", destination: "generic/platform=iOS Simulator",
            derivedDataPath: "/Users/ci/xcfleet/builds/9f2c41d07ab3/DerivedData")
        XCTAssertEqual(XcodeCommandLine.render(cmd),
            "DEVELOPER_DIR=/Applications/Xcode-16.4.app/Contents/Developer xcodebuild build-for-testing -scheme xcfleet-cache-contract-Package -destination 'generic/platform=iOS Simulator' -derivedDataPath /Users/ci/xcfleet/builds/9f2c41d07ab3/DerivedData CODE_SIGNING_ALLOWED=NO")
        XCTAssertEqual(XcodeCommandLine.render(XcodebuildDriver.productsListingCommand(derivedDataPath: "/Users/ci/xcfleet/builds/9f2c41d07ab3/DerivedData/")),
                       "ls -1t /Users/ci/xcfleet/builds/9f2c41d07ab3/DerivedData/Build/Products")
    }

    /// The new commands' quoting round-trips through a real POSIX shell too (odd work roots and schemes).
    func testBuildAndTestCommandsRoundTripThroughSh() throws {
        let driver = XcodebuildDriver(developerDir: "/Applications/Xcode 16.4 beta.app/Contents/Developer")
        let commands = [
            driver.buildForTestingCommand(scheme: "My \"Scheme\" $x", destination: "generic/platform=iOS Simulator", derivedDataPath: "/Users/ci/it's a root/builds/k/DerivedData"),
            XcodeProjectCommands.testWithoutBuilding(xctestrun: "/Users/ci/it's a root/builds/k/DerivedData/Build/Products/My Scheme_macosx15.5-arm64.xctestrun",
                                                     destination: "platform=macOS,variant=Mac Catalyst", resultBundlePath: "/tmp/j`x`/result.xcresult",
                                                     only: ["T/C/test_a"], environment: ["XCFLEET_REPETITION": "0"]),
        ]
        for cmd in commands {
            let probe = ShellCommand(["printf", "%s\\0"] + cmd.arguments.dropFirst(), environment: cmd.environment)
            let result = try runCommand(URL(fileURLWithPath: "/bin/sh"), ["-c", XcodeCommandLine.render(probe)])
            XCTAssertEqual(result.status, 0, result.stderr)
            XCTAssertEqual(result.stdout.split(separator: "\0", omittingEmptySubsequences: false).dropLast().map(String.init), Array(cmd.arguments.dropFirst()))
        }
    }

    func testQuoteFunction() {
        XCTAssertEqual(XcodeCommandLine.quote(""), "''")
        XCTAssertEqual(XcodeCommandLine.quote("plain-word_1.2/x:y=z"), "plain-word_1.2/x:y=z")
        XCTAssertEqual(XcodeCommandLine.quote("a b"), "'a b'")
        XCTAssertEqual(XcodeCommandLine.quote("it's"), "'it'\\''s'")
        XCTAssertEqual(XcodeCommandLine.quote("$HOME"), "'$HOME'")
        XCTAssertEqual(XcodeCommandLine.quote("a;rm -rf /"), "'a;rm -rf /'")
        XCTAssertEqual(XcodeCommandLine.quote("x`y`"), "'x`y`'")
        XCTAssertEqual(XcodeCommandLine.quote("é"), "'é'")
        XCTAssertEqual(XcodeCommandLine.quote("*"), "'*'")
        // A first word that looks like an assignment is quoted so a shell runs it, not assigns it.
        XCTAssertEqual(XcodeCommandLine.render(ShellCommand(["A=b", "c"])), "'A=b' c")
        XCTAssertEqual(XcodeCommandLine.render(ShellCommand(["x"], environment: ["B": "2", "A": "1 2"])), "A='1 2' B=2 x")
    }

    /// The quoting round-trips through a real POSIX shell: `sh -c 'printf "%s\n" <rendered>'`
    /// prints every argument back unchanged.
    func testRenderedLineRoundTripsThroughSh() throws {
        let args = ["it's", "a b", "$HOME", "\"q\"", "back\\slash", "tab\there", "", "*", "-only-testing:T/C/t", "new\nline"]
        let line = XcodeCommandLine.render(ShellCommand(["printf", "%s\\0"] + args))
        let result = try runCommand(URL(fileURLWithPath: "/bin/sh"), ["-c", line])
        XCTAssertEqual(result.status, 0, result.stderr)
        let back = result.stdout.split(separator: "\0", omittingEmptySubsequences: false).dropLast().map(String.init)
        XCTAssertEqual(back, args)
    }

    func testListCommandAndSchemeChoice() throws {
        XCTAssertEqual(XcodeCommandLine.render(XcodebuildDriver(developerDir: xcode164).listCommand),
                       "DEVELOPER_DIR=/Applications/Xcode-16.4.app/Contents/Developer xcodebuild -list -json")
        let list = try XcodeFixtures.text("xcodebuild-list.json")
        XCTAssertEqual(XcodebuildDriver.schemes(listOutput: list), ["CacheContract", "xcfleet-cache-contract-Package"])
        XCTAssertEqual(XcodebuildDriver.chooseScheme(listOutput: list, packageName: "xcfleet-cache-contract", testTarget: "CacheContractTests"),
                       "xcfleet-cache-contract-Package")
        // One product only: xcodebuild makes no `-Package` scheme; the only scheme is used.
        let single = "Command line invocation: note\n{\"workspace\":{\"name\":\"p\",\"schemes\":[\"CacheContract\"]}}\n"
        XCTAssertEqual(XcodebuildDriver.chooseScheme(listOutput: single, packageName: "p", testTarget: "CacheContractTests"), "CacheContract")
        // A scheme named like the test target wins over guessing.
        let several = "{\"project\":{\"schemes\":[\"A\",\"CacheContractTests\"]}}"
        XCTAssertEqual(XcodebuildDriver.chooseScheme(listOutput: several, packageName: "p", testTarget: "CacheContractTests"), "CacheContractTests")
        // Unreadable listing: the documented fallback.
        XCTAssertEqual(XcodebuildDriver.chooseScheme(listOutput: "xcodebuild: error: …", packageName: "p", testTarget: "T"), "p-Package")
        XCTAssertEqual(XcodebuildDriver.chooseScheme(listOutput: "{\"workspace\":{\"schemes\":[\"A\",\"B\"]}}", packageName: "p", testTarget: "T"), "p-Package")
        XCTAssertNil(XcodebuildDriver.schemes(listOutput: "}{"))
    }
}
