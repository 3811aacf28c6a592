import Foundation
@testable import XCFleetKit

/// The fake `swift` (`scripts/fake-swift.sh`: instant "build", XCTest output for the manifest's
/// tests, `FAKE_SWIFT_FAIL` fails one) for tests about what xcfleet does around the compiler,
/// and the real `xcfleet` binary with the environment the user's shell could leak in cleared.
package enum FakeToolchain {
    /// Copies the fake `swift` to `DIR/toolchain/swift` (executable) and returns it.
    package static func install(in dir: URL) throws -> URL {
        let folder = dir.appendingPathComponent("toolchain")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let swift = folder.appendingPathComponent("swift")
        try FileManager.default.copyItem(at: TestPaths.packageRoot.appendingPathComponent("scripts/fake-swift.sh"), to: swift)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: swift.path)
        return swift
    }

    /// `DIR/fleet.json`: the built-in local host on the fake `swift`; `hostKeys` adds keys to the
    /// host object (`"pricePerHour": 7.2, `).
    package static func localFleet(in dir: URL, hostKeys: String = "") throws -> URL {
        let swift = try install(in: dir)
        let fleet = dir.appendingPathComponent("fleet.json")
        try Data(#"{"hosts": [{"name": "local", "transport": "local", \#(hostKeys)"toolchain": {"swiftPath": "\#(swift.path)"}}]}"#.utf8).write(to: fleet)
        return fleet
    }

    /// History and CI variables a developer's shell may set, cleared so a test chooses them.
    package static let clearedEnvironment = ["XCFLEET_HISTORY_URL": "", "XCFLEET_HISTORY_DB": "", "XCFLEET_NO_HISTORY": "",
                                     "GITHUB_ACTIONS": "", "GITHUB_STEP_SUMMARY": ""]

    /// The real `xcfleet` binary, run in the package root with `env` over `clearedEnvironment`.
    package static func xcfleet(_ args: [String], env: [String: String] = [:]) throws -> CommandResult {
        try runCommand(TestPaths.xcfleetBinary, args, cwd: TestPaths.packageRoot,
                       environment: clearedEnvironment.merging(env) { _, new in new })
    }
}
