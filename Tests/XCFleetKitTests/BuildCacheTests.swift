import Foundation
import XCTest
@testable import XCFleetKit
import XCFleetTestSupport

/// The host build cache (docs/builds.md) driven through the real local shell: the real
/// `swift build` for sharing, incremental variants, reverts and tampering (one cold build shared by
/// the tests of this class, ~15 s here), stand-in build commands for locking, kills and eviction.
final class BuildCacheTests: XCTestCase {
    /// One work root per test process with the rendered contract package built once (cold).
    nonisolated(unsafe) private static var sharedRoot: URL?
    nonisolated(unsafe) private static var baseKey: BuildKey?

    private static let toolchain = "system: Linux x86_64\nSwift version (BuildCacheTests)"

    static func contractWorkspace() throws -> Workspace {
        let root = try TemplateRoot.locate(explicit: TestPaths.packageRoot.path)
        let suite = SuiteSpec(name: "cache-gate", template: "cache-contract")
        return try Renderer(root: root).render(suite).workspace
    }

    static func changing(_ ws: Workspace, _ path: String, append text: String) -> Workspace {
        Workspace(files: ws.files.map { f in
            var f = f
            if f.path == path { f.contents += Data(text.utf8) }
            return f
        })
    }

    struct BuildRun: Sendable {
        var termination: CommandTermination
        var record: BuildRecord?
        var products: [String]
        var output: String
        var key: BuildKey
        var jobDirectory: String
        var problems: [String]
    }

    static func shell(root: URL) -> LocalShell {
        LocalShell(host: HostSpec(name: "local", transport: .local, address: "localhost", port: 0, user: "",
                                  workRoot: root.path, toolchain: ToolchainSpec(swiftPath: "/opt/swift/usr/bin/swift")))
    }

    /// What the orchestrator recorded building, as a run keeps it (`BuildTrust`): one "host" per work root.
    static let trust = BuildTrust()

    /// Pushes `ws` into a fresh job directory under `root` and runs the build cache script with
    /// the digests recorded in `trust` for `root`; records what it built there.
    static func build(_ ws: Workspace, root: URL, toolchain: String = toolchain, limits: CacheLimits = CacheLimits(),
                      command: [String] = ["swift", "build", "--build-tests"],
                      glob: String = SwiftPMCachedBuild.productGlob, trust: BuildTrust = BuildCacheTests.trust, pending: [String] = [],
                      onOutput: @escaping @Sendable (String) -> Void = { _ in }) async throws -> BuildRun {
        let shell = shell(root: root)
        let dir = try await shell.makeJobDirectory(jobID: "build-test")
        _ = try await shell.push(ws, to: dir)
        let key = BuildKey.compute(workspace: ws, toolchain: toolchain, destination: nil, buildCommand: command)
        let input = BuildCacheScript.Input(workRoot: root.path, key: key, toolchainDigest: BuildKey.toolchainDigest(toolchain),
                                           productGlob: glob, manifest: BuildKey.sourceManifest(of: ws), jobDirectory: dir,
                                           limits: limits, command: command, trusted: trust.digests(host: root.path), pending: pending,
                                           readOnly: true)
        let scanner = BuildProtocolScanner()
        let text = LockedText()
        let started = Date()
        let t = try await shell.run(BuildCacheScript.command(input), in: dir, deadlines: CommandDeadlines(total: 600, silence: 600)) { chunk in
            scanner.consume(chunk)
            let s = String(decoding: chunk.bytes, as: UTF8.self)
            text.append(s)
            onOutput(s)
        }
        let record = scanner.record(host: "local", key: key, started: started)
        if t == .exited(0), let record, let product = record.product { trust.record(host: root.path, key: record.key, product: product) }
        return BuildRun(termination: t, record: record, products: scanner.products,
                        output: text.value, key: key, jobDirectory: dir, problems: scanner.problems)
    }

    static func startBuild(_ ws: Workspace, root: URL, command: [String]) -> Task<BuildRun, Error> {
        Task.detached { try await build(ws, root: root, command: command) }
    }

