import Foundation
import XCTest
@testable import XCFleetCore
import XCFleetModel
import XCFleetTestSupport

/// The steps of `hosts check --deep`. The Linux path runs for real in
/// `HostsCheckDeepTests`; the Apple path is driven here with the output a Mac prints (hand-written
/// from the documented shapes: no Mac runs here), commands golden.
final class DeepCheckTests: XCTestCase {
    static let udid = "0C4A8F61-2B7E-4D1A-9E58-7F0A3C6B1D20"

    /// Replies per step name, in the order the machine asks.
    func appleReplies() throws -> [String: (CommandTermination, String)] {
        let results = try String(contentsOf: TestPaths.fixtures.appendingPathComponent("xcode/xcresult-test-results.json"), encoding: .utf8)
        let simctl = try String(contentsOf: TestPaths.fixtures.appendingPathComponent("xcode/simctl-devices.json"), encoding: .utf8)
        return [
            "xcode": (.exited(0), "Xcode 16.4\nBuild version 16F6\n"),
            "schemes": (.exited(0), #"{"workspace": {"name": "XCFleetProbe", "schemes": ["XCFleetProbe"]}}"#),
            "build-for-testing": (.exited(0), "** TEST BUILD SUCCEEDED **\n"),
            "xctestrun": (.exited(0), "XCFleetProbe_iphonesimulator18.4-arm64.xctestrun\nXCFleetProbe_macosx15.5-arm64.xctestrun\nDebug-iphonesimulator\n"),
            "test enumeration": (.exited(0), ""),
            "enumerated tests": (.exited(0), #"{"errors": [], "values": [{"enabledTests": [{"identifier": "XCFleetProbeTests/ProbeXCTests/testAdds()"}, {"identifier": "XCFleetProbeTests/probeAdds()"}], "disabledTests": []}]}"#),
            "test-without-building": (.exited(0), """
                Test Case '-[XCFleetProbeTests.ProbeXCTests testAdds]' started.
                Test Case '-[XCFleetProbeTests.ProbeXCTests testAdds]' passed (0.001 seconds).
                ✔ Test probeAdds() passed after 0.001 seconds.
                ** TEST EXECUTE SUCCEEDED **

                """),
            "xcresulttool": (.exited(0), results),
            "simulators": (.exited(0), simctl),
            "simulator boot": (.exited(0), "Monitoring boot status for iPhone 15 (\(Self.udid)).\nDevice already booted, nothing to do.\n"),
            "simulator shutdown": (.exited(0), ""),
        ]
    }

    func drive(_ check: inout DeepCheck, _ replies: [String: (CommandTermination, String)]) -> [String] {
        var commands: [String] = []
        while let step = check.next() {
            commands.append("# \(step.name)\n" + XcodeCommandLine.render(step.command))
            let (t, out) = replies[step.name] ?? (.exited(127), "no reply")
            check.record(t, output: out)
        }
        return commands
    }

    func testAppleHostProvesEveryStepWithASimulator() throws {
        let sim = try XcodeDestination.parse("platform=iOS Simulator,name=iPhone 15")
        var check = DeepCheck(platform: .apple(developerDir: "/Applications/Xcode-16.4.app/Contents/Developer", simulator: sim),
                              chooseScheme: { _ in "XCFleetProbe" })
        let commands = drive(&check, try appleReplies())
        XCTAssertEqual(check.outcomes.map(\.name), ["xcode", "schemes", "build-for-testing", "xctestrun", "simulators", "simulator boot",
                                                    "test enumeration", "enumerated tests", "test-without-building", "xcresulttool", "simulator shutdown"])
        XCTAssertTrue(commands.filter { $0.contains("test-without-building") }.allSatisfy { $0.contains("-destination 'platform=iOS Simulator,id=\(Self.udid)'") })
        XCTAssertTrue(check.allProven, check.outcomes.filter { !$0.proven }.map { "\($0.name): \($0.detail)" }.joined(separator: "\n"))
        XCTAssertEqual(check.outcomes.first { $0.name == "simulators" }?.detail, "iPhone 15 \(Self.udid) (Shutdown)")
        try GoldenFile.assertMatches(commands.joined(separator: "\n\n") + "\n", "deep-check-apple.txt", what: "hosts check --deep commands on an Apple host")
    }

    func testAFailedBuildStopsTheCheckAndNothingAfterItIsProven() throws {
        var replies = try appleReplies()
        replies["build-for-testing"] = (.exited(65), "error: no such module 'XCTest'\n** TEST BUILD FAILED **\n")
        var check = DeepCheck(platform: .apple(developerDir: nil, simulator: nil))
        _ = drive(&check, replies)
        XCTAssertEqual(check.outcomes.map(\.name), ["xcode", "schemes", "build-for-testing"])
        XCTAssertFalse(check.allProven)
        XCTAssertEqual(check.outcomes.last?.detail, "exited(65)")
        XCTAssertEqual(check.outcomes.last?.firstLines, ["error: no such module 'XCTest'", "** TEST BUILD FAILED **"])
    }

    func testEnumerationErrorsOrAMissingTestAreNotProven() throws {
        for enumeration in [#"{"errors": ["Scheme XCFleetProbe is not configured for testing"], "values": []}"#,
                            #"{"errors": [], "values": [{"enabledTests": [{"identifier": "XCFleetProbeTests/probeAdds()"}]}]}"#,
                            "not json"] {
            var replies = try appleReplies()
            replies["enumerated tests"] = (.exited(0), enumeration)
            var check = DeepCheck(platform: .apple(developerDir: nil, simulator: nil))
            _ = drive(&check, replies)
            XCTAssertEqual(check.outcomes.last?.name, "enumerated tests", enumeration)
            XCTAssertEqual(check.outcomes.last?.proven, false, enumeration)
            XCTAssertFalse(check.allProven)
        }
    }

    func testASimulatorThatDoesNotBootIsShutDownAndNothingRunsOnIt() throws {
        var replies = try appleReplies()
        replies["simulator boot"] = (.timedOut("no output for 300 s"), "")
        var check = DeepCheck(platform: .apple(developerDir: nil, simulator: try XcodeDestination.parse("platform=iOS Simulator,name=iPhone 15")))
        _ = drive(&check, replies)
        XCTAssertEqual(check.outcomes.suffix(2).map(\.name), ["simulator boot", "simulator shutdown"])
        XCTAssertEqual(check.outcomes.first { $0.name == "simulator boot" }?.proven, false)
        XCTAssertFalse(check.outcomes.contains { $0.name == "test-without-building" })
    }

    func testLinuxTestRunThatShowsTooFewPassesIsNotProven() {
        var check = DeepCheck(platform: .linux(swiftPath: "/opt/swift/usr/bin/swift"))
        let replies: [String: (CommandTermination, String)] = [
            "toolchain": (.exited(0), "Swift version 6.3.1 (swift-6.3.1-RELEASE)\n"),
            "build for testing": (.exited(0), "Build complete!\n"),
            "test discovery": (.exited(0), "XCFleetProbeTests.ProbeXCTests/testAdds\nXCFleetProbeTests.probeAdds()\n"),
            "test run": (.exited(0), "Test Suite 'All tests' passed at 2026-12-02 01:00:00.000\n\t Executed 0 tests, with 0 failures (0 unexpected) in 0.0 (0.0) seconds\n"),
        ]
        _ = drive(&check, replies)
        XCTAssertEqual(check.outcomes.map(\.proven), [true, true, true, false])
        XCTAssertEqual(check.outcomes.last?.detail, "exit 0 but the output showed 0 passing tests of 2")
        XCTAssertEqual(check.outcomes.map(\.command).first, "/opt/swift/usr/bin/swift --version")
    }
}
