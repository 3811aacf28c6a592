import Foundation
import XCTest
@testable import XCFleetKit
import XCFleetModel
import XCFleetHostScripts
import XCFleetTestSupport

/// An attempt's cleanup exec over SSH: its process record is finished, its job folder kept as a
/// tree for the next push, and — after the run's last verdict — the slot leases the run no longer
/// needs (its own slot's and the idle one's) released, so the run's end saves the release's round
/// trip. When that exec cannot release them, the teardown still does; when the release fails, a
/// note says so. A real sshd host with two slots, one job, the fake `swift`.
final class CleanupExecTests: XCTestCase {
    /// What the run's shells were asked: the releases carried by cleanups, and lease releases run on their own.
    final class Calls: @unchecked Sendable {
        private let lock = NSLock()
        private var carried: [[String]] = []
        private var own: [[String]] = []
        func carried(_ release: ShellCommand?) { guard let release else { return }; lock.lock(); carried.append(Self.arguments(release)); lock.unlock() }
        func ran(_ command: ShellCommand) {
            let args = Self.arguments(command)
            guard args.first == "release" else { return }
            lock.lock(); own.append(args); lock.unlock()
        }
        var all: (carried: [[String]], own: [[String]]) { lock.lock(); defer { lock.unlock() }; return (carried, own) }
        /// A lease command's own arguments (MODE ROOT …), without the script.
        static func arguments(_ command: ShellCommand) -> [String] {
            let prefix = HostLeaseScript.command([]).arguments
            return command.arguments.starts(with: prefix) ? Array(command.arguments.dropFirst(prefix.count)) : command.arguments
        }
    }

    enum Cleanup { case real, throwsBeforeTheExec, releaseReportsAnError }

    private func host() throws -> HostSpec {
        let base = try TestPaths.temporaryDirectory("cleanup-exec-toolchain")
        var host = try XCTUnwrap(try TestHosts.hosts().first).spec
        host.slots = 2
        host.workRoot += "-cleanup-" + UUID().uuidString.prefix(6)
        host.toolchain.swiftPath = try FakeToolchain.install(in: base).path
        return host
    }