    /// The shared root, with the contract package built once.
    func sharedBuild() async throws -> (root: URL, workspace: Workspace, key: BuildKey) {
        let ws = try Self.contractWorkspace()
        if let root = Self.sharedRoot, let key = Self.baseKey { return (root, ws, key) }
        let root = try TestPaths.temporaryDirectory("buildcache-shared").appendingPathComponent("work")
        let cold = try await Self.build(ws, root: root)
        XCTAssertEqual(cold.termination, .exited(0), cold.output)
        XCTAssertEqual(cold.record?.origin, .cold, "an empty cache builds cold")
        Self.sharedRoot = root
        Self.baseKey = cold.key
        return (root, ws, cold.key)
    }

    static func runBundle(_ bundle: String, in dir: String, only: [String]? = nil) throws -> (status: Int32, output: String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: bundle)
        p.arguments = only.map { [$0.joined(separator: ",")] } ?? []
        p.currentDirectoryURL = URL(fileURLWithPath: dir)
        let pipe = Pipe()
        p.standardOutput = pipe
        p.standardError = pipe
        try p.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return (p.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    // MARK: Keys (pure)

    func testKeyIgnoresTestSteeringFilesAndFollowsToolchainCommandAndSources() throws {
        let ws = try Self.contractWorkspace()
        let key = BuildKey.compute(workspace: ws, toolchain: "Swift 6.3.1", destination: nil, buildCommand: ["swift", "build"])
        let steered = Workspace(files: ws.files.map { f in
            var f = f
            if f.path == "xcfleet-manifest.json" { f.contents = Data("{\"tests\": []}\n".utf8) }
            return f
        })
        XCTAssertEqual(BuildKey.compute(workspace: steered, toolchain: "Swift 6.3.1", destination: nil, buildCommand: ["swift", "build"]), key,
                       "a shard's test list does not change the build")
        XCTAssertNotEqual(BuildKey.compute(workspace: ws, toolchain: "Swift 6.2", destination: nil, buildCommand: ["swift", "build"]), key)
        XCTAssertNotEqual(BuildKey.compute(workspace: ws, toolchain: "Swift 6.3.1", destination: "platform=iOS Simulator", buildCommand: ["swift", "build"]), key)
        XCTAssertNotEqual(BuildKey.compute(workspace: ws, toolchain: "Swift 6.3.1", destination: nil, buildCommand: ["swift", "build", "-c", "release"]), key)
        let changed = Self.changing(ws, "Package.swift", append: "\n")
        XCTAssertNotEqual(BuildKey.compute(workspace: changed, toolchain: "Swift 6.3.1", destination: nil, buildCommand: ["swift", "build"]), key)
        XCTAssertFalse(BuildKey.sourceManifest(of: ws).contains { $0.hasSuffix("  xcfleet-manifest.json") })
        XCTAssertEqual(BuildKey.sourceManifest(of: ws).count, ws.files.count - 1)
    }

    // MARK: Real builds

    /// Cached: the same package again uses the finished build; the bundle runs filtered from it
    /// in the job directory and writes nothing into the build.
    func testSamePackageUsesTheCachedBuildAndTestRunsWriteNothingIntoIt() async throws {
        let (root, ws, key) = try await sharedBuild()
        let again = try await Self.build(ws, root: root)
        XCTAssertEqual(again.termination, .exited(0), again.output)
        XCTAssertEqual(again.record?.origin, .cached)
        XCTAssertEqual(again.key, key)
        XCTAssertLessThan(again.record?.seconds ?? 99, 3, "a cached build only verifies hashes")
        let bundle = try XCTUnwrap(again.products.first)
        XCTAssertTrue(bundle.hasPrefix(root.path + "/builds/\(key.hex)/.build/"), bundle)
        let buildDir = root.appendingPathComponent("builds/\(key.hex)").path
        // Two test runs from the one build at once, each in its own job directory.
        let other = try await Self.build(ws, root: root)
        let filter = ["CacheContractTests.CacheKeyTests", "CacheContractTests.SessionGuardTests"]
        let results = try [again.jobDirectory, other.jobDirectory].map { dir in try Self.runBundle(bundle, in: dir, only: filter) }
        for r in results {
            XCTAssertEqual(r.status, 0, r.output)
            XCTAssertTrue(r.output.contains("Executed"), r.output)
            XCTAssertFalse(r.output.contains("CachedLoaderTests"), "the filter limits the run")
        }
        let written = try TestShell.run("find \(ShellQuote.quote(buildDir)) -mindepth 1 -newer \(ShellQuote.quote(buildDir + "/.xcfleet-build"))")
        XCTAssertEqual(written, "", "nothing in the build is newer than its marker after test runs")
    }

    /// One changed test file: a new key built incrementally from the base; reverting it finds the
    /// old build again; the incremental build costs a fraction of a cold one.
    func testChangedTestFileBuildsIncrementallyAndRevertUsesTheOldBuild() async throws {
        let (root, ws, key) = try await sharedBuild()
        let file = try XCTUnwrap(ws.files.first { $0.path.hasPrefix("Tests/") && $0.path.hasSuffix("Tests.swift") }?.path)
        let changed = Self.changing(ws, file, append: "\n// changed by BuildCacheTests\n")
        let variant = try await Self.build(changed, root: root)
        XCTAssertEqual(variant.termination, .exited(0), variant.output)
        XCTAssertNotEqual(variant.key, key)
        XCTAssertEqual(variant.record?.origin, .incremental, variant.output)
        XCTAssertEqual(variant.record?.base, key.hex)
        XCTAssertLessThan(variant.record?.seconds ?? 99, 10, "only the changed file recompiles")
        let run = try Self.runBundle(try XCTUnwrap(variant.products.first), in: variant.jobDirectory)
        XCTAssertEqual(run.status, 0, run.output)
        let reverted = try await Self.build(ws, root: root)
        XCTAssertEqual(reverted.key, key)
        XCTAssertEqual(reverted.record?.origin, .cached, reverted.output)
        let variantAgain = try await Self.build(changed, root: root)
        XCTAssertEqual(variantAgain.record?.origin, .cached)
    }

    /// A file changed inside a finished build (source or test binary) is not trusted: rebuilt, noted.
    func testTamperedBuildIsNotTrustedAndRebuilt() async throws {
        let (root, ws, _) = try await sharedBuild()
        // Its own key, so the shared base stays intact for the other tests.
        let mine = Self.changing(ws, "Package.swift", append: "\n// tamper test\n")
        let first = try await Self.build(mine, root: root)
        XCTAssertEqual(first.termination, .exited(0), first.output)
        let dir = root.appendingPathComponent("builds/\(first.key.hex)")
        let source = try XCTUnwrap(mine.files.first { $0.path.hasPrefix("Sources/") }?.path)
        let handle = try FileHandle(forWritingTo: dir.appendingPathComponent(source))
        handle.seekToEndOfFile(); handle.write(Data("\n// planted\n".utf8)); try handle.close()
        let second = try await Self.build(mine, root: root)
        XCTAssertEqual(second.termination, .exited(0), second.output)
        XCTAssertNotEqual(second.record?.origin, .cached)
        XCTAssertEqual(second.record?.untrusted, "a source file differs from the build's manifest")
        // The test binary itself.
        let bundle = try XCTUnwrap(second.products.first)
        let b = try FileHandle(forWritingTo: URL(fileURLWithPath: bundle))
        b.seekToEndOfFile(); b.write(Data([0])); try b.close()
        let third = try await Self.build(mine, root: root)
        XCTAssertNotEqual(third.record?.origin, .cached)
        XCTAssertEqual(third.record?.untrusted, "the test product differs from the SHA-256 xcfleet recorded when it built it")
        let fourth = try await Self.build(mine, root: root)
        XCTAssertEqual(fourth.record?.origin, .cached, "the rebuilt one is trusted")
    }

    /// A forged entry: the test product replaced by a script that prints an all-pass log, its
    /// digest recomputed the way the script does and written into the marker. The marker agrees with
    /// the files, but not with what the orchestrator recorded when it built the key: rebuilt.
    /// An entry the orchestrator has no record of (another machine's history, none) is rebuilt too.
    func testForgedMarkerAndProductAreNotTrustedAndEntryWithoutRecordIsRebuilt() async throws {
        let root = try TestPaths.temporaryDirectory().appendingPathComponent("work")
        let ws = Self.tiny("forge")
        let first = try await Self.build(ws, root: root, command: Self.standIn)
        XCTAssertEqual(first.record?.origin, .cold, first.output)
        XCTAssertEqual(first.record?.product.map(BuildCacheScript.isDigest), true, "the product digest is reported: \(first.output)")
        let entry = root.appendingPathComponent("builds/\(first.key.hex)").path
        // Finished builds are read-only.
        XCTAssertEqual(try TestShell.run("find \(ShellQuote.quote(entry)) -perm -u=w"), "", "nothing in a finished build is writable")
        let bundle = try XCTUnwrap(first.products.first)
        XCTAssertEqual(try TestShell.run("""
            chmod -R u+w \(ShellQuote.quote(entry)) && printf '#!/bin/sh\\necho all green\\n' > \(ShellQuote.quote(bundle)) &&
            h=$(cd \(ShellQuote.quote(entry)) && find .build/debug/StandInPackageTests.xctest -type f | LC_ALL=C sort | while IFS= read -r f; do sha256sum "$f"; done | sha256sum | cut -c1-64) &&
            sed -i "s/^product=.*/product=$h/" \(ShellQuote.quote(entry + "/.xcfleet-build")) && echo forged
            """), "forged\n")
        let second = try await Self.build(ws, root: root, command: Self.standIn)
        XCTAssertEqual(second.termination, .exited(0), second.output)
        XCTAssertEqual(second.record?.origin, .cold, second.output)
        XCTAssertEqual(second.record?.untrusted, "the test product differs from the SHA-256 xcfleet recorded when it built it")
        XCTAssertNotEqual(try String(contentsOfFile: bundle, encoding: .utf8), "#!/bin/sh\necho all green\n", "the forged product is gone")
        XCTAssertEqual(second.record?.product, first.record?.product, "the same build again")
        // An orchestrator that never built it here does not trust it.
        let stranger = try await Self.build(ws, root: root, command: Self.standIn, trust: BuildTrust())
        XCTAssertEqual(stranger.record?.origin, .cold, stranger.output)
        XCTAssertEqual(stranger.record?.untrusted, "xcfleet holds no record of building it on this host")
        // ... nor starts from it.
        let variant = try await Self.build(Self.tiny("forge2"), root: root, command: Self.standIn, trust: BuildTrust())
        XCTAssertEqual(variant.record?.origin, .cold, "an entry without a record is never a base")
    }

    // MARK: Protocol (stand-in build commands)

    static let standIn = ["sh", "-c", "mkdir -p .build/debug && head -c ${XCF_BYTES:-1000} /dev/zero > .build/debug/StandInPackageTests.xctest && cat Sources/a.swift > .build/debug/copy"]

    static func tiny(_ text: String) -> Workspace {
        Workspace(files: [WorkspaceFile(path: "Sources/a.swift", contents: Data(text.utf8)),
                          WorkspaceFile(path: "Sources/b.swift", contents: Data("let b = 1\n".utf8)),
                          WorkspaceFile(path: "xcfleet-manifest.json", contents: Data("{}".utf8))])
    }

    /// Another toolchain identity on the host: another key, and never a base for an incremental build.
    func testAnotherToolchainNeverSharesOrSeedsABuild() async throws {
        let root = try TestPaths.temporaryDirectory().appendingPathComponent("work")
        let a = try await Self.build(Self.tiny("t"), root: root, toolchain: "Swift version 6.3.1", command: Self.standIn)
        let b = try await Self.build(Self.tiny("t"), root: root, toolchain: "Swift version 6.2 (wrapper)", command: Self.standIn)
        XCTAssertNotEqual(a.key, b.key)
        XCTAssertEqual(b.record?.origin, .cold, "a build of another toolchain is not a base")
        let c = try await Self.build(Self.tiny("t2"), root: root, toolchain: "Swift version 6.3.1", command: Self.standIn)
        XCTAssertEqual(c.record?.origin, .incremental)
        XCTAssertEqual(c.record?.base, a.key.hex, "the nearest build of the same toolchain")
    }

    /// Another template on the same core sources (all test files differ, some removed, more added)
    /// still starts from the nearest build: only the files to write count, not the ones dropped.
    func testPackageWithOtherTestFilesStartsFromTheBuildSharingItsSources() async throws {
        let root = try TestPaths.temporaryDirectory().appendingPathComponent("work")
        func ws(_ tests: [String]) -> Workspace {
            Workspace(files: [WorkspaceFile(path: "Sources/a.swift", contents: Data("core".utf8)),
                              WorkspaceFile(path: "Sources/b.swift", contents: Data("core b".utf8))]
                      + tests.map { WorkspaceFile(path: "Tests/\($0).swift", contents: Data($0.utf8)) })
        }
        let gate = try await Self.build(ws(["g1", "g2", "g3"]), root: root, command: Self.standIn)
        let probes = try await Self.build(ws(["p1", "p2", "p3", "p4"]), root: root, command: Self.standIn)
        XCTAssertEqual(probes.record?.origin, .incremental, probes.output)
        XCTAssertEqual(probes.record?.base, gate.key.hex)
        let staged = try TestShell.run("cd \(ShellQuote.quote(root.path))/builds/\(probes.key.hex) && ls Tests")
        XCTAssertEqual(staged, "p1.swift\np2.swift\np3.swift\np4.swift\n", "the base's other files are gone")
        let unrelated = try await Self.build(Workspace(files: [WorkspaceFile(path: "Sources/a.swift", contents: Data("other".utf8))]),
                                             root: root, command: Self.standIn)
        XCTAssertEqual(unrelated.record?.origin, .cold, "nothing in common: built from nothing")
    }

    /// Two builders of one key at once (separate processes): exactly one runs the command, the
    /// other waits for the lock, then uses its build.
    func testConcurrentBuildersOfOneKeyBuildOnce() async throws {
        let root = try TestPaths.temporaryDirectory().appendingPathComponent("work")
        let counter = root.deletingLastPathComponent().appendingPathComponent("count").path
        let slow = ["sh", "-c", "echo x >> \(ShellQuote.quote(counter)); sleep 2; mkdir -p .build/debug && echo b > .build/debug/SPackageTests.xctest"]
        let ws = Self.tiny("one")
        async let a = Self.build(ws, root: root, command: slow)
        async let b = Self.build(ws, root: root, command: slow)
        let (ra, rb) = try await (a, b)
        XCTAssertEqual(ra.termination, .exited(0), ra.output)
        XCTAssertEqual(rb.termination, .exited(0), rb.output)
        XCTAssertEqual(try String(contentsOfFile: counter, encoding: .utf8), "x\n", "the build command ran once")
        let origins = [ra.record?.origin, rb.record?.origin].compactMap { $0 }.map(\.rawValue).sorted()
        XCTAssertEqual(origins, ["cached", "cold"])
        let waiter = ra.record?.origin == .cached ? ra.record : rb.record
        XCTAssertGreaterThan(waiter?.waitedSeconds ?? 0, 1, "the second waited for the first build")
    }

    /// A builder of another key that waited for the lock while the first build ran (its commands
    /// were made before that build was recorded) builds incrementally from it, held to its marker;
    /// an unrecorded build that was already there when the script started is still no base.
    func testABuildFinishedWhileWaitingForTheLockIsABase() async throws {
        let root = try TestPaths.temporaryDirectory().appendingPathComponent("work")
        let slow = ["sh", "-c", "sleep 2; mkdir -p .build/debug && cat Sources/a.swift > .build/debug/WPackageTests.xctest"]
        async let first = Self.build(Self.tiny("first"), root: root, command: slow, trust: BuildTrust())
        let lock = root.appendingPathComponent("builds/.stage").path
        let deadline = Date().addingTimeInterval(20)
        while !FileManager.default.fileExists(atPath: lock), Date() < deadline { try await Task.sleep(nanoseconds: 50_000_000) }
        // xcfleet names the keys its other jobs are building on the host (`pending`).
        let firstKey = BuildKey.compute(workspace: Self.tiny("first"), toolchain: Self.toolchain, destination: nil, buildCommand: slow).hex
        let waiter = try await Self.build(Self.tiny("waiter"), root: root, command: slow, trust: BuildTrust(), pending: [firstKey])
        let built = try await first
        XCTAssertEqual(built.key.hex, firstKey)
        XCTAssertEqual(built.record?.origin, .cold, built.output)
        XCTAssertEqual(waiter.termination, .exited(0), waiter.output)
        XCTAssertGreaterThan(waiter.record?.waitedSeconds ?? 0, 0.5, "it waited for the first build")
        XCTAssertEqual(waiter.record?.origin, .incremental, waiter.output)
        XCTAssertEqual(waiter.record?.base, built.key.hex)
        let late = try await Self.build(Self.tiny("late"), root: root, command: slow, trust: BuildTrust())
        XCTAssertEqual(late.record?.origin, .cold, "builds there before it started, and not recorded: no base")
        // The nearest base's record is not its product (an older build of that key, e.g. in the
        // history): not built upon, and the next nearest is.
        let stale = BuildTrust([.init(host: root.path, key: waiter.key.hex, product: String(repeating: "0", count: 64)),
                                .init(host: root.path, key: built.key.hex, product: built.record?.product ?? "")])
        let near = Workspace(files: Self.tiny("waiter").files + [WorkspaceFile(path: "Sources/c.swift", contents: Data("let c = 1\n".utf8))])
        let next = try await Self.build(near, root: root, command: slow, trust: stale)
        XCTAssertEqual(next.record?.origin, .incremental, next.output)
        XCTAssertEqual(next.record?.base, built.key.hex, "the nearest one's product is not the recorded one")
        // A build that appears while the script waits but that xcfleet did not name (planted, or
        // another process's) is not built upon.
        async let other = Self.build(Self.tiny("other"), root: root, command: slow, trust: BuildTrust())
        while !FileManager.default.fileExists(atPath: lock), Date() < deadline.addingTimeInterval(20) { try await Task.sleep(nanoseconds: 50_000_000) }
        let unnamed = try await Self.build(Self.tiny("unnamed"), root: root, command: slow, trust: BuildTrust())
        _ = try await other
        XCTAssertGreaterThan(unnamed.record?.waitedSeconds ?? 0, 0.5, "it waited for the other build")
        XCTAssertEqual(unnamed.record?.origin, .cold, unnamed.output)
    }

    /// A builder killed mid-build leaves `.stage` without a marker: never used; the next builder
    /// wipes it and builds cleanly.
    func testKilledMidBuildIsRebuiltCleanly() async throws {
        let root = try TestPaths.temporaryDirectory().appendingPathComponent("work")
        let ws = Self.tiny("killed")
        let flag = root.deletingLastPathComponent().appendingPathComponent("hang").path
        FileManager.default.createFile(atPath: flag, contents: nil)
        // Hangs (after writing half a product) while the flag file exists; the same command, so the same key.
        let hang = ["sh", "-c", "mkdir -p .build/debug && echo half > .build/debug/KPackageTests.xctest && if [ -f \(ShellQuote.quote(flag)) ]; then sleep 60; fi; cat Sources/a.swift > .build/debug/copy"]
        let task = Self.startBuild(ws, root: root, command: hang)
        let stage = root.appendingPathComponent("builds/.stage/.build/debug/KPackageTests.xctest").path
        let deadline = Date().addingTimeInterval(20)
        while !FileManager.default.fileExists(atPath: stage), Date() < deadline { try await Task.sleep(nanoseconds: 50_000_000) }
        XCTAssertTrue(FileManager.default.fileExists(atPath: stage), "the build started in the staging directory")
        task.cancel()
        let killed = try await task.value
        XCTAssertEqual(killed.termination, .cancelled)
        let key = killed.key.hex
        XCTAssertFalse(FileManager.default.fileExists(atPath: root.appendingPathComponent("builds/\(key)").path), "never visible")
        XCTAssertTrue(FileManager.default.fileExists(atPath: stage), "the half-written build is left in .stage")
        try FileManager.default.removeItem(atPath: flag)
        let next = try await Self.build(ws, root: root, command: hang)
        XCTAssertEqual(next.termination, .exited(0), next.output)
        XCTAssertEqual(next.record?.origin, .cold)
        XCTAssertFalse(FileManager.default.fileExists(atPath: root.appendingPathComponent("builds/.stage").path))
        XCTAssertEqual(try String(contentsOfFile: root.appendingPathComponent("builds/\(key)/.build/debug/copy").path, encoding: .utf8), "killed")
    }

    /// Least recently used entries go when the cache is over its bound; an entry a running job uses
    /// (its job directory exists) stays until that job is gone.
    func testEvictionKeepsEntriesInUseAndRemovesLeastRecentlyUsed() async throws {
        let root = try TestPaths.temporaryDirectory().appendingPathComponent("work")
        let big = ["sh", "-c", "mkdir -p .build/debug && head -c 400000 /dev/zero > .build/debug/EPackageTests.xctest && cat Sources/a.swift >/dev/null"]
        let unbounded = CacheLimits(maxBytes: 1 << 40, minFreeBytes: 0)
        let a = try await Self.build(Self.tiny("a"), root: root, limits: unbounded, command: big)
        let b = try await Self.build(Self.tiny("b"), root: root, limits: unbounded, command: big)
        try FileManager.default.removeItem(atPath: b.jobDirectory)   // b's job is over; a's still runs
        try await Task.sleep(nanoseconds: 1_100_000_000)             // distinct mtimes
        let c = try await Self.build(Self.tiny("c"), root: root, limits: CacheLimits(maxBytes: 500_000, minFreeBytes: 0), command: big)
        XCTAssertEqual(c.termination, .exited(0), c.output)
        func exists(_ r: BuildRun) -> Bool { FileManager.default.fileExists(atPath: root.appendingPathComponent("builds/\(r.key.hex)").path) }
        XCTAssertTrue(exists(a), "in use by a running job: kept although the cache is over its bound")
        XCTAssertFalse(exists(b), "least recently used and unused: evicted")
        XCTAssertTrue(exists(c), "the build just made stays")
        XCTAssertEqual(c.record?.evicted, ["builds/\(b.key.hex)"])
        try FileManager.default.removeItem(atPath: a.jobDirectory)
        let d = try await Self.build(Self.tiny("d"), root: root, limits: CacheLimits(maxBytes: 500_000, minFreeBytes: 0), command: big)
        XCTAssertFalse(exists(a), "evicted once its job is gone")
        XCTAssertTrue(exists(d))
    }

    /// `xcfleet hosts clean` empties the caches of the fleet's hosts.
    func testHostsCleanEmptiesTheCaches() async throws {
        let dir = try TestPaths.temporaryDirectory()
        let root = dir.appendingPathComponent("work")
        let built = try await Self.build(Self.tiny("clean"), root: root, command: Self.standIn)
        try FileManager.default.removeItem(atPath: built.jobDirectory)
        // A push-store blob unused for an hour goes; one used just now (a push in flight) stays.
        let blobs = root.appendingPathComponent(".cache/blobs")
        try FileManager.default.createDirectory(at: blobs, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let old = blobs.appendingPathComponent(String(repeating: "a", count: 64)).path
        let fresh = blobs.appendingPathComponent(String(repeating: "b", count: 64)).path
        try Data(count: 3000).write(to: URL(fileURLWithPath: old))
        try Data("x".utf8).write(to: URL(fileURLWithPath: fresh))
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -3600)], ofItemAtPath: old)
        // The push left the manifest of the job's tree (kept trees live under .cache/trees): it goes too.
        let trees = root.appendingPathComponent(".cache/trees").path
        XCTAssertTrue(FileManager.default.fileExists(atPath: trees))
        let fleet = dir.appendingPathComponent("fleet.json")
        try Data(#"{"hosts": [{"name": "local", "transport": "local", "workRoot": "\#(root.path)"}]}"#.utf8).write(to: fleet)
        let r = try TestShell.runProcess(TestPaths.xcfleetBinary.path, ["hosts", "clean", "--fleet", fleet.path])
        XCTAssertEqual(r.status, 0, r.stdout + r.stderr)
        XCTAssertTrue(r.stdout.contains("local: removed 3 cache entries"), r.stdout)
        XCTAssertFalse(FileManager.default.fileExists(atPath: trees))
        XCTAssertFalse(FileManager.default.fileExists(atPath: old))
        XCTAssertTrue(FileManager.default.fileExists(atPath: fresh))
        XCTAssertFalse(FileManager.default.fileExists(atPath: root.appendingPathComponent("builds/\(built.key.hex)").path))
        let help = try TestShell.runProcess(TestPaths.xcfleetBinary.path, ["hosts", "clean", "--help"])
        XCTAssertEqual(help.status, 0)
        XCTAssertTrue(help.stdout.contains("usage: xcfleet hosts clean"))
    }
}

/// Text collected from concurrent callbacks.
final class LockedText: @unchecked Sendable {
    private let lock = NSLock()
    private var text = ""
    func append(_ s: String) { lock.lock(); text += s; lock.unlock() }
    var value: String { lock.lock(); defer { lock.unlock() }; return text }
}

