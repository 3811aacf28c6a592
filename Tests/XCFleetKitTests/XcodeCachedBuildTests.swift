import Foundation
import XCTest
@testable import XCFleetKit
import XCFleetTestSupport

/// Xcode hosts build once per build key through the host build cache, then every shard, repetition
/// and retry runs `test-without-building` from `<workRoot>/builds/<key>/DerivedData`. No Mac here:
/// the golden commands are checked as text, and the executor test runs the real cache script
/// (sh + perl, as on macOS) locally with a fake `xcodebuild build-for-testing` on PATH, while the
/// other xcodebuild/xcrun commands get scripted replies.
final class XcodeCachedBuildTests: XCTestCase {
    static let dev = "/Applications/Xcode_16.4.app/Contents/Developer"
    static let version = XcodeFixtures.versionOutput("16.4", "16F6")

    static func workspace(_ source: String = "let a = 1\n") throws -> Workspace {
        let manifest = SuiteManifest(suite: "s", template: "cache-contract", testTarget: "CacheContractTests", mutant: nil)
        return Workspace(files: [WorkspaceFile(path: "Package.swift", contents: Data("// swift-tools-version:5.9\n".utf8)),
                                 WorkspaceFile(path: "Sources/S/a.swift", contents: Data(source.utf8)),
                                 WorkspaceFile(path: "xcfleet-manifest.json", contents: try JSONEncoder().encode(manifest))])
    }

    // MARK: golden commands and keys

    func testBuildForTestingWritesDerivedDataInsideTheStagedPackage() throws {
        let build = XcodeCachedBuild.buildForTesting(scheme: "xcfleet-s-Package", destination: "generic/platform=iOS Simulator", developerDir: Self.dev)
        XCTAssertEqual(XcodeCommandLine.render(build),
                       "DEVELOPER_DIR=\(Self.dev) xcodebuild build-for-testing -scheme xcfleet-s-Package -destination 'generic/platform=iOS Simulator' -derivedDataPath DerivedData CODE_SIGNING_ALLOWED=NO")
        XCTAssertEqual(XcodeCachedBuild.productGlob, "DerivedData/Build/Products")

        let ws = try Self.workspace()
        let cache = XcodeCachedBuild(workspace: ws, workRoot: "/Users/ci/.xcfleet/work", limits: CacheLimits(maxBytes: 10, minFreeBytes: 5),
                                     jobDirectory: "/Users/ci/.xcfleet/work/jobs/s-1")
        let identity = XcodeCachedBuild.identity(versionOutput: Self.version, developerDir: Self.dev)
        XCTAssertEqual(identity, "system: Darwin\nXcode 16.4\nBuild version 16F6\nDEVELOPER_DIR=\(Self.dev)")
        let key = cache.key(toolchain: identity, scheme: "xcfleet-s-Package", destination: "generic/platform=iOS Simulator", developerDir: Self.dev)
        let c = cache.command(toolchain: identity, scheme: "xcfleet-s-Package", destination: "generic/platform=iOS Simulator", developerDir: Self.dev)
        XCTAssertEqual(c.environment, ["DEVELOPER_DIR": Self.dev], "the cache script passes DEVELOPER_DIR on to xcodebuild")
        XCTAssertEqual(Array(c.arguments.prefix(2)), ["sh", "-c"])
        XCTAssertEqual(Array(c.arguments.dropFirst(3)), [
            "sh", "/Users/ci/.xcfleet/work", key.hex, BuildKey.toolchainDigest(identity), "DerivedData/Build/Products",
            BuildKey.sourcesDigest(BuildKey.sourceManifest(of: ws)), "xcfleet-manifest.json", "/Users/ci/.xcfleet/work/jobs/s-1", "10", "5", "", "0",
            "xcodebuild", "build-for-testing", "-scheme", "xcfleet-s-Package", "-destination", "generic/platform=iOS Simulator",
            "-derivedDataPath", "DerivedData", "CODE_SIGNING_ALLOWED=NO"])
        XCTAssertEqual(cache.derivedDataPath(key: key), "/Users/ci/.xcfleet/work/builds/\(key.hex)/DerivedData")
    }

