import Foundation
import XCTest
@testable import XCFleetKit
import XCFleetTestSupport

/// `xcfleet hosts check --deep` with the real binary on the local host: the real `swift` builds,
/// lists and runs the tiny package (both an XCTest and a Swift Testing test must be found and
/// pass); a toolchain whose build fails makes the check red at that step, with its command and output.
final class HostsCheckDeepTests: XCTestCase {
    private func fleet(in dir: URL, swift: String) throws -> URL {
        let work = dir.appendingPathComponent("work")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let file = dir.appendingPathComponent("fleet.json")
        try Data(#"{"hosts": [{"name": "local", "transport": "local", "workRoot": "\#(work.path)", "toolchain": {"swiftPath": "\#(swift)"}}]}"#.utf8).write(to: file)
        return file
    }

    private func deepSteps(_ stdout: String) throws -> [[String: Any]] {
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(stdout.utf8)) as? [String: Any], stdout)
        let host = try XCTUnwrap((object["hosts"] as? [[String: Any]])?.first, stdout)
        return try XCTUnwrap(host["deep"] as? [[String: Any]], stdout)
    }

    func testTheRealToolchainProvesBuildDiscoveryAndRun() throws {
        let dir = try TestPaths.temporaryDirectory()
        addTeardownBlock { try? FileManager.default.removeItem(at: dir) }
        let swift = ProcessInfo.processInfo.environment["XCFLEET_TEST_SWIFT"] ?? "/opt/swift/usr/bin/swift"
        guard FileManager.default.isExecutableFile(atPath: swift) else { throw XCTSkip("no Swift toolchain at \(swift)") }
        let r = try FakeToolchain.xcfleet(["hosts", "check", "--fleet", try fleet(in: dir, swift: swift).path, "--deep", "--json", "--no-history"])
        XCTAssertEqual(r.status, 0, r.stdout + r.stderr)
        let steps = try deepSteps(r.stdout)
        XCTAssertEqual(steps.map { $0["name"] as? String }, ["toolchain", "build for testing", "test discovery", "test run"])
        XCTAssertEqual(steps.map { $0["proven"] as? Bool }, [true, true, true, true], r.stdout)
        XCTAssertEqual(steps[2]["detail"] as? String, "found both tests (XCTest and Swift Testing)")
        XCTAssertEqual(steps[1]["command"] as? String, "\(swift) build --build-tests")
        // The probe's job directory is gone afterwards.
        let jobs = dir.appendingPathComponent("work/jobs")
        XCTAssertEqual((try? FileManager.default.contentsOfDirectory(atPath: jobs.path))?.filter { $0.hasPrefix("deep-check") } ?? [], [])
    }

    func testABuildThatFailsIsRedAtThatStepWithItsOutput() throws {
        let dir = try TestPaths.temporaryDirectory()
        addTeardownBlock { try? FileManager.default.removeItem(at: dir) }
        let swift = dir.appendingPathComponent("swift")
        try Data("""
            #!/bin/sh
            case "$1" in
              --version) echo "Swift version 6.3.1 (swift-6.3.1-RELEASE)"; exit 0 ;;
              build) echo "Sources/XCFleetProbe/Probe.swift:1:1: error: the linker is broken here"; exit 1 ;;
            esac
            exit 2

            """.utf8).write(to: swift)
        XCTAssertEqual(chmod(swift.path, 0o755), 0)
        let fleetFile = try fleet(in: dir, swift: swift.path)
        let r = try FakeToolchain.xcfleet(["hosts", "check", "--fleet", fleetFile.path, "--deep", "--json", "--no-history"])
        XCTAssertEqual(r.status, 3, r.stdout + r.stderr)
        let steps = try deepSteps(r.stdout)
        XCTAssertEqual(steps.map { $0["name"] as? String }, ["toolchain", "build for testing"], "nothing runs after a failed build")
        XCTAssertEqual(steps.map { $0["proven"] as? Bool }, [true, false])
        XCTAssertEqual(steps[1]["firstLines"] as? [String], ["Sources/XCFleetProbe/Probe.swift:1:1: error: the linker is broken here"])
        let plain = try FakeToolchain.xcfleet(["hosts", "check", "--fleet", fleetFile.path, "--deep", "--no-history"])
        XCTAssertEqual(plain.status, 3)
        XCTAssertTrue(plain.stdout.contains("✘ deep: build for testing  failed: exited(1) — \(swift.path) build --build-tests"), plain.stdout)
    }

    func testDestinationNeedsDeepAndMustParse() throws {
        let without = try FakeToolchain.xcfleet(["hosts", "check", "--destination", "platform=iOS Simulator,name=iPhone 16"])
        XCTAssertEqual(without.status, 2)
        XCTAssertTrue(without.stderr.contains("--destination is for --deep"), without.stderr)
        let bad = try FakeToolchain.xcfleet(["hosts", "check", "--deep", "--destination", "platform=Nowhere"])
        XCTAssertEqual(bad.status, 2)
        XCTAssertTrue(bad.stderr.contains("--destination platform=Nowhere"), bad.stderr)
    }
}
