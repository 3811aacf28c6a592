import Foundation
import XCTest
@testable import XCFleetKit
import XCFleetCore
import XCFleetTestSupport

/// A package attempt's test selection travels on the command's standard input, not on its command
/// line: run by the real `sh` through `LocalShell` and through `SSHShell` to a real sshd on
/// loopback, with a stand-in test bundle that prints how it was started. Thousands of tests (more
/// than an SSH exec request or one Linux argument can carry) reach the bundle, split into parts.
final class PackageSelectionInputTests: XCTestCase {
    private var work: URL!

    override func setUpWithError() throws {
        work = try TestPaths.temporaryDirectory()
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: work)
    }

    /// A stand-in bundle: one line `RUN` with its arguments (`<`…`>` around each, long ones by their
    /// length and first and last words), then whatever it reads on its input (nothing: the bundle's
    /// input is never the selection). Exits `FAKE_STATUS_XCTEST` run plainly and
    /// `FAKE_STATUS_TESTING` as Swift Testing.
    private func fakeBundle() throws -> String {
        let path = work.appendingPathComponent("Fake PackageTests.xctest").path
        try Data(#"""
            #!/bin/sh
            printf 'RUN'
            for a in "$@"; do
              if [ ${#a} -gt 60 ]; then printf ' <%s bytes %s…%s>' "${#a}" "${a%%,*}" "${a##*,}"; else printf ' <%s>' "$a"; fi
            done
            printf '\n'
            cat
            if [ "${1:-}" = --testing-library ]; then exit "${FAKE_STATUS_TESTING:-0}"; fi
            exit "${FAKE_STATUS_XCTEST:-0}"

            """#.utf8).write(to: URL(fileURLWithPath: path))
        XCTAssertEqual(chmod(path, 0o755), 0)
        return path
    }

    private func runs(_ shell: any RemoteShell, _ command: ShellCommand, environment: [String: String] = [:]) async throws -> (CommandTermination, [String]) {
        var command = command
        command.environment = environment
        let sink = OutputSink(limit: 8 << 20)
        let t = try await shell.run(command, in: work.path, deadlines: CommandDeadlines(total: 60, silence: 60)) { sink.add($0) }
        XCTAssertEqual(sink.stderrText, "", "nothing on stderr")
        return (t, sink.stdoutText.split(separator: "\n").map(String.init))
    }

    private func check(_ shell: any RemoteShell) async throws {
        let bundle = try fakeBundle()
        let xctest = (0..<4_000).map { "BigTests.Part\($0 / 100)Tests/testNumber\($0)" }
        let testing = (0..<1_500).map { "BigTests.Suite\($0 / 100)/check\($0)()" }
        let all = xctest + testing
        // 4,000 XCTest names are about 150 kB: more than one argument may be, so two XCTest runs.
        let some = PackageTestCommands.run(bundle: bundle, packageFolder: work.path, darwin: false, selected: all, all: all, swiftTesting: Set(testing))
        XCTAssertGreaterThan(some.input?.count ?? 0, 150_000, "far more than an SSH exec request carries")
        let (t, lines) = try await runs(shell, some)
        XCTAssertEqual(t, .exited(0))
        XCTAssertEqual(lines.count, 3, lines.joined(separator: "\n"))
        XCTAssertTrue(lines[0].hasPrefix("RUN <") && lines[0].contains(" bytes BigTests.Part0Tests/testNumber0…"), lines[0])
        XCTAssertTrue(lines[1].hasSuffix("…BigTests.Part39Tests/testNumber3999>"), lines[1])
        XCTAssertTrue(lines[2].hasPrefix("RUN <--testing-library> <swift-testing> <--filter> <"), lines[2])
        XCTAssertEqual(lines[2].components(separatedBy: "<--filter>").count - 1, 1, "1,500 Swift Testing names fit one --filter")

        // Every test: each library unfiltered; a failing XCTest run makes the command fail, and
        // Swift Testing still runs.
        let every = PackageTestCommands.run(bundle: bundle, packageFolder: work.path, darwin: false, selected: nil, all: all, swiftTesting: Set(testing))
        let (failed, plain) = try await runs(shell, every, environment: ["FAKE_STATUS_XCTEST": "1"])
        XCTAssertEqual(failed, .exited(1))
        XCTAssertEqual(plain, ["RUN", "RUN <--testing-library> <swift-testing>"])
        // Only Swift Testing selected, and it fails: XCTest is not started.
        let one = PackageTestCommands.run(bundle: bundle, packageFolder: work.path, darwin: false, selected: [testing[7]], all: all, swiftTesting: Set(testing))
        let (status, only) = try await runs(shell, one, environment: ["FAKE_STATUS_TESTING": "3"])
        XCTAssertEqual(status, .exited(3))
        XCTAssertEqual(only, [#"RUN <--testing-library> <swift-testing> <--filter> <^(BigTests\.Suite0/check7\(\))(/|$)>"#])
    }

    /// The macOS form (`swift test --skip-build --package-path`) is plain `sh` and `swift test`, so
    /// it runs here too, on a real build of the Shelf fixture: only the selected tests run, and a
    /// Swift Testing attachment lands in the attachments folder (`--attachments-path`, which this
    /// `swift test` lists).
    func testTheMacFormRunsSwiftTestWithTheSelectionAndTheAttachmentsFolder() async throws {
        let package = work.appendingPathComponent("Shelf")
        try FileManager.default.copyItem(at: TestPaths.fixtures.appendingPathComponent("packages/Shelf"), to: package)
        let build = try await runCommandOffPool(URL(fileURLWithPath: "/opt/swift/usr/bin/swift"), ["build", "--build-tests", "--package-path", package.path])
        XCTAssertEqual(build.status, 0, build.stderr)
        let folder = work.appendingPathComponent("attachments")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let selected = ["ShelfTests.CapacityTests/testZeroCapacity", "ShelfSwiftTests.emptyShelfIsNotFull()"]
        var command = PackageTestCommands.run(bundle: "", packageFolder: package.path, darwin: true, selected: selected, all: [], swiftTesting: [])
        command.environment = ["XCFLEET_ATTACHMENTS_DIR": folder.path]
        let sink = OutputSink(limit: 8 << 20)
        let shell = LocalShell(host: HostSpec(name: "local", transport: .local, workRoot: work.path, toolchain: ToolchainSpec(swiftPath: "/opt/swift/usr/bin/swift")))
        let t = try await shell.run(command, in: package.path, deadlines: CommandDeadlines(total: 300, silence: 300)) { sink.add($0) }
        let out = sink.stdoutText + sink.stderrText
        XCTAssertEqual(t, .exited(0), out)
        XCTAssertTrue(out.contains("testZeroCapacity") && out.contains("emptyShelfIsNotFull()"), out)
        for other in ["testPutAndTake", "testFullShelfRefuses", "lastInFirstOut()"] { XCTAssertFalse(out.contains(other), "\(other) was not selected:\n\(out)") }
        let saved = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        XCTAssertTrue(saved.contains { $0.hasPrefix("shelf-state") }, "the attachment was saved: \(saved)")
    }

    /// A chained shard's or rerun's selection rides the exec line (the exec's input is the push's):
    /// `inputAsArguments` writes the same lines to a file that becomes the command's input, so the
    /// bundle is started exactly as with the selection on its input, names with spaces, quotes and
    /// `$` included; a failing part still fails the command.
    private func checkCarried(_ shell: any RemoteShell) async throws {
        let bundle = try fakeBundle()
        let xctest = ["Odd Tests.It's/test $HOME", "OddTests.A/testB"], testing = ["OddTests.S/`raw name`()"]
        let all = xctest + testing + ["OddTests.A/testNotSelected"]
        let selected = xctest + testing
        let plain = PackageTestCommands.run(bundle: bundle, packageFolder: work.path, darwin: false, selected: selected, all: all, swiftTesting: Set(testing))
        let file = work.appendingPathComponent(".xcfleet-selection").path
        let carried = try XCTUnwrap(PackageTestCommands.inputAsArguments(plain, file: file))
        XCTAssertNil(carried.input, "nothing on the input")
        let (t1, onInput) = try await runs(shell, plain)
        let (t2, onLine) = try await runs(shell, carried, environment: ["FAKE_STATUS_TESTING": "4"])
        XCTAssertEqual(t1, .exited(0))
        XCTAssertEqual(t2, .exited(4), "the failing part fails the command")
        XCTAssertEqual(onLine, onInput)
        XCTAssertEqual(onLine.first, "RUN <Odd Tests.It's/test $HOME,OddTests.A/testB>")
        XCTAssertEqual(try String(contentsOfFile: file, encoding: .utf8), String(decoding: plain.input ?? [], as: UTF8.self))
        // Input that is not whole lines cannot be carried so (the caller then does not chain).
        XCTAssertNil(PackageTestCommands.inputAsArguments(ShellCommand(["cat"], input: Array("no newline".utf8)), file: file))
        XCTAssertEqual(PackageTestCommands.inputAsArguments(ShellCommand(["cat"]), file: file), ShellCommand(["cat"]))
    }

    func testTheSelectionCarriedOnTheCommandLineStartsTheBundleTheSameWay() async throws {
        try await checkCarried(LocalShell(host: HostSpec(name: "local", transport: .local, workRoot: work.path)))
        let shell = try await TestHosts.shell(workRoot: work.path)
        defer { Task { await shell.close() } }
        try await checkCarried(shell)
    }

    func testTheLocalHostGetsTheSelectionOnItsInput() async throws {
        try await check(LocalShell(host: HostSpec(name: "local", transport: .local, workRoot: work.path)))
    }

    func testAnSSHHostGetsTheSelectionOnItsInput() async throws {
        let shell = try await TestHosts.shell(workRoot: work.path)
        defer { Task { await shell.close() } }
        try await check(shell)
    }
}
