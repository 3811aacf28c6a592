import Foundation
import XCTest
@testable import XCFleetKit
import XCFleetTestSupport

final class HostCheckerTests: XCTestCase {
    func testChecksHostsInParallelAndReportsProblems() async throws {
        let hosts = try TestHosts.hosts()
        var closed = hosts[0].spec
        closed.name = "closed"
        closed.port = try freePort()
        var unknownKey = hosts[1].spec
        unknownKey.name = "unknown-key"
        unknownKey.knownHostsFile = NSTemporaryDirectory() + "none-\(UUID().uuidString)"
        var noSwift = hosts[2].spec
        noSwift.name = "no-swift"
        noSwift.toolchain = ToolchainSpec(swiftPath: "/nonexistent/bin/swift")
        let results = await HostChecker.check([hosts[0].spec, closed, unknownKey, noSwift], timeouts: PhaseTimeouts(connect: 5))
        for r in results { print(HostChecker.format(r)) }
        XCTAssertEqual(results.map(\.host), [hosts[0].name, "closed", "unknown-key", "no-swift"])
        let good = results[0]
        XCTAssertTrue(good.ok, good.problem ?? "")
        XCTAssertTrue(good.platform?.hasPrefix("Linux x86_64") ?? false, good.platform ?? "nil")
        XCTAssertTrue(good.toolchainVersion?.contains("Swift version") ?? false, good.toolchainVersion ?? "nil")
        XCTAssertGreaterThan(good.freeDiskBytes ?? 0, 0)
        XCTAssertNotNil(good.latencyMs)
        XCTAssertTrue(HostChecker.format(good).hasPrefix("✓ h1"))
        XCTAssertFalse(results[1].reachable)
        XCTAssertFalse(results[1].ok)
        XCTAssertTrue(results[2].reachable)
        XCTAssertFalse(results[2].hostKeyVerified)
        XCTAssertTrue(results[2].problem?.contains("SHA256:") ?? false)
        XCTAssertTrue(results[3].authenticated)
        XCTAssertFalse(results[3].ok)
        XCTAssertTrue(results[3].problem?.contains("toolchain") ?? false, results[3].problem ?? "")
        XCTAssertTrue(HostChecker.format(results[3]).hasPrefix("✗ no-swift"))
    }

    func testParseProbe() {
        let parsed = HostChecker.parseProbe("UNAME=Darwin arm64\nOS=macOS 15.5\nTOOLCHAIN=Xcode 16.4\nDF=/dev/disk3s5 482797652 400000000 82797652 83% /System/Volumes/Data\n")
        XCTAssertEqual(parsed.platform, "Darwin arm64 macOS 15.5")
        XCTAssertEqual(parsed.toolchain, "Xcode 16.4")
        XCTAssertEqual(parsed.freeBytes, 82_797_652 * 1024)
        let empty = HostChecker.parseProbe("TOOLCHAIN=\nDF=garbage")
        XCTAssertNil(empty.toolchain)
        XCTAssertNil(empty.freeBytes)
        XCTAssertNil(empty.platform)
    }
}
