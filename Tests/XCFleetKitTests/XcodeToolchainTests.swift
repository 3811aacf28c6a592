import Foundation
import XCTest
@testable import XCFleetKit
import XCFleetTestSupport

final class XcodeToolchainTests: XCTestCase {
    func host(developerDir: String? = nil, xcode: String? = nil) -> HostSpec {
        HostSpec(name: "mac-1", address: "10.0.0.5", user: "ci", labels: ["platform:macos"],
                 toolchain: ToolchainSpec(developerDir: developerDir, xcode: xcode))
    }

    func suite(xcode: String?) -> SuiteSpec {
        SuiteSpec(name: "cache-contract", template: "cache-contract", destination: "platform=macOS", xcode: xcode)
    }

    func testParsesVersionOutput() {
        XCTAssertEqual(XcodeVersion.parse("Xcode 16.4\nBuild version 16F6\n"), XcodeVersion(version: "16.4", build: "16F6"))
        XCTAssertEqual(XcodeVersion.parse("2025-06-01 xcodebuild[123:456] [MT] DVTPlugInLoading: warning\r\nXcode 15.0.1\r\nBuild version 15A507\r\n"),
                       XcodeVersion(version: "15.0.1", build: "15A507"))
        XCTAssertEqual(XcodeVersion.parse("Xcode 16.0\n"), XcodeVersion(version: "16.0", build: nil))
        XCTAssertNil(XcodeVersion.parse("xcode-select: error: tool 'xcodebuild' requires Xcode, but active developer directory '/Library/Developer/CommandLineTools' is a command line tools instance\n"))
        XCTAssertNil(XcodeVersion.parse("Xcode sixteen\nBuild version 16F6"))
        XCTAssertNil(XcodeVersion.parse(""))
    }

    func testVersionMatching() {
        let v = XcodeVersion(version: "16.4", build: "16F6")
        XCTAssertTrue(v.satisfies("16.4"))
        XCTAssertTrue(v.satisfies("16.4.0"))
        XCTAssertTrue(v.satisfies("16"))
        XCTAssertTrue(v.satisfies("16F6"))
        XCTAssertTrue(v.satisfies("16f6"))
        XCTAssertFalse(v.satisfies("16.3"))
        XCTAssertFalse(v.satisfies("16.40"))
        XCTAssertFalse(v.satisfies("16.4.1"))
        XCTAssertFalse(v.satisfies("15"))
        XCTAssertFalse(v.satisfies("16F5"))
        XCTAssertTrue(XcodeVersion(version: "16.4.1").satisfies("16.4"))
        XCTAssertFalse(XcodeVersion(version: "16.4", build: nil).satisfies("16F6"))
    }

    func testResolveSelection() throws {
        XCTAssertEqual(try XcodeToolchain.resolve(suite: suite(xcode: "16.4"), host: host()).selection, .search(version: "16.4"))
        XCTAssertEqual(try XcodeToolchain.resolve(suite: suite(xcode: nil), host: host(xcode: "15.4")).selection, .search(version: "15.4"))
        XCTAssertEqual(try XcodeToolchain.resolve(suite: suite(xcode: nil), host: host()).selection, .selected)
        let pinned = try XcodeToolchain.resolve(suite: suite(xcode: "16.4"), host: host(developerDir: "/Applications/Xcode 16.4.app/"))
        XCTAssertEqual(pinned.selection, .developerDir("/Applications/Xcode 16.4.app/Contents/Developer"))
        XCTAssertEqual(pinned.wantedVersion, "16.4")
        XCTAssertNil(pinned.listingCommand)
        XCTAssertEqual(try XcodeToolchain.resolve(suite: suite(xcode: nil), host: host(developerDir: "/opt/Xcode/Contents/Developer")).selection,
                       .developerDir("/opt/Xcode/Contents/Developer"))
        // Compatible pins: the plan's (narrower or equal) wins.
        XCTAssertEqual(try XcodeToolchain.resolve(suite: suite(xcode: "16.4"), host: host(xcode: "16")).wantedVersion, "16.4")
    }

