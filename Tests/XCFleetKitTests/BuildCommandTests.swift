import Foundation
import XCTest
@testable import XCFleetKit
import XCFleetTestSupport

/// Golden command lines of the build cache: the cached test bundle on Linux and macOS (the macOS
/// form has not run on a Mac here), and the cache script's argument vector for a SwiftPM and a
/// DerivedData (Xcode) build.
final class BuildCommandTests: XCTestCase {
    func testLinuxBundleTakesACommaSeparatedFilterLineBuffered() {
        let c = SwiftPMDriver().bundleTestCommand(bundle: "/w/builds/k/.build/debug/xPackageTests.xctest", darwin: false,
                                                  only: ["T.A/testOne", "T.B/testTwo"])
        XCTAssertEqual(c.arguments, SwiftPMDriver.lineBuffered + ["/w/builds/k/.build/debug/xPackageTests.xctest", "T.A/testOne,T.B/testTwo"])
        XCTAssertEqual(SwiftPMDriver().bundleTestCommand(bundle: "/b", darwin: false).arguments, SwiftPMDriver.lineBuffered + ["/b"])
    }

    func testMacBundleRunsThroughXcrunXctest() {
        let c = SwiftPMDriver().bundleTestCommand(bundle: "/w/b.xctest", darwin: true, only: ["T.A/testOne"])
        XCTAssertEqual(c.arguments, ["xcrun", "xctest", "-XCTest", "T.A/testOne", "/w/b.xctest"])
        XCTAssertEqual(SwiftPMDriver().bundleTestCommand(bundle: "/w/b.xctest", darwin: true).arguments, ["xcrun", "xctest", "/w/b.xctest"])
    }

    func testTheProductIsThisPackagesOwnBundle() throws {
        let ws = try BuildCacheTests.contractWorkspace()
        let job = PlannedJob(planned: JobPlanned(jobID: "j", suite: "cache-gate", kind: .gate, expectedTests: []),
                             spec: SuiteSpec(name: "cache-gate", template: "cache-contract"), workspace: ws, requires: [])
        let build = SwiftPMCachedBuild(job: job, shell: LocalShell(), directory: "/j", driver: SwiftPMDriver())
        // An incremental build from another package's build also holds that package's bundle: the
        // product is this package's own (a found regression: two bundles matched a wildcard).
        XCTAssertEqual(build.productGlob, ".build/debug/xcfleet-cache-gatePackageTests.xctest")
        XCTAssertTrue(build.buildCommand(toolchain: "t").arguments.contains(".build/debug/xcfleet-cache-gatePackageTests.xctest"))
    }

    /// The protocol is generic: an Xcode host passes its build-for-testing command and the
    /// `.xctestrun` glob under DerivedData; every value travels as an argument, never spliced.
    func testCacheScriptArgumentsForADerivedDataBuild() {
        let key = BuildKey(hex: String(repeating: "ab", count: 32))
        let input = BuildCacheScript.Input(
            workRoot: "/Users/ci/.xcfleet/work", key: key, toolchainDigest: "d1", productGlob: "DerivedData/Build/Products/*.xctestrun",
            manifest: ["00  App.swift"], jobDirectory: "/Users/ci/.xcfleet/work/j.1", limits: CacheLimits(maxBytes: 10, minFreeBytes: 5),
            command: ["xcodebuild", "build-for-testing", "-scheme", "App; rm -rf /", "-derivedDataPath", "DerivedData"],
            trusted: [key.hex: String(repeating: "cd", count: 32), "not-a-key": "x"])
        let c = BuildCacheScript.command(input)
        XCTAssertEqual(Array(c.arguments.prefix(2)), ["sh", "-c"])
        XCTAssertEqual(Array(c.arguments.dropFirst(3)), ["sh", "/Users/ci/.xcfleet/work", key.hex, "d1", "DerivedData/Build/Products/*.xctestrun",
                                                        "00  App.swift", "/Users/ci/.xcfleet/work/j.1", "10", "5",
                                                        key.hex + " " + String(repeating: "cd", count: 32), "0",
                                                        "xcodebuild", "build-for-testing", "-scheme", "App; rm -rf /", "-derivedDataPath", "DerivedData"])
    }
}