    func testKeyFollowsXcodeDeveloperDirDestinationSchemeAndSourcesButNotTheShard() throws {
        func key(_ ws: Workspace, version: String = XcodeCachedBuildTests.version, dev: String? = XcodeCachedBuildTests.dev, destination: String = "generic/platform=iOS Simulator",
                 scheme: String = "xcfleet-s-Package") -> BuildKey {
            XcodeCachedBuild(workspace: ws, workRoot: "/w", limits: CacheLimits(), jobDirectory: "/w/jobs/x")
                .key(toolchain: XcodeCachedBuild.identity(versionOutput: version, developerDir: dev), scheme: scheme, destination: destination, developerDir: dev)
        }
        let base = key(try Self.workspace())
        XCTAssertNotEqual(key(try Self.workspace("let a = 2\n")), base, "a mutant is another build")
        XCTAssertNotEqual(key(try Self.workspace(), version: XcodeFixtures.versionOutput("16.4", "16F7")), base)
        XCTAssertNotEqual(key(try Self.workspace(), dev: "/Applications/Xcode-beta.app/Contents/Developer"), base)
        XCTAssertNotEqual(key(try Self.workspace(), dev: nil), base)
        XCTAssertNotEqual(key(try Self.workspace(), destination: "platform=macOS"), base)
        XCTAssertNotEqual(key(try Self.workspace(), scheme: "CacheContractTests"), base)
    }

    // MARK: executor: build once, test many

    /// A Mac stand-in: the real LocalShell for the job folder, `sh` (the cache script) and `ls`, with a
    /// fake `xcodebuild` first on PATH; scripted replies for the other xcodebuild/xcrun commands.
    final class MacDouble: RemoteShell, @unchecked Sendable {
        let local: LocalShell
        let bin: String
        private let lock = NSLock()
        private var ranStore: [String] = []
        var host: HostSpec { local.host }
        var ran: [String] { lock.lock(); defer { lock.unlock() }; return ranStore }

        init(root: URL, name: String = "mac-1") throws {
            local = LocalShell(host: HostSpec(name: name, transport: .local, address: "localhost", port: 0, user: "",
                                              labels: ["platform:macos"], workRoot: root.appendingPathComponent("work").path))
            bin = root.appendingPathComponent("bin").path
            try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
            // Made by hand: what build-for-testing leaves for a macOS package (an .xctestrun and a product
            // folder under DerivedData/Build/Products); a package holding `Sources/S/broken.swift` fails
            // like a compile error. Each call is logged with its working directory.
            let fake = """
            #!/bin/sh
            echo "$PWD $*" >> '\(root.appendingPathComponent("xcodebuild.log").path)'
            [ "$1" = build-for-testing ] || { echo "fake xcodebuild: $1 is scripted" >&2; exit 2; }
            if [ -e Sources/S/broken.swift ]; then echo "$PWD/Sources/S/broken.swift:1:1: error: cannot find 'x' in scope"; echo '** TEST BUILD FAILED **'; exit 65; fi
            mkdir -p DerivedData/Build/Products/Debug && echo bundle > DerivedData/Build/Products/Debug/S.xctest
            echo '<plist/>' > DerivedData/Build/Products/xcfleet-s-Package_macosx15.5-arm64.xctestrun
            echo '** TEST BUILD SUCCEEDED **'

            """
            try fake.write(toFile: bin + "/xcodebuild", atomically: true, encoding: .utf8)
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: bin + "/xcodebuild")
        }

        func makeJobDirectory(jobID: String) async throws -> String { try await local.makeJobDirectory(jobID: jobID) }
        func push(_ workspace: Workspace, to directory: String) async throws -> PushOutcome { try await local.push(workspace, to: directory) }
        func fetch(_ path: String, in directory: String) async throws -> Data { try await local.fetch(path, in: directory) }
        func removeJobDirectory(_ directory: String) async throws { try await local.removeJobDirectory(directory) }
        func close() async {}