    func testPlanAndHostDisagreeIsAToolchainInfraError() {
        XCTAssertThrowsError(try XcodeToolchain.resolve(suite: suite(xcode: "16.4"), host: host(xcode: "15.4"))) { error in
            guard let e = error as? RemoteShellError else { return XCTFail("\(error)") }
            XCTAssertEqual(e.kind, .toolchain)
            XCTAssertEqual(e.host, "mac-1")
            XCTAssertTrue(e.message.contains("wants Xcode 16.4") && e.message.contains("Xcode 15.4"), e.message)
        }
    }

    func testCandidatesFromListing() throws {
        let t = try XcodeToolchain.resolve(suite: suite(xcode: "16.4"), host: host())
        XCTAssertEqual(t.listingCommand.map(XcodeCommandLine.render), "ls -1 /Applications")
        let listing = "Safari.app\nXcode-15.4.app\nXcode-16.4-beta.app\nXcode-16.4.1.app\nXcode.app\nXcode_16.4.app\nXcodes.app\n"
        XCTAssertEqual(t.candidates(listing: listing), [
            "/Applications/Xcode_16.4.app/Contents/Developer",
            "/Applications/Xcode-16.4.1.app/Contents/Developer",
            "/Applications/Xcode-16.4-beta.app/Contents/Developer",
            "/Applications/Xcode.app/Contents/Developer",
        ])
        XCTAssertEqual(t.candidates(listing: "Xcode-16.4.app\nXcode_16.4.app\n"), [
            "/Applications/Xcode-16.4.app/Contents/Developer", "/Applications/Xcode_16.4.app/Contents/Developer",
        ])
        XCTAssertEqual(t.candidates(listing: "Safari.app\n"), [])
        XCTAssertEqual(XcodeCommandLine.render(t.versionCommand(developerDir: "/Applications/Xcode_16.4.app/Contents/Developer")),
                       "DEVELOPER_DIR=/Applications/Xcode_16.4.app/Contents/Developer xcodebuild -version")
        XCTAssertEqual(XcodeCommandLine.render(t.versionCommand(developerDir: nil)), "xcodebuild -version")
    }

    func testCheckRefusesAMismatchWithAClearMessage() throws {
        let t = try XcodeToolchain.resolve(suite: suite(xcode: "16.4"), host: host(developerDir: "/Applications/Xcode-16.4.app"))
        XCTAssertEqual(try t.check(versionOutput: XcodeFixtures.versionOutput("16.4", "16F6"), developerDir: "/d"), XcodeVersion(version: "16.4", build: "16F6"))
        XCTAssertThrowsError(try t.check(versionOutput: XcodeFixtures.versionOutput("16.3", "16E140"), developerDir: "/Applications/Xcode-16.4.app/Contents/Developer")) { error in
            let e = error as? RemoteShellError
            XCTAssertEqual(e?.kind, .toolchain)
            XCTAssertEqual(e?.message, "the Xcode at /Applications/Xcode-16.4.app/Contents/Developer is 16.3 (16E140), but Xcode 16.4 is wanted: install it as /Applications/Xcode-16.4.app or set toolchain.developerDir / toolchain.xcode for this host in the fleet file")
        }
        XCTAssertThrowsError(try t.check(versionOutput: "xcode-select: error: no developer tools were found", developerDir: nil)) { error in
            XCTAssertEqual((error as? RemoteShellError)?.kind, .toolchain)
            XCTAssertTrue("\(error)".contains("printed no version"), "\(error)")
        }
        let none = t.noMatch(tried: [])
        XCTAssertEqual(none.kind, .toolchain)
        XCTAssertTrue(none.message.contains("no Xcode 16.4 on this host"), none.message)
    }

    func testBundleVersionNames() {
        XCTAssertEqual(XcodeToolchain.bundleVersion("Xcode-16.4.app"), "16.4")
        XCTAssertEqual(XcodeToolchain.bundleVersion("Xcode_15.0.1.app"), "15.0.1")
        XCTAssertEqual(XcodeToolchain.bundleVersion("Xcode-16.4-beta.app"), "16.4")
        XCTAssertNil(XcodeToolchain.bundleVersion("Xcode.app"))
        XCTAssertNil(XcodeToolchain.bundleVersion("Xcode-beta.app"))
        XCTAssertNil(XcodeToolchain.bundleVersion("Xcode-99999999999999999999999.app"))
    }
}
