import Foundation
import XCTest
@testable import XCFleetKit
import XCFleetTestSupport

/// The build cache and private work roots on a real sshd host, through the real `xcfleet` binary
/// and the real toolchain (docs/builds.md with a real second local user).
final class SSHBuildCacheTests: XCTestCase {
    private var hosts: [TestHosts.Host] = []
    private var dir: URL!

    override func setUpWithError() throws {
        hosts = try TestHosts.hosts()
        dir = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("xcfleet-sshbuild-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    }

    private func fleet(workRoot: String, host: Int = 0) throws -> String {
        let h = hosts[host]
        let path = dir.appendingPathComponent("fleet-\(UUID().uuidString.prefix(6)).json").path
        try Data("""
        {"hosts": [{"name": "\(h.name)", "address": "127.0.0.1", "port": \(h.port), "user": "\(h.user)",
          "identityFile": "\(h.identityFile)", "knownHostsFile": "\(h.knownHostsFile)", "slots": 1,
          "labels": ["platform:linux", "swift"], "workRoot": "\(workRoot)",
          "toolchain": {"swiftPath": "/opt/swift/usr/bin/swift"}}]}
        """.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    private func run(_ fleet: String) throws -> (status: Int32, stdout: String, events: [RunEvent]) {
        let runs = dir.appendingPathComponent("runs-\(UUID().uuidString.prefix(6))")
        let p = Process()
        p.executableURL = XCFleetProcess.binary
        p.arguments = ["run", "Plans/cache-contract.json", "--fleet", fleet, "--runs", runs.path]
        p.currentDirectoryURL = TestHosts.packageRoot
        let out = Pipe()
        p.standardOutput = out
        p.standardError = out
        try p.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        let runDir = (try? FileManager.default.contentsOfDirectory(atPath: runs.path))?.first
        let events = runDir.flatMap { try? EventLog.read(runs.appendingPathComponent($0).appendingPathComponent("events.jsonl")) } ?? []
        return (p.terminationStatus, text, events)
    }

    private func builds(_ events: [RunEvent]) -> [BuildRecord] {
        events.compactMap { if case .build(_, let r) = $0.body { return r } else { return nil } }
    }

    /// The pushed workspace of the plan's one job (what the push cache is keyed by).
    private func planWorkspace() throws -> Workspace {
        let plan = try PlanLoader.load(path: TestHosts.packageRoot.appendingPathComponent("Plans/cache-contract.json").path, knownTemplates: TemplateInfo.names)
        let root = try TemplateRoot.locate(explicit: TestHosts.packageRoot.path)
        let jobs = try JobPlanner(renderer: Renderer(root: root), mutants: []).jobs(for: plan)
        return try XCTUnwrap(jobs.first).workspace
    }

    /// Warm re-run over SSH: the build comes from the host's cache (no compiler), and a push-store
    /// blob planted by another local user for this very package is not used: the run is green
    /// with xcfleet's own files and the planted Package.swift never runs.
    func testWarmRerunUsesTheCachedBuildAndAPlantedBlobIsNotUsed() throws {
        let other = try WorkRootSafetyTests.otherUser()
        let root = "\(hosts[0].directory)/\(hosts[0].name)/buildcache-\(UUID().uuidString.prefix(6))"
        let fleet = try fleet(workRoot: root)
        let first = try run(fleet)
        XCTAssertEqual(first.status, 0, first.stdout)
        XCTAssertEqual(builds(first.events).map(\.origin), [.cold])
        let second = try run(fleet)
        XCTAssertEqual(second.status, 0, second.stdout)
        XCTAssertEqual(builds(second.events).map(\.origin), [.cached])
        XCTAssertEqual(builds(second.events).first?.key, builds(first.events).first?.key)
        // The test rode the push's exec: its events still come after its phase began, the build's before.
        let bodies = second.events.map(\.body)
        let testPhase = try XCTUnwrap(bodies.firstIndex { if case .phaseStarted(_, .test) = $0 { return true } else { return false } })
        let testEvents = bodies.indices.filter { if case .test = bodies[$0] { return true } else { return false } }
        XCTAssertGreaterThanOrEqual(testEvents.count, 36)
        XCTAssertGreaterThan(testEvents.first ?? -1, testPhase)
        XCTAssertLessThan(try XCTUnwrap(bodies.firstIndex { if case .build = $0 { return true } else { return false } }), testPhase)
        // The tests were listed from what was built before any ran, in that same exec: the push's
        // record is logged when the exec ended, after the listing and the test events (a listing or
        // a test on its own exec would follow the push's record).
        let discovered = try XCTUnwrap(bodies.firstIndex { if case .testsDiscovered = $0 { return true } else { return false } })
        XCTAssertLessThan(discovered, testPhase)
        guard case .testsDiscovered(_, let found) = bodies[discovered] else { return XCTFail() }
        XCTAssertEqual(found.selected.count, found.tests.count)
        XCTAssertGreaterThanOrEqual(found.tests.count, 36)
        let pushed = try XCTUnwrap(bodies.firstIndex { if case .push = $0 { return true } else { return false } })
        XCTAssertGreaterThan(pushed, try XCTUnwrap(testEvents.last), "the listing and the test rode the push's exec")

        // Plant: replace the blob of Package.swift with another user's hostile Package.swift.
        let hash = try XCTUnwrap(try planWorkspace().fileHashes["Package.swift"])
        let entry = "\(root)/.cache/blobs/\(hash)"
        XCTAssertTrue(FileManager.default.fileExists(atPath: entry), "the first run filled the blob store")
        let pwned = dir.appendingPathComponent("pwned").path
        try FileManager.default.removeItem(atPath: entry)
        try Data("// swift-tools-version:6.0\nimport PackageDescription\nimport Foundation\nFileManager.default.createFile(atPath: \"\(pwned)\", contents: nil)\nlet package = Package(name: \"x\")\n".utf8)
            .write(to: URL(fileURLWithPath: entry))
        _ = try TestShell.run("chown -R \(other) \(ShellQuote.quote(entry))")
        // The second run's cleanup kept its job directory as a tree, which the next push would take
        // (the blob store unread): without it, the push makes its directory from the blobs.
        let trees = "\(root)/.cache/trees"
        let kept = try FileManager.default.contentsOfDirectory(atPath: trees).filter { !$0.hasSuffix(".manifest") && !$0.hasPrefix(".") }
        XCTAssertEqual(kept.count, 1, "the second run's cleanup kept its job tree: \(kept)")
        for name in kept { _ = try TestShell.run("chmod -R u+w \(ShellQuote.quote(trees + "/" + name)) && rm -rf \(ShellQuote.quote(trees + "/" + name))") }
        let third = try run(fleet)
        XCTAssertEqual(third.status, 0, third.stdout)
        XCTAssertEqual(builds(third.events).map(\.origin), [.cached], "xcfleet's own files, so its own build")
        XCTAssertFalse(FileManager.default.fileExists(atPath: pwned), "the planted Package.swift never ran")
        let resent = third.events.compactMap { if case .push(_, let p) = $0.body { return p } else { return nil } }
        XCTAssertEqual(resent.map(\.filesSent), [1], "Package.swift was sent again instead of taken from the planted blob")
    }

    /// A work root another local user owns on the host is refused before any job runs.
    func testWorkRootOfAnotherUserOnTheHostIsRefused() throws {
        let other = try WorkRootSafetyTests.otherUser()
        let root = "\(hosts[0].directory)/\(hosts[0].name)/hostile-\(UUID().uuidString.prefix(6))"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        _ = try TestShell.run("chown \(other) \(ShellQuote.quote(root)) && chmod 755 \(ShellQuote.quote(root))")
        let r = try run(try fleet(workRoot: root))
        XCTAssertEqual(r.status, 3, r.stdout)
        XCTAssertTrue(r.stdout.contains("refusing work directory \(root): owned by \(other)"), r.stdout)
        XCTAssertTrue(builds(r.events).isEmpty)
    }

    /// The default work root is under the login user's home on the host (`~` expanded there).
    func testTildeWorkRootIsExpandedOnTheHost() async throws {
        var spec = hosts[0].spec
        let name = ".xcfleet-tilde-\(UUID().uuidString.prefix(6))"
        spec.workRoot = "~/" + name
        let shell = try await SSHShell.connect(spec, timeouts: .defaults)
        let home = try await shell.fetch("/proc/self/environ", in: "/")   // the session's environment
        await shell.close()
        let homeValue = String(decoding: home, as: UTF8.self).split(separator: "\0").first { $0.hasPrefix("HOME=") }.map { String($0.dropFirst(5)) }
        XCTAssertEqual(shell.host.workRoot, (homeValue ?? "?") + "/" + name)
        XCTAssertTrue(shell.host.workRoot.hasPrefix("/"))
    }
}

enum WorkRootSafetyTests {
    /// A second local user (created with `useradd` when missing; needs root, as CI has).
    static func otherUser() throws -> String {
        let name = "xcfleet-other"
        if (try? TestShell.run("id \(name) >/dev/null 2>&1 && echo yes")) == "yes\n" { return name }
        _ = try TestShell.run("useradd -M -s /usr/sbin/nologin \(name) 2>/dev/null || /usr/sbin/useradd -M -s /usr/sbin/nologin \(name)")
        guard (try? TestShell.run("id \(name) >/dev/null 2>&1 && echo yes")) == "yes\n" else {
            throw XCTSkip("cannot create the second user \(name) (needs root)")
        }
        return name
    }
}
