import Foundation
import XCTest
@testable import XCFleetKit
import XCFleetTestSupport

/// Forged process records against the real `xcfleet` binary on the built-in local host (the fake
/// `swift`): a record naming an unrelated `setsid sleep` with an empty start time, a record whose
/// `dir` names another folder, a `procs` folder anyone can write, and a run under `umask 000`.
final class ForgedProcessRecordTests: XCTestCase {
    private var dir: URL!
    private var work: String!
    private var fleet: URL!

    override func setUpWithError() throws {
        dir = try TestPaths.temporaryDirectory()
        work = dir.appendingPathComponent("work").path
        fleet = try FakeToolchain.localFleet(in: dir, hostKeys: #""workRoot": "\#(work!)", "#)
        for d in [work!, work + "/.xcfleet-leases", work + "/.xcfleet-leases/procs", work + "/.xcfleet-leases/procs/forged-lease"] {
            try FileManager.default.createDirectory(atPath: d, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: d)
        }
    }

    private func runPlan(umask: String? = nil) throws -> CommandResult {
        let args = ["run", "Plans/cache-contract.json", "--fleet", fleet.path, "--runs", dir.appendingPathComponent("runs").path, "--no-history"]
        guard let umask else { return try FakeToolchain.xcfleet(args) }
        return try runCommand(URL(fileURLWithPath: "/bin/sh"), ["-c", "umask \(umask); exec \"$@\"", "sh", TestPaths.xcfleetBinary.path] + args,
                              cwd: TestPaths.packageRoot, environment: FakeToolchain.clearedEnvironment)
    }

    private func notes() throws -> [String] {
        let runs = dir.appendingPathComponent("runs")
        let run = try XCTUnwrap(try FileManager.default.contentsOfDirectory(atPath: runs.path).sorted().last)
        return try EventLog.read(runs.appendingPathComponent(run).appendingPathComponent("events.jsonl"))
            .compactMap { if case .note(let n) = $0.body { return n } else { return nil } }
    }

    private func isLive(_ pid: Int32) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8) else { return false }
        return stat.split(separator: ")").last?.split(separator: " ").first != "Z"
    }

    /// `setsid sleep 1000`, detached from the test's output; returns its pid (its pgid).
    private func startSleeper() throws -> Int32 {
        let out = try TestShell.run("perl -MPOSIX -e 'my $p = fork; die unless defined $p; if ($p) { print \"$p\\n\"; exit 0 } POSIX::setsid(); POSIX::close($_) for 3 .. 1023; open(STDIN, \"<\", \"/dev/null\"); open(STDOUT, \">\", \"/dev/null\"); open(STDERR, \">\", \"/dev/null\"); exec(\"sleep\", \"1000\")'")
        let pid = try XCTUnwrap(Int32(out.trimmingCharacters(in: .whitespacesAndNewlines)))
        let end = Date().addingTimeInterval(5)
        while Date() < end, (try? TestShell.run("ps -o pgid=,args= -p \(pid)").contains("\(pid) sleep")) != true { usleep(20_000) }
        return pid
    }

    func testACraftedRecordNeitherKillsAnUnrelatedGroupNorRemovesAnotherFolder() throws {
        let sleeper = try startSleeper()
        defer { kill(sleeper, SIGKILL) }
        XCTAssertTrue(isLive(sleeper))
        let other = try TestPaths.temporaryDirectory("not-a-job")
        try Data("keep".utf8).write(to: other.appendingPathComponent("file"))
        let boot = try String(contentsOfFile: "/proc/sys/kernel/random/boot_id", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        let records = work + "/.xcfleet-leases/procs/forged-lease"
        try "pgid=\(sleeper)\nstart=\ndir=\(other.path)\nrun=r\nlease=forged-lease\n".write(toFile: records + "/gate-a1", atomically: true, encoding: .utf8)
        // Complete, of a group that is gone, but its dir is not a job folder of this work root.
        try "pgid=999999\nstart=Mon Jan  1 00:00:00 2001\nboot=\(boot)\ndir=\(other.path)\nrun=r\nlease=forged-lease\n"
            .write(toFile: records + "/gate-a2", atomically: true, encoding: .utf8)

        let r = try runPlan()
        XCTAssertEqual(r.status, 0, r.stdout + r.stderr)
        XCTAssertTrue(isLive(sleeper), "an unrelated process was killed")
        XCTAssertTrue(FileManager.default.fileExists(atPath: other.appendingPathComponent("file").path), "another folder was deleted")
        let notes = try notes()
        XCTAssertTrue(notes.contains("local: ignored the process record gate-a1: no boot"), "\(notes)")
        XCTAssertFalse(notes.contains { $0.contains("killed") }, "\(notes)")
        XCTAssertTrue(notes.contains("local: reaped the process record of a dead run: gate-a2 999999 gone"), "\(notes)")
    }

    func testAProcsFolderAnyoneCanWriteIsRefused() throws {
        try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: work + "/.xcfleet-leases/procs")
        let r = try runPlan()
        XCTAssertEqual(r.status, Verdict.ExitCode.infrastructure, r.stdout + r.stderr)
        XCTAssertTrue((r.stdout + r.stderr).contains("refusing process-record folder \(work!)/.xcfleet-leases/procs: group- or world-writable"),
                      r.stdout + r.stderr)
    }

    func testUnderUmask000TheRecordFoldersArePrivate() throws {
        try FileManager.default.removeItem(atPath: work + "/.xcfleet-leases")
        let r = try runPlan(umask: "000")
        XCTAssertEqual(r.status, 0, r.stdout + r.stderr)
        let procs = work + "/.xcfleet-leases/procs"
        let leases = try FileManager.default.contentsOfDirectory(atPath: procs)
        XCTAssertFalse(leases.isEmpty, "the run's lease folder stays until the next admission")
        for path in [work + "/.xcfleet-leases", procs] + leases.map({ procs + "/" + $0 }) {
            let mode = (try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.intValue
            XCTAssertEqual(mode, 0o700, path)
        }
    }
}
