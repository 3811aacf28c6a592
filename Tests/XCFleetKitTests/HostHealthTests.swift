import XCTest
@testable import XCFleetKit
import XCFleetTestSupport

/// The pre-flight health check against the real local host, and its verdicts on recorded output.
final class HostHealthTests: XCTestCase {
    private func host(_ name: String = #function) throws -> HostSpec {
        var host = HostSpec.local
        host.workRoot = try TestPaths.temporaryDirectory(name).appendingPathComponent("work").path
        if FileManager.default.isExecutableFile(atPath: "/opt/swift/usr/bin/swift") { host.toolchain.swiftPath = "/opt/swift/usr/bin/swift" }
        return host
    }

    func testTheLocalHostIsHealthyAndDescribed() async throws {
        let host = try host()
        let result = await HostHealth.check(shell: LocalShell(host: host), host: host, minimumFreeBytes: 1)
        XCTAssertTrue(result.isHealthy, result.reason ?? "")
        XCTAssertNil(result.reason)
        XCTAssertTrue(result.system?.hasPrefix("Linux ") ?? false, "\(result)")
        XCTAssertTrue(result.toolchain?.contains("Swift version") ?? false, "\(result)")
        XCTAssertGreaterThan(result.freeBytes ?? 0, 1 << 20)
        XCTAssertTrue(FileManager.default.fileExists(atPath: host.workRoot), "the work root is created")
    }

    func testAMissingToolchainMakesTheHostUnhealthyWithTheReason() async throws {
        var host = try host()
        host.toolchain.swiftPath = "/nonexistent/toolchain/usr/bin/swift"
        let result = await HostHealth.check(shell: LocalShell(host: host), host: host, minimumFreeBytes: 1)
        XCTAssertFalse(result.isHealthy)
        let reason = result.reason ?? ""
        XCTAssertTrue(reason.contains("toolchain missing: /nonexistent/toolchain/usr/bin/swift --version failed"), reason)
        XCTAssertTrue(reason.contains("fix \"toolchain\""), reason)
        XCTAssertNil(result.toolchain)
        XCTAssertNotNil(result.system, "the rest is still reported")
    }

    func testAnXcodeHostWithoutXcodeIsUnhealthy() async throws {
        var host = try host()
        host.toolchain.developerDir = "/Applications/Xcode-16.4.app/Contents/Developer"
        let result = await HostHealth.check(shell: LocalShell(host: host), host: host, minimumFreeBytes: 1)
        XCTAssertTrue(result.reason?.contains("xcodebuild -version with DEVELOPER_DIR=/Applications/Xcode-16.4.app/Contents/Developer failed") ?? false,
                      result.reason ?? "healthy?")
    }

    func testTooLittleDiskAndAWrongPlatformLabelAreReported() async throws {
        var host = try host()
        host.labels = ["platform:macos"]
        let result = await HostHealth.check(shell: LocalShell(host: host), host: host, minimumFreeBytes: Int64.max / 2)
        let reason = result.reason ?? ""
        XCTAssertTrue(reason.contains("MB free under \(host.workRoot)"), reason)
        XCTAssertTrue(reason.contains("labelled platform:macos but the host runs Linux"), reason)
        XCTAssertEqual(result.problems.count, 2)
    }

    func testAnUnusableWorkRootIsReported() async throws {
        var host = try host()
        let file = URL(fileURLWithPath: host.workRoot).deletingLastPathComponent().appendingPathComponent("file")
        try Data().write(to: file)
        host.workRoot = file.appendingPathComponent("below-a-file").path
        let result = await HostHealth.check(shell: LocalShell(host: host), host: host, minimumFreeBytes: 1)
        XCTAssertTrue(result.reason?.contains("cannot read free disk space under \(host.workRoot)") ?? false, result.reason ?? "healthy?")
    }

    func testRecordedMacOutputAndTruncatedOutput() {
        var host = HostSpec(name: "mac-1", labels: ["platform:macos"], workRoot: "/Users/ci/xcfleet",
                            toolchain: ToolchainSpec(developerDir: "/Applications/Xcode_16.4.app/Contents/Developer", xcode: "16.4"))
        let mac = """
        @@uname
        Darwin arm64
        @@df 0
        Filesystem     1024-blocks      Used Available Capacity  Mounted on
        /dev/disk3s5     482797652 301234567 150000000    67%    /System/Volumes/Data
        @@toolchain 0
        Xcode 16.4
        Build version 16F6
        @@end

        """
        let ok = HostHealth.evaluate(output: mac, host: host, minimumFreeBytes: 1 << 30)
        var expected = HostHealth.Result(host: "mac-1", system: "Darwin arm64", freeBytes: 150_000_000 * 1024, toolchain: "Xcode 16.4", problems: [],
                                         toolchainIdentity: "system: Darwin arm64\nXcode 16.4\nBuild version 16F6\nDEVELOPER_DIR=/Applications/Xcode_16.4.app/Contents/Developer")
        expected.checks = ok.checks
        XCTAssertEqual(ok, expected)
        XCTAssertEqual(ok.checks.map(\.name), ["system", "labels", "disk", "toolchain", "xcode"])
        XCTAssertTrue(ok.checks.allSatisfy(\.ok), "\(ok.checks)")
        host.toolchain.xcode = "15.2"
        let wrong = HostHealth.evaluate(output: mac, host: host, minimumFreeBytes: 1 << 30)
        XCTAssertEqual(wrong.problems, ["expected Xcode 15.2 but /Applications/Xcode_16.4.app/Contents/Developer has Xcode 16.4; fix \"toolchain.xcode\" or \"developerDir\""])
        let cut = HostHealth.evaluate(output: String(mac.prefix(40)), host: host, minimumFreeBytes: 1)
        XCTAssertFalse(cut.isHealthy)
        XCTAssertTrue(cut.reason?.contains("cut short") ?? false)
        XCTAssertNil(HostHealth.freeBytes(dfLines: ["Filesystem 1024-blocks Used Available Capacity Mounted on", "garbage"]))
        XCTAssertEqual(HostHealth.freeBytes(dfLines: ["h", "fs 1 1 99999999999999999 1% /"]), Int64.max)
    }
}
