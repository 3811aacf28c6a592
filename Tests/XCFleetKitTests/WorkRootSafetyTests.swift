import Foundation
import XCTest
@testable import XCFleetKit
import XCFleetTestSupport

/// Work roots are private by default, and a work root (or a directory xcfleet
/// reuses under it) that another local user owns or can write is refused before any job runs —
/// tested with a real second user on this machine (see also SSHBuildCacheTests for sshd hosts).
final class WorkRootSafetyTests: XCTestCase {
    /// A second local user (created with `useradd` when missing; needs root, as CI has).
    static func otherUser() throws -> String {
        let name = "xcfleet-other"
        if try TestShell.runProcess("/usr/bin/id", [name]).status == 0 { return name }
        let r = try TestShell.runProcess("/bin/sh", ["-c", "useradd -M -s /usr/sbin/nologin \(name) || /usr/sbin/useradd -M -s /usr/sbin/nologin \(name)"])
        guard r.status == 0 else { throw XCTSkip("cannot create the second user \(name) (needs root): \(r.stderr)") }
        return name
    }

    private func run(workRoot: String, in dir: URL) throws -> CommandResult {
        let fleet = dir.appendingPathComponent("fleet.json")
        try Data(#"{"hosts": [{"name": "local", "transport": "local", "workRoot": "\#(workRoot)"}]}"#.utf8).write(to: fleet)
        return try TestShell.runProcess(TestPaths.xcfleetBinary.path, ["run", "Plans/cache-contract.json", "--fleet", fleet.path,
                                                                       "--runs", dir.appendingPathComponent("runs").path])
    }

    func testWorkRootOwnedByAnotherUserIsRefusedAndNothingRuns() throws {
        let other = try Self.otherUser()
        let dir = try TestPaths.temporaryDirectory()
        let root = dir.appendingPathComponent("work")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        _ = try TestShell.run("chown \(other) \(ShellQuote.quote(root.path)) && chmod 755 \(ShellQuote.quote(root.path))")
        let r = try run(workRoot: root.path, in: dir)
        XCTAssertEqual(r.status, 3, "never green: \(r.stdout)")
        XCTAssertTrue(r.stdout.contains("refusing work directory \(root.path): owned by \(other), not by root"), r.stdout)
        XCTAssertFalse(r.stdout.contains("GREEN"))
    }

    func testGroupWritableWorkRootIsRefused() throws {
        let dir = try TestPaths.temporaryDirectory()
        let root = dir.appendingPathComponent("work")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o775])
        let r = try run(workRoot: root.path, in: dir)
        XCTAssertEqual(r.status, 3, r.stdout)
        XCTAssertTrue(r.stdout.contains("refusing work directory \(root.path): group- or world-writable; run chmod go-w"), r.stdout)
    }

    /// A planted build cache: the work root is ours, but `builds/` (with a finished-looking build in
    /// it) belongs to another user. Refused at admission; the planted Package.swift never runs.
    func testBuildsDirectoryOfAnotherUserIsRefused() throws {
        let other = try Self.otherUser()
        let dir = try TestPaths.temporaryDirectory()
        let root = dir.appendingPathComponent("work")
        let planted = root.appendingPathComponent("builds/\(String(repeating: "a", count: 64))")
        try FileManager.default.createDirectory(at: planted, withIntermediateDirectories: true)
        let pwned = dir.appendingPathComponent("pwned").path
        try Data("import PackageDescription\nimport Foundation\nFileManager.default.createFile(atPath: \"\(pwned)\", contents: nil)\n".utf8)
            .write(to: planted.appendingPathComponent("Package.swift"))
        try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: root.path)
        _ = try TestShell.run("chown -R \(other) \(ShellQuote.quote(root.appendingPathComponent("builds").path))")
        let r = try run(workRoot: root.path, in: dir)
        XCTAssertEqual(r.status, 3, r.stdout)
        XCTAssertTrue(r.stdout.contains("refusing work directory \(root.path)/builds: owned by \(other)"), r.stdout)
        XCTAssertFalse(FileManager.default.fileExists(atPath: pwned))
    }

    /// The build script refuses on its own too (a host admitted before the directory changed hands).
    func testBuildScriptRefusesABuildsDirectoryOfAnotherUser() async throws {
        let other = try Self.otherUser()
        let root = try TestPaths.temporaryDirectory().appendingPathComponent("work")
        try FileManager.default.createDirectory(at: root.appendingPathComponent("builds"), withIntermediateDirectories: true)
        _ = try TestShell.run("chmod 700 \(ShellQuote.quote(root.path)) && chown \(other) \(ShellQuote.quote(root.appendingPathComponent("builds").path))")
        let r = try await BuildCacheTests.build(BuildCacheTests.tiny("x"), root: root, command: BuildCacheTests.standIn)
        XCTAssertEqual(r.termination, .exited(BuildCacheScript.unusableStatus), r.output)
        XCTAssertEqual(r.problems.first, "refusing work directory \(root.path)/builds: owned by \(other), not by root; remove it or choose another workRoot")
        XCTAssertNil(r.record)
    }

    func testHealthCheckReportsAPrivateWorkRootProblem() {
        let out = "@@uname\nLinux x86_64\n@@df 0\nFilesystem 1024-blocks Used Available Capacity Mounted\n/dev/vda 100 1 99999999 1% /\n@@private 1\nxcfleet: refusing work directory /w: group- or world-writable; run chmod go-w '/w' or choose another workRoot\n@@toolchain 0\nSwift version 6.3.1\n@@end\n"
        let r = HostHealth.evaluate(output: out, host: HostSpec(name: "h", workRoot: "/w"), minimumFreeBytes: 0)
        XCTAssertEqual(r.problems, ["refusing work directory /w: group- or world-writable; run chmod go-w '/w' or choose another workRoot"])
    }

    func testDefaultWorkRootsArePrivateFolders() throws {
        XCTAssertEqual(HostSpec(name: "s").workRoot, "~/.xcfleet/work")
        XCTAssertEqual(WorkRootDefaults.local(environment: [:], home: "/home/u"), "/home/u/.cache/xcfleet")
        XCTAssertEqual(WorkRootDefaults.local(environment: ["XDG_CACHE_HOME": "/c"], home: "/home/u"), "/c/xcfleet")
        let f = try FleetLoader.parse(Data(#"{"hosts": [{"name": "m", "address": "m", "user": "ci", "useAgent": true, "workRoot": "~/xw", "cache": {"maxBytes": 1000, "minFreeBytes": 5}}, {"name": "d", "address": "d", "user": "ci", "useAgent": true}]}"#.utf8),
                                      path: "fleet.json", baseDirectory: "/etc", homeDirectory: "/home/ci")
        XCTAssertEqual(f.hosts[0].workRoot, "~/xw", "expanded on the host, not here")
        XCTAssertEqual(f.hosts[0].cache, CacheLimits(maxBytes: 1000, minFreeBytes: 5))
        XCTAssertEqual(f.hosts[1].workRoot, "~/.xcfleet/work")
        XCTAssertThrowsError(try FleetLoader.parse(Data(#"{"hosts": [{"name": "m", "address": "m", "user": "ci", "useAgent": true, "cache": {"maxBytes": -1, "maxByte": 3}}]}"#.utf8), path: "fleet.json")) { error in
            let text = "\(error)"
            XCTAssertTrue(text.contains("hosts[0].cache.maxBytes"), text)
            XCTAssertTrue(text.contains("unknown key 'maxByte'"), text)
        }
    }
}