        func run(_ command: ShellCommand, in directory: String, deadlines: CommandDeadlines,
                 output: @escaping @Sendable (OutputChunk) -> Void) async throws -> CommandTermination {
            if let ended = try await ScriptedShell.eachSelectionRun(command, { try await self.run($0, in: directory, deadlines: deadlines, output: output) }) {
                return ended
            }
            let line = XcodeCommandLine.render(command)
            lock.withLock { ranStore.append(line) }
            if command.arguments.first == "sh" || command.arguments.first == "ls" {
                var c = command
                c.environment["PATH"] = bin + ":/usr/bin:/bin"
                return try await local.run(c, in: directory, deadlines: deadlines, output: output)
            }
            let reply: (String, Int32)
            if let at = command.arguments.firstIndex(of: "-test-enumeration-output-path"), at + 1 < command.arguments.count {
                // The discover step: the enumeration of what was built, written where it was asked for.
                try Data(XcodebuildJobTests.enumeration.utf8).write(to: URL(fileURLWithPath: command.arguments[at + 1]))
                reply = ("", 0)
            }
            else if line.hasPrefix("xcodebuild -version") { reply = (XcodeCachedBuildTests.version, 0) }
            else if line.hasPrefix("xcodebuild -list -json") { reply = ("{\"workspace\":{\"name\":\"xcfleet-s\",\"schemes\":[\"xcfleet-s-Package\"]}}", 0) }
            else if line.contains("xcodebuild test-without-building") { reply = (XcodebuildJobTests.streamedRun, 0) }
            else if line.hasPrefix("xcrun xcresulttool get test-results") { reply = (try XcodeFixtures.text("xcresult-test-results.json"), 0) }
            else { reply = ("", 127) }
            output(OutputChunk(stream: .stdout, bytes: Array(reply.0.utf8)))
            return .exited(reply.1)
        }
    }

    static func job(_ id: String, _ ws: Workspace, shard: Int = 0, of shardCount: Int = 1) -> PlannedJob {
        let spec = SuiteSpec(name: "s", template: "cache-contract", destination: "platform=macOS")
        return PlannedJob(planned: JobPlanned(jobID: id, suite: spec.name, kind: .gate, shard: shard, shardCount: shardCount, repetition: 0,
                                              mutant: nil, expectedTests: []),
                          spec: spec, workspace: ws, requires: [])
    }

    func testTwoJobsOfOneKeyBuildOnceAndAMutantBuildsAgain() async throws {
        let root = try TestPaths.temporaryDirectory("xcode-cached-build")
        let shell = try MacDouble(root: root)
        let runDir = root.appendingPathComponent("run")
        let log = try EventLog(directory: runDir, secrets: [])
        let trust = BuildTrust() // the run's record of its builds, shared by its attempts
        func execute(_ job: PlannedJob) async -> Scheduler.AttemptOutcome {
            var executor = AttemptExecutor(job: job, ref: AttemptRef(jobID: job.planned.jobID, attempt: 1), shell: shell, log: log,
                                           logsDirectory: runDir.appendingPathComponent("logs"))
            executor.buildTrust = trust
            return await executor.execute()
        }
        func builds() throws -> [BuildRecord] {
            try EventLog.read(log.url).compactMap { if case .build(_, let r) = $0.body { return r } else { return nil } }
        }
        func xcodebuildCalls() -> [String] {
            ((try? String(contentsOf: root.appendingPathComponent("xcodebuild.log"), encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
        }
        let work = shell.host.workRoot

        _ = await execute(Self.job("s#1", try Self.workspace(), shard: 0, of: 2))
        _ = await execute(Self.job("s#2", try Self.workspace(), shard: 1, of: 2))

        XCTAssertEqual(xcodebuildCalls().count, 1, "one build-for-testing for two jobs of one key: \(xcodebuildCalls())")
        XCTAssertTrue(xcodebuildCalls().first?.hasPrefix("\(work)/builds/.stage build-for-testing -scheme xcfleet-s-Package -destination platform=macOS -derivedDataPath DerivedData") == true,
                      "built in the cache's staging folder: \(xcodebuildCalls())")
        var records = try builds()
        XCTAssertEqual(records.map(\.origin), [.cold, .cached])
        guard records.count == 2 else { return XCTFail("expected two build records, got \(records)") }
        XCTAssertEqual(records[0].key, records[1].key)
        let key = records[0].key
        let xctestrun = "\(work)/builds/\(key)/DerivedData/Build/Products/xcfleet-s-Package_macosx15.5-arm64.xctestrun"
        let listings = shell.ran.filter { $0.contains("-enumerate-tests") }
        let tests = shell.ran.filter { $0.contains("test-without-building") && !$0.contains("-enumerate-tests") }
        guard tests.count == 2, listings.count == 2 else { return XCTFail("expected two listings and two test runs: \(shell.ran)") }
        for t in tests + listings { XCTAssertTrue(t.contains("-xctestrun \(xctestrun) -destination platform=macOS"), t) }
        // Each shard runs its half of the four discovered tests, named as -only-testing takes them.
        let only = tests.map { t in t.split(separator: " ").filter { $0.hasPrefix("-only-testing:") } }
        XCTAssertEqual(only.map(\.count), [2, 2], "\(tests)")
        XCTAssertEqual(Set(only.joined()).count, 4, "\(tests)")
        XCTAssertTrue(only.joined().allSatisfy { $0.hasPrefix("-only-testing:CacheContractTests/") }, "\(tests)")
        XCTAssertFalse(shell.ran.contains { $0.hasPrefix("xcodebuild build-for-testing") }, "no build outside the cache")
        XCTAssertTrue(FileManager.default.fileExists(atPath: xctestrun))

        // A mutant changes a source file: another key, another build.
        _ = await execute(Self.job("s#m1", try Self.workspace("let a = 2\n")))
        XCTAssertEqual(xcodebuildCalls().count, 2)
        records = try builds()
        guard records.count == 3 else { return XCTFail("expected three build records, got \(records)") }
        XCTAssertNotEqual(records[2].key, key)
        XCTAssertNotEqual(records[2].origin, .cached)

        // A compile error in the cached build: red with the compiler's error, no tests, no cache entry.
        let before = try FileManager.default.contentsOfDirectory(atPath: work + "/builds").filter { !$0.hasPrefix(".") }.count
        let broken = Workspace(files: try Self.workspace().files + [WorkspaceFile(path: "Sources/S/broken.swift", contents: Data("x\n".utf8))])
        let testsBefore = shell.ran.filter { $0.contains("test-without-building") }.count
        let outcome = await execute(Self.job("s#broken", broken))
        XCTAssertEqual(outcome, .testsFailed)
        XCTAssertEqual(shell.ran.filter { $0.contains("test-without-building") }.count, testsBefore)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: work + "/builds").filter { !$0.hasPrefix(".") }.count, before)
        let events = try EventLog.read(log.url)
        XCTAssertTrue(events.contains { if case .test(let ref, .buildError(_, _, let m)) = $0.body { return ref.jobID == "s#broken" && m.contains("cannot find 'x'") } else { return false } })
    }

    /// Build once per fleet for Xcode jobs: two Mac stand-ins of one class (one Xcode); the first
    /// job builds on mac-1, the second, on mac-2, receives mac-1's products folder (`BuildRelay`,
    /// the real relay and cache scripts) and runs its tests from it without a build-for-testing.
    func testASecondHostOfTheClassReceivesTheProductsFolderInsteadOfBuilding() async throws {
        let root = try TestPaths.temporaryDirectory("xcode-fleet-build")
        let a = try MacDouble(root: root.appendingPathComponent("a"), name: "mac-1")
        let b = try MacDouble(root: root.appendingPathComponent("b"), name: "mac-2")
        let runDir = root.appendingPathComponent("run")
        let log = try EventLog(directory: runDir, secrets: [])
        let trust = BuildTrust(), fleet = FleetBuilds()
        func execute(_ job: PlannedJob, on shell: MacDouble) async -> Scheduler.AttemptOutcome {
            var executor = AttemptExecutor(job: job, ref: AttemptRef(jobID: job.planned.jobID, attempt: 1), shell: shell, log: log,
                                           logsDirectory: runDir.appendingPathComponent("logs"))
            executor.buildTrust = trust
            executor.fleetBuilds = fleet
            executor.openShell = { name in name == "mac-1" ? a : b }
            return await executor.execute()
        }
        func builds(_ dir: URL) -> [String] {
            ((try? String(contentsOf: dir.appendingPathComponent("xcodebuild.log"), encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
        }
        // (The scripted test run prints every test, not the shard's: the verdict is not what this checks.)
        _ = await execute(Self.job("s#1", try Self.workspace(), shard: 0, of: 2), on: a)
        _ = await execute(Self.job("s#2", try Self.workspace(), shard: 1, of: 2), on: b)
        XCTAssertEqual(builds(root.appendingPathComponent("a")).count, 1)
        XCTAssertEqual(builds(root.appendingPathComponent("b")), [], "mac-2 compiled nothing")
        let events = try EventLog.read(log.url)
        let records = events.compactMap { if case .build(_, let r) = $0.body { return r } else { return nil } }
        XCTAssertEqual(records.map(\.origin), [.cold, .cached])
        XCTAssertEqual(records.map(\.host), ["mac-1", "mac-2"])
        XCTAssertEqual(Set(records.compactMap(\.product)).count, 1, "the same products folder on both hosts")
        let notes = events.compactMap { if case .note(let n) = $0.body { return n } else { return nil } }
        XCTAssertTrue(notes.contains { $0.contains("received the build") && $0.contains("from mac-1") && $0.contains("not compiled on mac-2") },
                      notes.joined(separator: "\n"))
        let key = try XCTUnwrap(records.first?.key)
        XCTAssertTrue(FileManager.default.fileExists(atPath: b.host.workRoot + "/builds/\(key)/DerivedData/Build/Products/xcfleet-s-Package_macosx15.5-arm64.xctestrun"))
        XCTAssertTrue(b.ran.contains { $0.contains("test-without-building -xctestrun \(b.host.workRoot)/builds/\(key)/DerivedData") }, "\(b.ran)")
    }
}
