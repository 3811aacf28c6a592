import Foundation
import XCTest
@testable import XCFleetKit
import XCFleetTestSupport

/// `build-relay.sh` run for real (sh, perl, sha256sum): a relayed build becomes `builds/<key>` only
/// when its sources match the key's manifest and its product's SHA-256 is the one xcfleet recorded
/// on the host that built it; anything else is refused and leaves no entry.
final class BuildRelayScriptTests: XCTestCase {
    private let glob = ".build/debug/*PackageTests.xctest"
    private let key = BuildKey(hex: String(repeating: "ab", count: 32))

    private func setUp(product: String = "#!/bin/sh\necho pass\n") throws -> (root: String, source: String, workspace: Workspace, digest: String) {
        let dir = try TestPaths.temporaryDirectory("relay-script")
        let root = dir.appendingPathComponent("work").path
        for d in [root, root + "/builds", root + "/builds/.pins"] {
            try FileManager.default.createDirectory(atPath: d, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        }
        let workspace = Workspace(files: [WorkspaceFile(path: "Package.swift", contents: Data("// swift-tools-version:5.9\n".utf8)),
                                          WorkspaceFile(path: "Sources/A/A.swift", contents: Data("let a = 1\n".utf8))])
        let source = dir.appendingPathComponent("pushed").path
        try workspace.write(to: URL(fileURLWithPath: source))
        try FileManager.default.createDirectory(atPath: source + "/.build/debug", withIntermediateDirectories: true)
        try Data(product.utf8).write(to: URL(fileURLWithPath: source + "/.build/debug/APackageTests.xctest"))
        let digest = try TestShell.run("cd \(ShellQuote.quote(source)) && find .build/debug/APackageTests.xctest -type f | LC_ALL=C sort | while IFS= read -r f; do sha256sum \"$f\"; done | sha256sum | cut -c1-64")
            .trimmingCharacters(in: .whitespacesAndNewlines)
        return (root, source, workspace, digest)
    }

    private func relay(_ root: String, _ source: String, _ workspace: Workspace, digest: String) throws -> CommandResult {
        let command = BuildCacheScript.relayCommand(workRoot: root, key: key, toolchainDigest: String(repeating: "cd", count: 32), productGlob: glob,
                                                    manifest: BuildKey.sourceManifest(of: workspace), source: source, digest: digest, readOnly: true)
        return try runCommand(URL(fileURLWithPath: "/bin/sh"), Array(command.arguments.dropFirst()), cwd: URL(fileURLWithPath: source))
    }

    func testTheRecordedProductIsInstalledReadOnlyWithItsMarker() throws {
        let (root, source, workspace, digest) = try setUp()
        let r = try relay(root, source, workspace, digest: digest)
        XCTAssertEqual(r.status, 0, r.stdout + r.stderr)
        XCTAssertTrue(r.stdout.contains("XCFLEET-BUILD relay installed \(digest)"), r.stdout)
        let entry = root + "/builds/" + key.hex
        let marker = try String(contentsOfFile: entry + "/.xcfleet-build", encoding: .utf8)
        XCTAssertTrue(marker.hasPrefix("key=\(key.hex)\ntoolchain=\(String(repeating: "cd", count: 32))\nproduct=\(digest)\n--\n"), marker)
        let mode = try FileManager.default.attributesOfItem(atPath: entry + "/Sources/A/A.swift")[.posixPermissions] as? Int ?? 0o777
        XCTAssertEqual(mode & 0o222, 0, "a finished build is read-only")
        // A second relay of the same key leaves the installed one alone.
        let again = try relay(root, source, workspace, digest: digest)
        XCTAssertEqual(again.status, 0)
        XCTAssertTrue(again.stdout.contains("relay present"), again.stdout)
    }

    func testAnotherProductOrChangedSourcesAreRefusedAndLeaveNoEntry() throws {
        let (root, source, workspace, digest) = try setUp()
        let wrong = try relay(root, source, workspace, digest: String(repeating: "0", count: 64))
        XCTAssertEqual(wrong.status, BuildCacheScript.relayRefusedStatus, wrong.stdout + wrong.stderr)
        XCTAssertTrue(wrong.stdout.contains("relay refused the test product differs from the SHA-256 xcfleet recorded"), wrong.stdout)
        XCTAssertFalse(FileManager.default.fileExists(atPath: root + "/builds/" + key.hex))

        try Data("let a = 2 // changed on the way\n".utf8).write(to: URL(fileURLWithPath: source + "/Sources/A/A.swift"))
        let changed = try relay(root, source, workspace, digest: digest)
        XCTAssertEqual(changed.status, BuildCacheScript.relayRefusedStatus)
        XCTAssertTrue(changed.stdout.contains("its sources differ from the build's manifest"), changed.stdout)
        XCTAssertFalse(FileManager.default.fileExists(atPath: root + "/builds/" + key.hex))
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: root + "/builds").filter { $0.hasPrefix(".relay") }
        XCTAssertEqual(leftovers, [], "no staging left behind")
    }

    func testAWorkRootOthersCanWriteIsUnusable() throws {
        let (root, source, workspace, digest) = try setUp()
        chmod(root + "/builds", 0o777)
        let r = try relay(root, source, workspace, digest: digest)
        XCTAssertEqual(r.status, BuildCacheScript.unusableStatus, r.stdout + r.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: root + "/builds/" + key.hex))
    }
}
