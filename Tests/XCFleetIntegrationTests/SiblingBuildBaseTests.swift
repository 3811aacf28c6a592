import Foundation
import XCTest
@testable import XCFleetKit
import XCFleetModel
import XCFleetTestSupport

/// Attempts that start together on one host make their build commands in any order, and the
/// history may hold an older record of a key (a build under another work root, or one evicted
/// since). Each attempt's key is named to the others' commands as `pending` from the moment the
/// runner starts it, and a pending build that appears while a job waits at the host's build lock
/// is held to its marker's product, not to that older record. So a job that waits builds
/// incrementally on the build that finished meanwhile and never compiles cold as well
/// (docs/builds.md, step 6). A gate with its six mutants, three slots, the real cache script and
/// lock, and the fake `swift` taking 1.5 s a build.
final class SiblingBuildBaseTests: XCTestCase {
    /// The commands run after each push or on their own, in the order they were made.
    final class Commands: @unchecked Sendable {
        private let lock = NSLock()
        private var made: [[String]] = []
        func add(_ command: ShellCommand?) { guard let command else { return }; lock.lock(); made.append(command.arguments); lock.unlock() }
        var all: [[String]] { lock.lock(); defer { lock.unlock() }; return made }
    }

    private func host(_ spec: HostSpec) throws -> HostSpec {
        let base = try TestPaths.temporaryDirectory("sibling-base-toolchain")
        var host = spec
        host.slots = 3
        host.workRoot = base.appendingPathComponent("work").path
        host.toolchain.swiftPath = try FakeToolchain.install(in: base).path
        host.environment["FAKE_SWIFT_BUILD_DELAY"] = EnvironmentValue("1.5")
        return host
    }

    private func run(on host: HostSpec, trust: BuildTrust = BuildTrust()) async throws -> (report: RunReport, commands: [[String]]) {
        let base = try TestPaths.temporaryDirectory("sibling-base")
        let plan = try PlanLoader.parse(Data(#"{"name": "p", "suites": [{"name": "a", "template": "cache-contract", "mutants": true}]}"#.utf8),
                                        path: "p.json", knownTemplates: ["cache-contract"])
        var config = RunConfiguration(plan: plan, fleet: Fleet(hosts: [host]), root: TemplateRoot(url: TestPaths.packageRoot),
                                      runsDirectory: base.appendingPathComponent("runs"))
        config.trustedBuilds = trust
        let commands = Commands()
        let runner = try Runner(config: config, shellFactory: { spec, timeouts in
            InterposedShell(try await Runner.defaultShellFactory(spec, timeouts), run: { inner, command, directory, deadlines, output in
                commands.add(command)
                return try await inner.run(command, in: directory, deadlines: deadlines, output: output)
            }, prepared: { commands.add($0) })
        })
        return (try await runner.run(), commands.all)
    }

    /// One compile from nothing, six on top of it; a job that waited at the lock built on what finished meanwhile.
    private func assertOneColdBuild(_ report: RunReport, file: StaticString = #filePath, line: UInt = #line) -> Set<String> {
        let attempts = report.suites.flatMap(\.jobs).flatMap(\.attempts)
        XCTAssertEqual(attempts.count, 7, "the gate and its six mutants, one attempt each", file: file, line: line)
        let builds = attempts.compactMap(\.build)
        let origins = builds.map(\.originText)
        XCTAssertEqual(builds.count, 7, "every attempt has its build record", file: file, line: line)
        XCTAssertEqual(Set(builds.map(\.key)).count, 7, "seven packages, seven keys", file: file, line: line)
        XCTAssertEqual(builds.filter { $0.origin == .cold }.count, 1, "\(origins)", file: file, line: line)
        XCTAssertEqual(builds.filter { $0.origin == .incremental }.count, 6, "\(origins)", file: file, line: line)
        XCTAssertTrue(builds.contains { $0.waitedSeconds > 0.5 && $0.origin == .incremental }, "\(builds.map { ($0.originText, $0.waitedSeconds) })",
                      file: file, line: line)
        return Set(builds.map(\.key))
    }

    /// The build commands of the three attempts started together (a fourth starts only when one of
    /// them ends, after its 1.5 s build) each name the other two as pending.
    private func assertSiblingsNamed(_ commands: [[String]], keys: Set<String>, file: StaticString = #filePath, line: UInt = #line) {
        let made = commands.filter { args in args.contains { keys.contains($0) } }
        XCTAssertGreaterThanOrEqual(made.count, 3, "build commands seen", file: file, line: line)
        let first = made.prefix(3).compactMap { $0.first { keys.contains($0) } }
        for args in made.prefix(3) {
            guard let own = args.first(where: { keys.contains($0) }) else { continue }
            let pending = Set(args.flatMap { $0.split(separator: "\n") }.compactMap { line -> String? in
                let parts = line.split(separator: " ")
                return parts.count == 2 && parts[1] == "pending" ? String(parts[0]) : nil
            })
            let siblings = first.filter { $0 != own }
            XCTAssertEqual(siblings.count, 2, file: file, line: line)
            XCTAssertTrue(pending.isSuperset(of: siblings), "the command of \(own.prefix(12)) names \(pending.map { $0.prefix(12) }.sorted()) as pending, not both of \(siblings.map { $0.prefix(12) })",
                          file: file, line: line)
        }
    }

    /// Over SSH the build rides the push's exec and is made before the push, right after the
    /// attempt's claim: a sibling that had not claimed yet is named all the same.
    func testOverSSHTheAttemptsStartedTogetherNameEachOthersKeys() async throws {
        let host = try self.host(try XCTUnwrap(try TestHosts.hosts().first).spec)
        let (report, commands) = try await run(on: host)
        let keys = assertOneColdBuild(report)
        assertSiblingsNamed(commands, keys: keys)
    }

    /// On the built-in local host, with a history that holds an older record of every key (another
    /// work root's builds): the builds that finish while the others wait are still their bases.
    func testAnOlderRecordOfASiblingsKeyDoesNotMakeTheWaiterCompileCold() async throws {
        let host = try self.host(HostSpec.local)
        // The same plan on another work root tells the keys.
        var other = host
        other.workRoot += "-first"
        let keys = assertOneColdBuild(try await run(on: other).report)
        let stale = BuildTrust(keys.map { BuildTrust.Entry(host: host.name, key: $0, product: String(repeating: "0", count: 64)) })
        let (report, commands) = try await run(on: host, trust: stale)
        XCTAssertEqual(assertOneColdBuild(report), keys)
        assertSiblingsNamed(commands, keys: keys)
    }
}
