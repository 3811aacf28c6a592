import Foundation
import XCTest
@testable import XCFleetKit
import XCFleetCore
import XCFleetTestSupport

/// An Xcode attempt's test selection travels on the command's standard input and the host builds
/// xcodebuild's arguments from it: run by the real `sh` through `LocalShell` and through `SSHShell`
/// to a real sshd on loopback, with a stand-in `xcodebuild` on PATH that prints its arguments.
/// 5,000 selected tests (far more than the some 700 `-only-testing:` words one SSH exec request
/// carries) reach it, each exactly once; a selection longer than one run may take runs in parts,
/// each with its own result bundle. No Mac here: the real xcodebuild has not read these arguments.
final class XcodeSelectionInputTests: XCTestCase {
    private var work: URL!

    override func setUpWithError() throws {
        work = try TestPaths.temporaryDirectory("xcode-selection")
        let bin = work.appendingPathComponent("bin")
        try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
        // One `RUN` line, then one `ARG <word>` line per argument; what it reads on its input (the
        // selection must not reach it); `FAKE_FAIL_BUNDLE` names a result bundle whose run fails.
        try Data(#"""
            #!/bin/sh
            echo RUN
            for a in "$@"; do printf 'ARG <%s>\n' "$a"; done
            cat
            for a in "$@"; do [ "$a" != "${FAKE_FAIL_BUNDLE:-}" ] || exit 65; done
            exit 0

            """#.utf8).write(to: bin.appendingPathComponent("xcodebuild"))
        XCTAssertEqual(chmod(bin.appendingPathComponent("xcodebuild").path, 0o755), 0)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: work)
    }

    private static let run = "/w/builds/k/DerivedData/Build/Products/App Tests_iphonesimulator18.4-arm64.xctestrun"

    private func runs(_ shell: any RemoteShell, _ command: ShellCommand, failing: String? = nil) async throws -> (CommandTermination, [[String]], String) {
        var command = command
        command.environment["PATH"] = work.appendingPathComponent("bin").path + ":/usr/bin:/bin"
        if let failing { command.environment["FAKE_FAIL_BUNDLE"] = failing }
        let sink = OutputSink(limit: 16 << 20)
        let t = try await shell.run(command, in: work.path, deadlines: CommandDeadlines(total: 60, silence: 60)) { sink.add($0) }
        var found: [[String]] = []
        for line in sink.stdoutText.split(separator: "\n", omittingEmptySubsequences: false) {
            if line == "RUN" { found.append([]) }
            else if line.hasPrefix("ARG <"), line.hasSuffix(">"), !found.isEmpty { found[found.count - 1].append(String(line.dropFirst(5).dropLast())) }
            else if !line.isEmpty { XCTFail("xcodebuild read or printed something else: \(line.prefix(200))") }
        }
        return (t, found, sink.stderrText)
    }

    private func check(_ shell: any RemoteShell) async throws {
        // Names of every shape: Swift Testing's parentheses and labels, a space, quotes, `$`, a glob.
        let names = (0..<5_000).map { i -> String in
            switch i % 5 {
            case 0: return "AppTests/Part\(i / 100)Tests/testNumber\(i)"
            case 1: return "AppTests/Suite\(i / 100)/check\(i)(size:)"
            case 2: return "App Tests/It's \(i)/test$HOME\(i)"
            case 3: return "AppTests/Glob*\(i)/test`x`\(i)()"
            default: return "AppTests/Ünïcode\(i)/tëst\(i)"
            }
        }
        let bundle = work.appendingPathComponent("result.xcresult").path
        let one = XcodeProjectCommands.testWithoutBuilding(xctestrun: Self.run, destination: "platform=iOS Simulator,id=ABC", resultBundlePath: bundle,
                                                           only: names, skip: ["AppTests/Slow"])
        XCTAssertGreaterThan(one.input?.count ?? 0, 150_000, "far more than an SSH exec request carries")
        XCTAssertLessThan(XcodeCommandLine.render(one).utf8.count, 4_000, "the command line does not grow with the selection")
        let (t, found, err) = try await runs(shell, one)
        XCTAssertEqual(t, .exited(0), err)
        XCTAssertEqual(found.count, 1, "5,000 tests are one run (about 350 kB of arguments)")
        let args = found.first ?? []
        XCTAssertEqual(Array(args.prefix(5)), ["test-without-building", "-xctestrun", Self.run, "-destination", "platform=iOS Simulator,id=ABC"])
        let only = args.filter { $0.hasPrefix("-only-testing:") }.map { String($0.dropFirst("-only-testing:".count)) }
        XCTAssertEqual(only.count, 5_000)
        XCTAssertEqual(Set(only).count, only.count, "no name twice")
        XCTAssertTrue(Set(only) == Set(names), "every name arrives, unchanged; missing: \(Array(Set(names).subtracting(only).prefix(3)))")
        XCTAssertEqual(args.filter { $0.hasPrefix("-skip-testing:") }, ["-skip-testing:AppTests/Slow"])
        XCTAssertEqual(args.filter { $0 == "-resultBundlePath" }.count, 1)
        XCTAssertEqual(args.firstIndex(of: "-resultBundlePath").map { args[$0 + 1] }, bundle)

        // In parts (a selection longer than one run may take): every name once across the runs,
        // each run its own result bundle and the skip; a failing run fails the command, and the
        // runs after it still run.
        let small = 100_000
        let split = XcodeProjectCommands.testWithoutBuilding(xctestrun: Self.run, destination: "platform=macOS", resultBundlePath: bundle,
                                                             only: names, skip: ["AppTests/Slow"], partBytes: small)
        let bundles = XcodeProjectCommands.resultBundles(resultBundlePath: bundle, only: names, partBytes: small)
        XCTAssertGreaterThan(bundles.count, 2)
        let (failed, parts, _) = try await runs(shell, split, failing: bundles[1])
        XCTAssertEqual(failed, .exited(65), "the first failing run's status")
        XCTAssertEqual(parts.count, bundles.count, "every part ran")
        var seen: [String: Int] = [:]
        for (part, b) in zip(parts, bundles) {
            let at = try XCTUnwrap(part.firstIndex(of: "-resultBundlePath"))
            XCTAssertEqual(part[at + 1], b)
            XCTAssertEqual(part.filter { $0.hasPrefix("-skip-testing:") }, ["-skip-testing:AppTests/Slow"])
            let selected = part.filter { $0.hasPrefix("-only-testing:") }
            XCTAssertLessThanOrEqual(selected.reduce(0) { $0 + $1.utf8.count + 9 }, small)
            for s in selected { seen[String(s.dropFirst("-only-testing:".count)), default: 0] += 1 }
        }
        // The test doubles' reading of the script (`runs(of:)`) is what the script really does.
        XCTAssertEqual(XcodeProjectCommands.runs(of: split)?.map { Array($0.arguments.dropFirst()) }, parts)
        XCTAssertEqual(seen.count, 5_000)
        XCTAssertEqual(Set(seen.values), [1], "no name twice")

        // A line break inside a name (refused by the enumeration already) or any other control
        // character: the host refuses the whole selection and runs nothing.
        for evil in ["AppTests/C/testA\nAppTests/C/testB", "AppTests/C/test\u{1B}[2Jx", "AppTests/C/test\rx"] {
            let bad = XcodeProjectCommands.testWithoutBuilding(xctestrun: Self.run, destination: "platform=macOS", resultBundlePath: bundle,
                                                               only: [names[0], evil])
            let (refused, none, why) = try await runs(shell, bad)
            XCTAssertEqual(refused, .exited(2), why)
            XCTAssertEqual(none.count, 0, "nothing ran for \(evil.debugDescription)")
            XCTAssertTrue(why.contains("xcfleet: refusing the test selection"), why)
        }
        // No selection at all on its input (a transport that lost it): refused, not "every test".
        var empty = one
        empty.input = []
        let (lost, nothing, said) = try await runs(shell, empty)
        XCTAssertEqual(lost, .exited(2), said)
        XCTAssertEqual(nothing.count, 0)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: work.path).filter { $0.hasPrefix(".xcfleet-selection") }
        XCTAssertEqual(leftovers, [], "the kept selection is removed")
    }

    func testTheLocalHostBuildsXcodebuildsArgumentsFromItsInput() async throws {
        try await check(LocalShell(host: HostSpec(name: "local", transport: .local, workRoot: work.path)))
    }

    func testAnSSHHostBuildsXcodebuildsArgumentsFromItsInput() async throws {
        let shell = try await TestHosts.shell(workRoot: work.path)
        defer { Task { await shell.close() } }
        try await check(shell)
    }
}
