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
                                                        BuildKey.sourcesDigest(["00  App.swift"]), "xcfleet-manifest.json", "/Users/ci/.xcfleet/work/j.1", "10", "5",
                                                        key.hex + " " + String(repeating: "cd", count: 32), "0",
                                                        "xcodebuild", "build-for-testing", "-scheme", "App; rm -rf /", "-derivedDataPath", "DerivedData"])
    }

    /// 64 hex digits made from `i`.
    static func hex(_ i: Int) -> String {
        let digits = String(i, radix: 16)
        return String(repeating: "0", count: 64 - digits.count) + digits
    }

    /// The manifest never travels on the command line (the host lists and hashes the pushed files
    /// and checks them against its digest): the push check and the build cache's command chained on
    /// one SSH exec line are as long for 5,000 files as for the package alone, and well under what one
    /// exec request carries (about 32 KB).
    func testTheChainedBuildLineDoesNotGrowWithTheFiles() throws {
        let ws = try BuildCacheTests.contractWorkspace()
        let big = Workspace(files: ws.files + (0..<5_000).map { i in
            WorkspaceFile(path: "Sources/Generated/Folder\(i / 100)/GeneratedFile\(i).swift", contents: Data("let v\(i) = \(i)\n".utf8))
        })
        func line(_ workspace: Workspace) -> String {
            let job = PlannedJob(planned: JobPlanned(jobID: "j", suite: "cache-gate", kind: .gate, expectedTests: []),
                                 spec: SuiteSpec(name: "cache-gate", template: "cache-contract"), workspace: workspace, requires: [])
            let build = SwiftPMCachedBuild(job: job, shell: LocalShell(host: HostSpec(name: "h", workRoot: "/home/ci/.xcfleet/work")),
                                           directory: "/home/ci/.xcfleet/work/j.abcdefgh", driver: SwiftPMDriver())
            let check = PushCacheScript.check(workRoot: "/home/ci/.xcfleet/work", directory: "/home/ci/.xcfleet/work/j.abcdefgh",
                                              createDirectory: true, chained: true)
            return ShellQuote.join(check.arguments) + " || exit $?; " + ShellQuote.join(build.buildCommand(toolchain: "t", trusted: [:]).arguments)
        }
        let small = line(ws), large = line(big)
        // The trust records sent with it are bounded too: the newest, and the job's own key.
        let trust = BuildTrust((0..<1_000).map { i in
            BuildTrust.Entry(host: "h", key: Self.hex(i), product: String(repeating: "cd", count: 32))
        })
        let sent = trust.digests(host: "h", including: Self.hex(3))
        XCTAssertEqual(sent.count, BuildTrust.sentLimit + 1)
        XCTAssertNotNil(sent[Self.hex(3)], "the job's own key, recorded long ago")
        XCTAssertNotNil(sent[Self.hex(999)], "the newest")
        XCTAssertNil(sent[Self.hex(900)])
        XCTAssertEqual(trust.digests(host: "h").count, 1_000, "all are kept for the run")
        let trusted = BuildCacheScript.trustLines(sent)
        XCTAssertLessThan(large.utf8.count + trusted.utf8.count, 30_000, "push check, build and trust records in one exec request")
        XCTAssertEqual(large.utf8.count, small.utf8.count, "the line does not grow with the files")
        XCTAssertLessThan(large.utf8.count, 28_000, "room for the environment and the process record's wrapper")
        XCTAssertTrue(large.contains(BuildKey.sourcesDigest(BuildKey.sourceManifest(of: big))), "the manifest's SHA-256 is on the line")
        XCTAssertFalse(large.contains("GeneratedFile1.swift"))
        // The digest is over the lines in the order the host lists them (`LC_ALL=C sort` of the paths).
        XCTAssertEqual(BuildKey.sourcesDigest(["\(String(repeating: "a", count: 64))  b", "\(String(repeating: "b", count: 64))  B"]),
                       BuildKey.sourcesDigest(["\(String(repeating: "b", count: 64))  B", "\(String(repeating: "a", count: 64))  b"]))
    }
}