    private func run(_ cleanup: Cleanup, on given: HostSpec? = nil) async throws -> (report: RunReport, calls: Calls, held: [String]) {
        let base = try TestPaths.temporaryDirectory("cleanup-exec")
        let host = try given ?? self.host()
        let plan = try PlanLoader.parse(Data(#"{"name": "p", "suites": [{"name": "a", "template": "cache-contract"}]}"#.utf8),
                                        path: "p.json", knownTemplates: ["cache-contract"])
        let config = RunConfiguration(plan: plan, fleet: Fleet(hosts: [host]), root: TemplateRoot(url: TestPaths.packageRoot),
                                      runsDirectory: base.appendingPathComponent("runs"))
        let calls = Calls()
        let runner = try Runner(config: config, shellFactory: { spec, timeouts in
            InterposedShell(try await Runner.defaultShellFactory(spec, timeouts), run: { inner, command, directory, deadlines, output in
                calls.ran(command)
                return try await inner.run(command, in: directory, deadlines: deadlines, output: output)
            }, finishAndRemove: { inner, directory, finish, release, deadlines, output in
                calls.carried(release)
                switch cleanup {
                case .real:
                    return try await inner.finishAndRemoveJobDirectory(directory, finish: finish, release: release, deadlines: deadlines, output: output)
                case .throwsBeforeTheExec:
                    throw RemoteShellError(.cleanup, host: inner.host.name, "the cleanup exec did not run (test)")
                case .releaseReportsAnError:
                    let failing = release.map { _ in ShellCommand(["sh", "-c", #"printf 'error\t0\tcannot remove the lease (test)\n'"#]) }
                    return try await inner.finishAndRemoveJobDirectory(directory, finish: finish, release: failing, deadlines: deadlines, output: output)
                }
            })
        })
        let report = try await runner.run()
        let leases = host.workRoot + "/" + HostLeaseScript.directoryName
        let held = ((try? FileManager.default.contentsOfDirectory(atPath: leases)) ?? []).filter { $0.hasPrefix("slot-") }.sorted()
        return (report, calls, held)
    }

    func testTheLastCleanupReleasesEveryIdleSlotLeaseInItsOwnExec() async throws {
        let r = try await run(.real)
        XCTAssertEqual(r.report.exitCode, 0, r.report.verdictLine + " " + r.report.notes.joined(separator: " | "))
        let calls = r.calls.all
        XCTAssertEqual(calls.carried.count, 1, "the one attempt's cleanup carried the release: \(calls.carried)")
        XCTAssertEqual(calls.carried.first?.first, "release")
        XCTAssertEqual(calls.carried.first?.last, "0,1", "its own slot's lease and the idle slot's")
        XCTAssertEqual(calls.own, [], "no lease release on an exec of its own")
        XCTAssertEqual(r.held, [], "no slot lease is left on the host")
        XCTAssertFalse(r.report.notes.contains { $0.contains("releasing the slot lease") }, "\(r.report.notes)")
    }

    /// The cleanup finishes the attempt's process record without removing the job folder, so the
    /// folder becomes a kept tree, and the next run's push takes it (the trees hold only that run's).
    func testTheCleanupKeepsTheJobTreeAndTheNextRunsPushTakesIt() async throws {
        let host = try host()
        let trees = host.workRoot + "/.cache/trees"
        func kept() -> [String] {
            ((try? FileManager.default.contentsOfDirectory(atPath: trees)) ?? []).filter { name in
                var isDirectory: ObjCBool = false
                return !name.hasPrefix(".") && FileManager.default.fileExists(atPath: trees + "/" + name, isDirectory: &isDirectory) && isDirectory.boolValue
            }.sorted()
        }
        let first = try await run(.real, on: host)
        XCTAssertEqual(first.report.exitCode, 0, first.report.verdictLine + " " + first.report.notes.joined(separator: " | "))
        let afterFirst = kept()
        XCTAssertEqual(afterFirst.count, 1, "the attempt's job folder was kept as a tree: \(afterFirst)")
        let second = try await run(.real, on: host)
        XCTAssertEqual(second.report.exitCode, 0, second.report.verdictLine)
        let afterSecond = kept()
        XCTAssertEqual(afterSecond.count, 1, "the second push took the first run's tree, and its cleanup kept its own: \(afterSecond)")
        XCTAssertNotEqual(afterSecond, afterFirst)
        XCTAssertEqual(((try? FileManager.default.contentsOfDirectory(atPath: host.workRoot)) ?? []).filter { $0.hasPrefix("a.") }, [],
                       "no job folder is left in the work root")
    }

    func testSlotsTheCleanupCouldNotReleaseAreReleasedByTheTeardown() async throws {
        let r = try await run(.throwsBeforeTheExec)
        XCTAssertEqual(r.report.exitCode, 0, "a cleanup failure does not change the verdict: " + r.report.verdictLine)
        let calls = r.calls.all
        XCTAssertEqual(calls.carried.count, 1)
        XCTAssertEqual(calls.own.count, 1, "the teardown released what the cleanup could not: \(calls.own)")
        XCTAssertEqual(calls.own.first?.last, "0,1")
        XCTAssertEqual(r.held, [], "no slot lease is left on the host")
        XCTAssertTrue(r.report.notes.contains { $0.contains("the cleanup exec did not run (test)") }, "\(r.report.notes)")
    }

    func testAReleaseThatFailsInTheCleanupIsNoted() async throws {
        let r = try await run(.releaseReportsAnError)
        XCTAssertEqual(r.report.exitCode, 0, r.report.verdictLine)
        let calls = r.calls.all
        XCTAssertEqual(calls.carried.count, 1)
        XCTAssertEqual(calls.own, [], "a release that answered is not sent again")
        let notes = r.report.notes.filter { $0.contains("releasing the slot lease on") && $0.contains("cannot remove the lease (test)") }
        XCTAssertEqual(notes.count, 1, "\(r.report.notes)")
        // The leases were not released (the release was replaced): they expire after the TTL.
        XCTAssertEqual(r.held, ["slot-0", "slot-1"])
    }
}
