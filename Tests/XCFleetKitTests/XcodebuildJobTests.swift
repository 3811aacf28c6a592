import Foundation
import XCTest
@testable import XCFleetKit
import XCFleetTestSupport

/// The whole Apple sequence over a scripted `RemoteShell` double (no Mac here): the exact commands in
/// order, the decisions between them, and what comes back. The xcodebuild output fed in is either
/// hand-written or the real recorded logs in ../shared/fixtures/logs.
final class XcodebuildJobTests: XCTestCase {
    typealias Reply = ScriptedShell.Reply
    static let dir = "/Users/ci/xcfleet/jobs/cache-contract-1a2b"
    static let dev = "/Applications/Xcode_16.4.app/Contents/Developer"
    static let env = "DEVELOPER_DIR=\(dev) "
    static let udid = "9F1C2B3A-4D5E-6F70-8192-A3B4C5D6E7F8"
    let env = XcodebuildJobTests.env, udid = XcodebuildJobTests.udid, dir = XcodebuildJobTests.dir
    static let products = "\(dir)/DerivedData/Build/Products"
    static let iosXctestrun = "xcfleet-cache-contract-Package_iphonesimulator18.4-arm64-x86_64.xctestrun"
    static let macXctestrun = "xcfleet-cache-contract-Package_macosx15.5-arm64.xctestrun"
    /// `ls -1t` of a products folder after build-for-testing (newest first), as on a Mac with Xcode 16.
    static let iosListing = "\(iosXctestrun)\nDebug-iphonesimulator\nPackageFrameworks\n"
    static let macListing = "\(macXctestrun)\nDebug\nPackageFrameworks\n"
    let products = XcodebuildJobTests.products

    func host(slots: Int = 2, developerDir: String? = nil, xcode: String? = nil) -> HostSpec {
        HostSpec(name: "mac-1", address: "10.0.0.5", user: "ci", labels: ["platform:macos"], slots: slots,
                 toolchain: ToolchainSpec(developerDir: developerDir, xcode: xcode))
    }

    func input(destination: String?, xcode: String? = "16.4", only: [String]? = nil, derivedData: String? = nil, needsBuild: Bool = true,
               environment: [String: String] = [:]) -> XcodebuildJob.Input {
        var i = XcodebuildJob.Input(jobID: "cache-contract", suite: SuiteSpec(name: "cache-contract", template: "cache-contract", destination: destination, xcode: xcode),
                            packageName: "xcfleet-cache-contract", testTarget: "CacheContractTests",
                            derivedDataPath: derivedData, needsBuild: needsBuild, testEnvironment: environment)
        // `only`: the discovered tests this attempt runs (as a rerun of them chooses them).
        if let only { i.selection.rerun = only.map { "CacheContractTests." + $0 } }
        return i
    }

    /// What `-enumerate-tests` lists for the rendered cache-contract package: the four tests `streamedRun` runs.
    static let enumeration = """
    {"errors": [], "values": [{"testPlan": "xcfleet-cache-contract-Package", "enabledTests": [
      {"identifier": "CacheContractTests/MemoryKeyTests/testC1_sameResourceOtherAccountMisses()"},
      {"identifier": "CacheContractTests/MemoryKeyTests/testC1_revisionChangeNeverReturnsOldValue()"},
      {"identifier": "CacheContractTests/DictionaryCacheTests/testC10_doubleNeverEvicts()"},
      {"identifier": "CacheContractTests/DictionaryCacheTests/testC10_seededDoubleHitsWithoutAStore()"}], "disabledTests": []}]}
    """

    /// The enumeration command as the discover step sends it for `xctestrun` on `destination`.
    func enumerateLine(_ xctestrun: String, destination: String, env: String? = nil) -> String {
        (env ?? self.env) + "xcodebuild test-without-building -xctestrun \(xctestrun) -destination \(destination) -enumerate-tests -test-enumeration-format json -test-enumeration-style flat -test-enumeration-output-path \(dir)/\(XcodebuildJob.enumerationName)"
    }

    /// Runs the job; returns the outcome, what the output callback parsed, and the progress notes.
    /// `enumeration`: what the discover step's `-enumerate-tests` writes (nil: the test provides it).
    func run(_ shell: ScriptedShell, _ input: XcodebuildJob.Input, boot: Double = 300,
             enumeration: String? = XcodebuildJobTests.enumeration) async -> (XcodebuildJob.Outcome, [TestEvent], [XcodebuildJob.Progress]) {
        if let enumeration {
            shell.prepend("*-enumerate-tests", Reply())
            shell.provide(XcodebuildJob.enumerationName, Data(enumeration.utf8))
        }
        final class Box: @unchecked Sendable {
            let lock = NSLock()
            var parser = OutputParser()
            var events: [TestEvent] = []
            var progress: [XcodebuildJob.Progress] = []
        }
        let box = Box()
        let job = XcodebuildJob(shell: shell, directory: dir, input: input, deadlines: XcodebuildJob.Deadlines(timeouts: .defaults, bootSeconds: boot))
        let outcome = await job.run(output: { chunk in
            box.lock.lock(); defer { box.lock.unlock() }
            box.events += box.parser.consume(chunk.bytes)
        }, progress: { p in
            box.lock.lock(); defer { box.lock.unlock() }
            box.progress.append(p)
        })
        box.events += box.parser.finish()
        return (outcome, box.events, box.progress)
    }

    func simulatorScript(devicesReply: Reply? = nil) throws -> [(String, Reply)] {
        let devices = try devicesReply ?? Reply(stdout: XcodeFixtures.text("simctl-devices.json"), chunkSize: 100)
        return [
            ("ls -1 /Applications", Reply(stdout: "Safari.app\nXcode-15.4.app\nXcode_16.4.app\nXcode.app\n")),
            (env + "xcodebuild -version", Reply(stdout: XcodeFixtures.versionOutput("16.4", "16F6"))),
            (env + "xcrun simctl list devices", devices),
            (env + "xcrun simctl list devicetypes", Reply(stdout: try XcodeFixtures.text("simctl-devicetypes.json"), chunkSize: 100)),
            (env + "xcrun simctl list runtimes", Reply(stdout: try XcodeFixtures.text("simctl-runtimes.json"), chunkSize: 100)),
            (env + "xcrun simctl create", Reply(stdout: udid + "\n")),
            (env + "xcrun simctl erase", Reply()),
            (env + "xcrun simctl boot ", Reply()),
            (env + "xcrun simctl bootstatus", Reply(stdout: "Monitoring boot status for xcfleet cache-contract (\(udid)).\nDevice already booted, nothing to do.\n")),
            (env + "xcodebuild -list -json", Reply(stdout: try XcodeFixtures.text("xcodebuild-list.json"))),
            (env + "xcodebuild build-for-testing", Reply(stdout: "Build description signature: 1a2b\n** TEST BUILD SUCCEEDED **\n")),
            ("ls -1t ", Reply(stdout: Self.iosListing)),
            (env + "xcrun simctl shutdown", Reply()),
            (env + "xcrun simctl delete", Reply()),
        ]
    }

    static let streamedRun = """
    Test Suite 'All tests' started at 2025-06-01 12:00:00.000
    Test Suite 'CacheContractTests.xctest' started at 2025-06-01 12:00:00.001
    Test Suite 'MemoryKeyTests' started at 2025-06-01 12:00:00.001
    Test Case '-[CacheContractTests.MemoryKeyTests testC1_sameResourceOtherAccountMisses]' started.
    Test Case '-[CacheContractTests.MemoryKeyTests testC1_sameResourceOtherAccountMisses]' passed (0.003 seconds).
    Test Case '-[CacheContractTests.MemoryKeyTests testC1_revisionChangeNeverReturnsOldValue]' started.
    Test Case '-[CacheContractTests.MemoryKeyTests testC1_revisionChangeNeverReturnsOldValue]' passed (0.120 seconds).
    Test Suite 'MemoryKeyTests' passed at 2025-06-01 12:00:00.125.
    Test Suite 'DictionaryCacheTests' started at 2025-06-01 12:00:00.125
    Test Case '-[CacheContractTests.DictionaryCacheTests testC10_doubleNeverEvicts]' started.
    Test Case '-[CacheContractTests.DictionaryCacheTests testC10_doubleNeverEvicts]' passed (0.001 seconds).
    Test Case '-[CacheContractTests.DictionaryCacheTests testC10_seededDoubleHitsWithoutAStore]' started.
    /Users/ci/xcfleet/jobs/cache-contract-1a2b/Tests/CacheContractTests/DictionaryCacheTests.swift:30: -[CacheContractTests.DictionaryCacheTests testC10_seededDoubleHitsWithoutAStore] : Test skipped - needs a Mac with 16 GB
    Test Case '-[CacheContractTests.DictionaryCacheTests testC10_seededDoubleHitsWithoutAStore]' skipped (0.000 seconds).
    Test Suite 'DictionaryCacheTests' passed at 2025-06-01 12:00:00.127.
    \t Executed 4 tests, with 1 test skipped and 0 failures (0 unexpected) in 0.124 (0.127) seconds

    ** TEST SUCCEEDED **

    """

    func testIOSSimulatorByNameCreatesBootsTestsReconcilesAndDeletes() async throws {
        let bundle = "\(dir)/result.xcresult"
        let shell = ScriptedShell(host: host(slots: 2), script: try simulatorScript() + [
            (env + "xcodebuild test", Reply(stdout: Self.streamedRun, termination: .exited(0), chunkSize: 13)),
            (env + "xcrun xcresulttool get test-results", Reply(stdout: try XcodeFixtures.text("xcresult-test-results.json"), chunkSize: 500)),
        ])
        let (outcome, streamed, progress) = await run(shell, input(destination: "platform=iOS Simulator,name=iPhone 16,OS=18.4"))
        XCTAssertEqual(shell.ran, [
            "ls -1 /Applications",
            env + "xcodebuild -version",
            env + "xcodebuild -list -json",
            env + "xcodebuild build-for-testing -scheme xcfleet-cache-contract-Package -destination 'generic/platform=iOS Simulator' -derivedDataPath \(dir)/DerivedData CODE_SIGNING_ALLOWED=NO",
            env + "xcrun simctl list devices available -j",
            env + "xcrun simctl list devicetypes -j",
            env + "xcrun simctl list runtimes -j",
            env + "xcrun simctl create 'xcfleet cache-contract' com.apple.CoreSimulator.SimDeviceType.iPhone-16 com.apple.CoreSimulator.SimRuntime.iOS-18-4",
            env + "xcrun simctl erase \(udid)",
            env + "xcrun simctl boot \(udid)",
            env + "xcrun simctl bootstatus \(udid) -b",
            "ls -1t \(products)",
            enumerateLine("\(products)/\(Self.iosXctestrun)", destination: "'platform=iOS Simulator,id=\(udid)'"),
            "fetch \(XcodebuildJob.enumerationName)",
            env + "xcodebuild test-without-building -xctestrun \(products)/\(Self.iosXctestrun) -destination 'platform=iOS Simulator,id=\(udid)' -resultBundlePath \(bundle) -enableCodeCoverage NO -collect-test-diagnostics on-failure",
            env + "xcrun xcresulttool get test-results tests --path \(bundle)",
            env + "xcrun simctl shutdown \(udid)",
            env + "xcrun simctl delete \(udid)",
        ])
        XCTAssertNil(outcome.infraError)
        XCTAssertEqual(outcome.termination, .exited(0))
        XCTAssertEqual(outcome.xcode, XcodeVersion(version: "16.4", build: "16F6"))
        XCTAssertEqual(outcome.developerDir, Self.dev)
        XCTAssertEqual(outcome.simulatorUDID, udid)
        XCTAssertTrue(outcome.createdSimulator)
        XCTAssertEqual(outcome.scheme, "xcfleet-cache-contract-Package")
        XCTAssertEqual(outcome.xctestrun, "\(products)/\(Self.iosXctestrun)")
        // Deadlines: boot under the boot deadline, the build under the build deadline, the tests under the test deadline.
        XCTAssertEqual(shell.deadlines(of: env + "xcrun simctl bootstatus"), CommandDeadlines(total: 300, silence: 300))
        XCTAssertEqual(shell.deadlines(of: env + "xcodebuild build-for-testing"), CommandDeadlines(total: 900, silence: 300))
        XCTAssertEqual(shell.deadlines(of: env + "xcodebuild test-without-building -xctestrun \(products)/\(Self.iosXctestrun) -destination 'platform=iOS Simulator,id=\(udid)' -resultBundlePath"), CommandDeadlines(total: 900, silence: 300))
        XCTAssertEqual(shell.deadlines(of: enumerateLine("\(products)/\(Self.iosXctestrun)", destination: "'platform=iOS Simulator,id=\(udid)'")),
                       CommandDeadlines(total: 300, silence: 300), "the listing runs under the query deadline")
        // The stream was delivered (in 13-byte chunks) and parses.
        let finished = streamed.compactMap { e -> TestStatus? in if case .testFinished(_, let s, _, _, _) = e { return s } else { return nil } }
        XCTAssertEqual(finished, [.passed, .passed, .passed, .skipped])
        // Two witnesses: one test flipped to failed in the bundle, one Swift Testing test only in
        // the bundle. Both are disagreements, and each makes the attempt red.
        let notes = [
            "MemoryKeyTests/testC1_revisionChangeNeverReturnsOldValue: the output said passed, the result bundle says failed",
            "KeySuite/keyEquality: passed in the result bundle, missing from the output",
        ]
        XCTAssertEqual(outcome.disagreements, notes)
        let flipped = TestIdentifier(suite: "CacheContractTests.MemoryKeyTests", name: "testC1_revisionChangeNeverReturnsOldValue")
        XCTAssertEqual(outcome.extraEvents, [
            .testFinished(TestIdentifier(suite: "CacheContractTests.KeySuite", name: "keyEquality"), status: .passed, seconds: 0.0004, framework: .xctest, clone: nil),
        ] + notes.map { .witnessDisagreement($0) })
        // What the integrator will fold: the attempt is red because the witnesses disagree.
        let report = Collator.attemptReport(events: streamed + outcome.extraEvents, ended: AttemptEnded(termination: outcome.termination), host: "mac-1", slot: 0, number: 1)
        XCTAssertEqual(report.tests.first { $0.id == flipped }?.status, .passed)
        XCTAssertTrue(Verdict.problems(of: report, expected: []).contains("the output and the result bundle disagree: " + notes[0]))
        XCTAssertTrue(progress.contains(.phaseStarted(.build)) && progress.contains(.phaseFinished(.test)) && progress.contains(.phaseFinished(.cleanup)))
        XCTAssertTrue(progress.contains(.note("mac-1: Xcode 16.4 (16F6) at \(Self.dev)")))
    }

    func testShardOnAnExistingSimulatorIsNotDeleted() async throws {
        // One slot: the existing "iPhone 16" is reused (shut down first, which may fail), never deleted.
        let existing = "5B2E9C4D-8F17-4A63-B0D2-91C7E5A3F408"
        var script = try simulatorScript()
        script.insert((env + "xcrun simctl shutdown \(existing)", Reply(stderr: "Unable to shutdown device in current state: Shutdown\n", termination: .exited(149))), at: 0)
        let shell = ScriptedShell(host: host(slots: 1), script: script + [
            (env + "xcodebuild test", Reply(stdout: Self.streamedRun)),
            (env + "xcrun xcresulttool", Reply(stdout: try XcodeFixtures.text("xcresult-test-results.json"))),
        ])
        let (outcome, _, _) = await run(shell, input(destination: "platform=iOS Simulator,name=iPhone 16,OS=18.4",
                                                      only: ["MemoryKeyTests/testC1_revisionChangeNeverReturnsOldValue", "DictionaryCacheTests/testC10_doubleNeverEvicts"]))
        XCTAssertNil(outcome.infraError)
        XCTAssertFalse(outcome.createdSimulator)
        XCTAssertEqual(Array(shell.ran[7...]), [
            env + "xcrun simctl shutdown \(existing)",
            env + "xcrun simctl erase \(existing)",
            env + "xcrun simctl boot \(existing)",
            env + "xcrun simctl bootstatus \(existing) -b",
            "ls -1t \(products)",
            enumerateLine("\(products)/\(Self.iosXctestrun)", destination: "'platform=iOS Simulator,id=\(existing)'"),
            "fetch \(XcodebuildJob.enumerationName)",
            env + "xcodebuild test-without-building -xctestrun \(products)/\(Self.iosXctestrun) -destination 'platform=iOS Simulator,id=\(existing)' -enableCodeCoverage NO -collect-test-diagnostics on-failure -resultBundlePath \(dir)/result.xcresult -only-testing:CacheContractTests/DictionaryCacheTests/testC10_doubleNeverEvicts -only-testing:CacheContractTests/MemoryKeyTests/testC1_revisionChangeNeverReturnsOldValue",
            env + "xcrun xcresulttool get test-results tests --path \(dir)/result.xcresult",
            env + "xcrun simctl shutdown \(existing)",
        ])
        XCTAssertFalse(shell.ran.contains { $0.contains("simctl delete") })
    }

    func testBootDeadlineExpiryIsAWedgedSimulatorInfraFailure() async throws {
        var script = try simulatorScript()
        script.insert((env + "xcrun simctl bootstatus", Reply(stdout: "Monitoring boot status…\n", termination: .timedOut("total"))), at: 0)
        let shell = ScriptedShell(host: host(), script: script)
        let (outcome, _, _) = await run(shell, input(destination: "platform=iOS Simulator,name=iPhone 16,OS=18.4"), boot: 120)
        XCTAssertEqual(outcome.infraError?.kind, .command)
        XCTAssertEqual(outcome.infraError?.message, "simulator wedged: \(udid) did not finish booting within 120 s")
        XCTAssertEqual(outcome.ended, AttemptEnded(termination: nil, infraError: "mac-1: command: simulator wedged: \(udid) did not finish booting within 120 s"))
        XCTAssertEqual(outcome.failure, .simulatorWedged("mac-1: command: simulator wedged: \(udid) did not finish booting within 120 s"), "a wedge is typed, not matched by text")
        XCTAssertNil(outcome.termination)
        XCTAssertEqual(shell.deadlines(of: env + "xcrun simctl bootstatus"), CommandDeadlines(total: 120, silence: 120))
        XCTAssertEqual(Array(shell.ran.suffix(4)), [
            env + "xcrun simctl bootstatus \(udid) -b",
            env + "xcrun simctl shutdown all",
            env + "xcrun simctl shutdown \(udid)",
            env + "xcrun simctl delete \(udid)",
        ])
        XCTAssertFalse(shell.ran.contains { $0.contains("xcodebuild test") })
    }

    func testBootRefusedIsWedged() async throws {
        var script = try simulatorScript()
        script.insert((env + "xcrun simctl boot ", Reply(stderr: "An error was encountered processing the command (domain=com.apple.CoreSimulator.SimError, code=405):\nUnable to boot the Simulator.\n", termination: .exited(149))), at: 0)
        let shell = ScriptedShell(host: host(), script: script)
        let (outcome, _, _) = await run(shell, input(destination: "platform=iOS Simulator,name=iPhone 16,OS=18.4"))
        XCTAssertEqual(outcome.infraError?.message, "simulator wedged: `simctl boot \(udid)` said \"Unable to boot\"")
        XCTAssertTrue(shell.ran.contains(env + "xcrun simctl shutdown all"))
        XCTAssertEqual(shell.ran.last, env + "xcrun simctl delete \(udid)")
    }

    func testTestRunnerLaunchFailureMidRunIsWedged() async throws {
        let wedged = "Testing started\n2025-06-01 12:00:03.117 xcodebuild[4242:99] Failed to install or launch the test runner. (Underlying Error: Simulator device failed to launch com.apple.test.CacheContractTests-Runner.)\n** TEST FAILED **\n"
        let shell = ScriptedShell(host: host(), script: try simulatorScript() + [
            (env + "xcodebuild test", Reply(stdout: wedged, termination: .exited(65), chunkSize: 5)),
            (env + "xcrun xcresulttool", Reply(stdout: "{\"testNodes\":[]}")),
        ])
        let (outcome, _, _) = await run(shell, input(destination: "platform=iOS Simulator,name=iPhone 16,OS=18.4"))
        XCTAssertEqual(outcome.termination, .exited(65))
        XCTAssertEqual(outcome.infraError?.kind, .command)
        XCTAssertEqual(outcome.infraError?.message, "simulator wedged during xcodebuild test-without-building (\"Failed to install or launch the test runner\"); reset with `xcrun simctl shutdown all`")
        XCTAssertTrue(shell.ran.contains(env + "xcrun simctl shutdown all"))
        XCTAssertEqual(shell.ran.last, env + "xcrun simctl delete \(udid)")
    }

    func testPinnedDeveloperDirWithTheWrongXcodeIsRefused() async throws {
        let pinned = "/Applications/Xcode-16.4.app/Contents/Developer"
        let shell = ScriptedShell(host: host(developerDir: "/Applications/Xcode-16.4.app"), script: [
            ("DEVELOPER_DIR=\(pinned) xcodebuild -version", Reply(stdout: XcodeFixtures.versionOutput("16.3", "16E140"))),
        ])
        let (outcome, _, _) = await run(shell, input(destination: "platform=macOS"))
        XCTAssertEqual(shell.ran, ["DEVELOPER_DIR=\(pinned) xcodebuild -version"])
        XCTAssertEqual(outcome.infraError, RemoteShellError(.toolchain, host: "mac-1",
            "the Xcode at \(pinned) is 16.3 (16E140), but Xcode 16.4 is wanted: install it as /Applications/Xcode-16.4.app or set toolchain.developerDir / toolchain.xcode for this host in the fleet file"))
        XCTAssertNil(outcome.termination)
        XCTAssertEqual(outcome.extraEvents, [])
    }

    func testSearchTriesEveryCandidateThenRefuses() async throws {
        let shell = ScriptedShell(host: host(), script: [
            ("ls -1 /Applications", Reply(stdout: "Xcode-16.4-beta.app\nXcode.app\n")),
            ("DEVELOPER_DIR=/Applications/Xcode-16.4-beta.app/Contents/Developer xcodebuild -version", Reply(stderr: "xcode-select: error: invalid developer directory\n", termination: .exited(1))),
            ("DEVELOPER_DIR=/Applications/Xcode.app/Contents/Developer xcodebuild -version", Reply(stdout: XcodeFixtures.versionOutput("16.3", "16E140"))),
        ])
        let (outcome, _, _) = await run(shell, input(destination: "platform=macOS"))
        XCTAssertEqual(shell.ran.count, 3)
        XCTAssertEqual(outcome.infraError?.kind, .toolchain)
        XCTAssertEqual(outcome.infraError?.message,
                       "no Xcode 16.4 on this host (/Applications/Xcode-16.4-beta.app/Contents/Developer: no version (exited(1)); /Applications/Xcode.app/Contents/Developer: Xcode 16.3 (16E140)): install it as /Applications/Xcode-16.4.app or set toolchain.developerDir in the fleet file")
    }

    func testMacOSWithSelectedXcodeFallsBackToLegacyResults() async throws {
        let bundle = "\(dir)/result.xcresult"
        let ref = "0~Qw3rTy7uIoP1aSdFgHjKl2ZxCvBnM4qWeRtYuIoPaSdFgHjKlZxCvBnMqWeRtYu9"
        let shell = ScriptedShell(host: host(slots: 1), script: [
            ("xcodebuild -version", Reply(stdout: XcodeFixtures.versionOutput("16.0", "16A242d"))),
            ("xcodebuild -list -json", Reply(stdout: "{\"workspace\":{\"name\":\"xcfleet-cache-contract\",\"schemes\":[\"CacheContract\"]}}")),
            ("xcodebuild build-for-testing", Reply()),
            // Two platforms were built into this folder; the newest macOS one of the built scheme is used.
            ("ls -1t ", Reply(stdout: "CacheContract_iphonesimulator18.4-arm64.xctestrun\nCacheContract_macosx15.5-arm64.xctestrun\nCacheContract_macosx15.4-arm64.xctestrun\nDebug\n")),
            ("xcodebuild test", Reply(stdout: Self.streamedRun, termination: .exited(65))),
            ("xcrun xcresulttool get test-results", Reply(stderr: "Error: unknown\n", termination: .exited(1))),
            ("xcrun xcresulttool get --legacy --format json --path \(bundle) --id", Reply(stdout: try XcodeFixtures.text("xcresult-legacy-tests.json"))),
            ("xcrun xcresulttool get --legacy", Reply(stdout: try XcodeFixtures.text("xcresult-legacy-invocation.json"))),
        ])
        let (outcome, _, _) = await run(shell, input(destination: "platform=macOS", xcode: nil))
        XCTAssertEqual(shell.ran, [
            "xcodebuild -version",
            "xcodebuild -list -json",
            "xcodebuild build-for-testing -scheme CacheContract -destination platform=macOS -derivedDataPath \(dir)/DerivedData CODE_SIGNING_ALLOWED=NO",
            "ls -1t \(products)",
            enumerateLine("\(products)/CacheContract_macosx15.5-arm64.xctestrun", destination: "platform=macOS", env: ""),
            "fetch \(XcodebuildJob.enumerationName)",
            "xcodebuild test-without-building -xctestrun \(products)/CacheContract_macosx15.5-arm64.xctestrun -destination platform=macOS -resultBundlePath \(bundle) -enableCodeCoverage NO -collect-test-diagnostics on-failure",
            "xcrun xcresulttool get test-results tests --path \(bundle)",
            "xcrun xcresulttool get --legacy --format json --path \(bundle)",
            "xcrun xcresulttool get --legacy --format json --path \(bundle) --id '\(ref)'",
        ])
        XCTAssertNil(outcome.infraError)
        XCTAssertNil(outcome.simulatorUDID)
        XCTAssertEqual(outcome.termination, .exited(65))
        XCTAssertEqual(outcome.disagreements, ["MemoryKeyTests/testC1_revisionChangeNeverReturnsOldValue: the output said passed, the result bundle says failed"])
    }

    func testXcode15UsesTheOldXcresulttoolForm() async throws {
        let bundle = "\(dir)/result.xcresult"
        let shell = ScriptedShell(host: host(slots: 1), script: [
            ("xcodebuild -version", Reply(stdout: XcodeFixtures.versionOutput("15.4", "15F31d"))),
            ("xcodebuild -list -json", Reply(stdout: try XcodeFixtures.text("xcodebuild-list.json"))),
            ("xcodebuild build-for-testing", Reply()),
            ("ls -1t ", Reply(stdout: Self.macListing)),
            ("xcodebuild test", Reply(stdout: Self.streamedRun)),
            ("xcrun xcresulttool get --format json --path \(bundle) --id", Reply(stdout: try XcodeFixtures.text("xcresult-legacy-tests.json"))),
            ("xcrun xcresulttool get --format json", Reply(stdout: try XcodeFixtures.text("xcresult-legacy-invocation.json"))),
        ])
        let (outcome, _, _) = await run(shell, input(destination: "platform=macOS", xcode: nil))
        XCTAssertEqual(Array(shell.ran.suffix(2)).map { $0.components(separatedBy: " --path").first ?? "" },
                       ["xcrun xcresulttool get --format json", "xcrun xcresulttool get --format json"])
        XCTAssertFalse(shell.ran.contains { $0.contains("test-results") || $0.contains("--legacy") })
        XCTAssertEqual(outcome.disagreements.count, 1)
    }

    func testUnreadableBundleKeepsTheStream() async throws {
        let shell = ScriptedShell(host: host(slots: 1), script: [
            ("xcodebuild -version", Reply(stdout: XcodeFixtures.versionOutput("16.4", "16F6"))),
            ("xcodebuild -list -json", Reply(stdout: "")),
            ("xcodebuild build-for-testing", Reply()),
            ("ls -1t ", Reply(stdout: Self.macListing)),
            ("xcodebuild test", Reply(stdout: Self.streamedRun)),
            ("xcrun xcresulttool", Reply(stderr: "Error: The file “result.xcresult” couldn’t be opened because there is no such file.\n", termination: .exited(1))),
        ])
        let (outcome, _, _) = await run(shell, input(destination: "platform=macOS", xcode: nil))
        XCTAssertNil(outcome.infraError)
        XCTAssertEqual(outcome.extraEvents, [])
        XCTAssertEqual(outcome.disagreements.count, 1)
        XCTAssertTrue(outcome.disagreements[0].hasPrefix("the result bundle could not be read"), outcome.disagreements[0])
        XCTAssertTrue(outcome.disagreements[0].hasSuffix("the streamed output stands"))
        // Unreadable `-list` output: the documented fallback scheme.
        XCTAssertTrue(shell.ran.contains { $0.hasPrefix("xcodebuild build-for-testing -scheme xcfleet-cache-contract-Package ") })
    }

    func testBadDestinationIsAPlanErrorNotInfra() async {
        let shell = ScriptedShell(host: host(), script: [])
        let (outcome, _, _) = await run(shell, input(destination: "platform=iOS Simulator,OS=18.4"))
        XCTAssertEqual(shell.ran, [])
        XCTAssertNil(outcome.infraError)
        XCTAssertNil(outcome.termination)
        guard case .buildError(nil, nil, let message)? = outcome.extraEvents.first else { return XCTFail("\(outcome.extraEvents)") }
        XCTAssertTrue(message.hasPrefix("xcfleet: suite 'cache-contract': destination \"platform=iOS Simulator,OS=18.4\": name= is missing"), message)
    }

    func testMissingRuntimeOnHostIsInfra() async throws {
        let shell = ScriptedShell(host: host(), script: try simulatorScript())
        let (outcome, _, _) = await run(shell, input(destination: "platform=iOS Simulator,name=iPhone 16,OS=19.0"))
        XCTAssertEqual(outcome.infraError?.kind, .toolchain)
        XCTAssertFalse(shell.ran.contains { $0.contains("simctl create") || $0.contains("shutdown") })
    }

    func testGarbageFromSimctlIsInfraNotATrap() async throws {
        let shell = ScriptedShell(host: host(), script: try simulatorScript(devicesReply: Reply(stdout: "<html>nope</html>")))
        let (outcome, _, _) = await run(shell, input(destination: "platform=iOS Simulator,name=iPhone 16,OS=18.4"))
        XCTAssertEqual(outcome.infraError?.kind, .command)
        XCTAssertTrue(outcome.infraError?.message.contains("simctl list devices -j did not print the expected JSON") == true, "\(String(describing: outcome.infraError))")
    }

    func testLostConnectionAndCancellation() async throws {
        let lost = ScriptedShell(host: host(), script: try simulatorScript() + [(env + "xcodebuild test", Reply(stdout: "Test Suite 'All tests' started\n", termination: .connectionLost("EOF")))])
        let (o1, _, _) = await run(lost, input(destination: "platform=iOS Simulator,name=iPhone 16,OS=18.4"))
        XCTAssertEqual(o1.failure, .hostLost("connection to mac-1 lost during test: EOF"), "judged by the attempt machine, typed")
        XCTAssertFalse(lost.ran.contains { $0.contains("xcresulttool") })

        let cancelled = ScriptedShell(host: host(), script: try simulatorScript() + [(env + "xcodebuild test", Reply(termination: .cancelled))])
        let (o2, _, _) = await run(cancelled, input(destination: "platform=iOS Simulator,name=iPhone 16,OS=18.4"))
        XCTAssertEqual(o2.termination, .cancelled)
        XCTAssertNil(o2.infraError)
        XCTAssertFalse(cancelled.ran.contains { $0.contains("xcresulttool") })
        XCTAssertEqual(cancelled.ran.last, env + "xcrun simctl delete \(udid)", "the created simulator is removed after a cancel")
        XCTAssertEqual(o2.ended, AttemptEnded(termination: .cancelled))

        // The test deadline: a test-phase timeout (not infra); the bundle is still read.
        let slow = ScriptedShell(host: host(), script: try simulatorScript() + [
            (env + "xcodebuild test", Reply(stdout: Self.streamedRun, termination: .timedOut("silence"))),
            (env + "xcrun xcresulttool", Reply(stdout: try XcodeFixtures.text("xcresult-test-results.json"))),
        ])
        let (o3, _, _) = await run(slow, input(destination: "platform=iOS Simulator,name=iPhone 16,OS=18.4"))
        XCTAssertEqual(o3.ended, AttemptEnded(termination: .timedOut("silence"), timedOutPhase: .test))
        XCTAssertTrue(slow.ran.contains { $0.contains("xcresulttool") })
    }

    /// The real recorded xcodebuild logs, delivered as `xcodebuild test` output through the job to
    /// the output callback and `OutputParser`: the same counts the parser's own tests establish.
    func testRealRecordedLogsStreamThroughTheXcodebuildFlow() async throws {
        let logs = try ParserFixtures.sharedLogs()
        let expected: [String: (passed: Int, failed: Int, skipped: Int)] = ["TestLog.txt": (81, 1, 1), "ParallelTestLog.txt": (19, 1, 1)]
        for (name, counts) in expected.sorted(by: { $0.key < $1.key }) {
            let text = String(decoding: try Data(contentsOf: logs.appendingPathComponent(name)), as: UTF8.self)
            let shell = ScriptedShell(host: host(), script: try simulatorScript() + [
                (env + "xcodebuild test", Reply(stdout: text, termination: .exited(65), chunkSize: 4093)),
                (env + "xcrun xcresulttool", Reply(stderr: "Error: no result bundle\n", termination: .exited(1))),
            ])
            let (outcome, streamed, _) = await run(shell, input(destination: "platform=iOS Simulator,name=iPhone 16,OS=18.4"))
            var tally = (passed: 0, failed: 0, skipped: 0)
            for case .testFinished(_, let status, _, _, _) in streamed {
                switch status {
                case .passed: tally.passed += 1
                case .failed: tally.failed += 1
                case .skipped: tally.skipped += 1
                }
            }
            XCTAssertEqual(tally.passed, counts.passed, name)
            XCTAssertEqual(tally.failed, counts.failed, name)
            XCTAssertEqual(tally.skipped, counts.skipped, name)
            XCTAssertNil(outcome.infraError, name)
            XCTAssertEqual(outcome.termination, .exited(65))
            XCTAssertEqual(shell.ran.last, env + "xcrun simctl delete \(udid)")
        }
    }

    // MARK: build once, test many

    func testACachedBuildRunsOnlyTestWithoutBuildingWithItsOwnResultBundle() async throws {
        // What the host build cache hands over: a finished DerivedData under the work root.
        let cached = "/Users/ci/xcfleet/builds/9f2c41d07ab3/DerivedData"
        let shell = ScriptedShell(host: host(slots: 1), script: [
            ("xcodebuild -version", Reply(stdout: XcodeFixtures.versionOutput("16.4", "16F6"))),
            ("ls -1t ", Reply(stdout: Self.macListing)),
            ("TEST_RUNNER_XCFLEET_REPETITION=2 xcodebuild test-without-building", Reply(stdout: Self.streamedRun)),
            ("xcrun xcresulttool", Reply(stdout: try XcodeFixtures.text("xcresult-test-results.json"))),
        ])
        let (outcome, streamed, _) = await run(shell, input(destination: "platform=macOS", xcode: nil, only: ["MemoryKeyTests/testC1_sameResourceOtherAccountMisses"],
                                                            derivedData: cached, needsBuild: false, environment: ["XCFLEET_REPETITION": "2"]))
        XCTAssertEqual(shell.ran, [
            "xcodebuild -version",
            "ls -1t \(cached)/Build/Products",
            enumerateLine("\(cached)/Build/Products/\(Self.macXctestrun)", destination: "platform=macOS", env: ""),
            "fetch \(XcodebuildJob.enumerationName)",
            "TEST_RUNNER_XCFLEET_REPETITION=2 xcodebuild test-without-building -xctestrun \(cached)/Build/Products/\(Self.macXctestrun) -destination platform=macOS -enableCodeCoverage NO -collect-test-diagnostics on-failure -resultBundlePath \(dir)/result.xcresult -only-testing:CacheContractTests/MemoryKeyTests/testC1_sameResourceOtherAccountMisses",
            "xcrun xcresulttool get test-results tests --path \(dir)/result.xcresult",
        ])
        XCTAssertFalse(shell.ran.contains { $0.contains("build-for-testing") || $0.contains("-list") }, "nothing is built")
        XCTAssertNil(outcome.infraError)
        XCTAssertNil(outcome.scheme)
        XCTAssertEqual(outcome.termination, .exited(0))
        XCTAssertEqual(outcome.xctestrun, "\(cached)/Build/Products/\(Self.macXctestrun)")
        XCTAssertFalse(streamed.isEmpty)
    }

    func testBuildTheSeparableStepAloneNeedsNoSimulator() async throws {
        let cached = "/Users/ci/xcfleet/builds/9f2c41d07ab3.staging/DerivedData"
        let shell = ScriptedShell(host: host(), script: try simulatorScript())
        final class Sink: @unchecked Sendable { let lock = NSLock(); var bytes = 0 }
        let sink = Sink()
        let job = XcodebuildJob(shell: shell, directory: dir, input: input(destination: "platform=iOS Simulator,name=iPhone 16,OS=18.4", derivedData: cached),
                                deadlines: XcodebuildJob.Deadlines(timeouts: .defaults))
        let outcome = await job.build(output: { c in sink.lock.lock(); sink.bytes += c.bytes.count; sink.lock.unlock() })
        XCTAssertEqual(shell.ran, [
            "ls -1 /Applications",
            env + "xcodebuild -version",
            env + "xcodebuild -list -json",
            env + "xcodebuild build-for-testing -scheme xcfleet-cache-contract-Package -destination 'generic/platform=iOS Simulator' -derivedDataPath \(cached) CODE_SIGNING_ALLOWED=NO",
        ])
        XCTAssertNil(outcome.infraError)
        XCTAssertNil(outcome.termination, "a successful build leaves no termination to judge")
        XCTAssertEqual(outcome.scheme, "xcfleet-cache-contract-Package")
        XCTAssertEqual(outcome.extraEvents, [])
        XCTAssertGreaterThan(sink.bytes, 0, "the build's output is streamed")
    }

    func testBuildForTestingFailureIsABuildErrorAndNothingElseRuns() async throws {
        let failing = """
        /Users/ci/xcfleet/jobs/cache-contract-1a2b/Sources/CacheContract/MemoryKey.swift:12:9: error: cannot find 'acount' in scope
        ** TEST BUILD FAILED **

        """
        let shell = ScriptedShell(host: host(), script: [(env + "xcodebuild build-for-testing", Reply(stdout: failing, termination: .exited(65)))] + (try simulatorScript()))
        let (outcome, streamed, progress) = await run(shell, input(destination: "platform=iOS Simulator,name=iPhone 16,OS=18.4"))
        XCTAssertEqual(outcome.termination, .exited(65))
        XCTAssertEqual(outcome.terminationPhase, .build)
        XCTAssertNil(outcome.infraError, "a compile error is the package's fault, not the host's")
        XCTAssertEqual(outcome.ended, AttemptEnded(termination: .exited(65)))
        XCTAssertTrue(streamed.contains { if case .buildError = $0 { return true } else { return false } }, "\(streamed)")
        XCTAssertEqual(outcome.extraEvents, [], "the parsed compiler error speaks for itself")
        XCTAssertFalse(shell.ran.contains { $0.contains("simctl") || $0.contains("test-without-building") || $0.hasPrefix("ls -1t") })
        XCTAssertTrue(progress.contains(.phaseFinished(.build)))
        XCTAssertFalse(progress.contains(.phaseStarted(.test)))

        // No compiler line in the output: the exit status becomes the build error.
        let silent = ScriptedShell(host: host(), script: [(env + "xcodebuild build-for-testing", Reply(stdout: "** TEST BUILD FAILED **\n", termination: .exited(65)))] + (try simulatorScript()))
        let (o2, _, _) = await run(silent, input(destination: "platform=iOS Simulator,name=iPhone 16,OS=18.4"))
        XCTAssertEqual(o2.extraEvents, [.buildError(file: nil, line: nil, message: "xcodebuild build-for-testing exited with status 65")])

        // Past the build deadline: a build-phase timeout, not a test timeout.
        let slow = ScriptedShell(host: host(), script: [(env + "xcodebuild build-for-testing", Reply(termination: .timedOut("total")))] + (try simulatorScript()))
        let (o3, _, _) = await run(slow, input(destination: "platform=iOS Simulator,name=iPhone 16,OS=18.4"))
        XCTAssertEqual(o3.ended, AttemptEnded(termination: .timedOut("total"), timedOutPhase: .build))

        // A lost connection while building is the host's problem.
        let lost = ScriptedShell(host: host(), script: [(env + "xcodebuild build-for-testing", Reply(termination: .connectionLost("EOF")))] + (try simulatorScript()))
        let (o4, _, _) = await run(lost, input(destination: "platform=iOS Simulator,name=iPhone 16,OS=18.4"))
        XCTAssertEqual(o4.failure, .hostLost("connection to mac-1 lost during build: EOF"))
        XCTAssertEqual(o4.ended.infraError, "connection to mac-1 lost during build: EOF")
    }

    func testMissingXctestrunIsABuildErrorAfterABuildAndInfraFromACachedBuild() async throws {
        let wrongPlatform = "xcfleet-cache-contract-Package_macosx15.5-arm64.xctestrun\nDebug\n"
        let shell = ScriptedShell(host: host(), script: [("ls -1t ", Reply(stdout: wrongPlatform))] + (try simulatorScript()))
        let (built, _, _) = await run(shell, input(destination: "platform=iOS Simulator,name=iPhone 16,OS=18.4"))
        XCTAssertNil(built.infraError)
        XCTAssertNil(built.termination)
        XCTAssertEqual(built.extraEvents, [.buildError(file: nil, line: nil, message:
            "xcfleet: no .xctestrun for iphonesimulator in \(products) (found only: xcfleet-cache-contract-Package_macosx15.5-arm64.xctestrun); build-for-testing did not produce one for this destination")])
        XCTAssertFalse(shell.ran.contains { $0.contains("test-without-building") })
        XCTAssertEqual(shell.ran.last, env + "xcrun simctl delete \(udid)", "the simulator is still cleaned up")

        let cached = "/Users/ci/xcfleet/builds/k1/DerivedData"
        let empty = ScriptedShell(host: host(slots: 1), script: [
            ("xcodebuild -version", Reply(stdout: XcodeFixtures.versionOutput("16.4", "16F6"))),
            ("ls -1t ", Reply(stderr: "ls: \(cached)/Build/Products: No such file or directory\n", termination: .exited(1))),
        ])
        let (fromCache, _, _) = await run(empty, input(destination: "platform=macOS", xcode: nil, derivedData: cached, needsBuild: false))
        XCTAssertEqual(fromCache.infraError?.message,
                       "the cached build is unusable: no .xctestrun for macosx in \(cached)/Build/Products (none there); build-for-testing did not produce one for this destination")
        XCTAssertEqual(fromCache.extraEvents, [])
    }

    func testInputFromAPlannedJobReadsTheManifest() throws {
        let manifest = SuiteManifest(suite: "cache-contract", template: "cache-contract", testTarget: "CacheContractTests", mutant: nil)
        let data = try JSONEncoder().encode(manifest)
        let spec = SuiteSpec(name: "cache contract", template: "cache-contract", destination: "platform=macOS")
        let job = PlannedJob(planned: JobPlanned(jobID: "cache contract#s1of2", suite: spec.name, kind: .gate, shard: 0, shardCount: 2, repetition: 0, mutant: nil, expectedTests: ["A/testB"]),
                             spec: spec, workspace: Workspace(files: [WorkspaceFile(path: "xcfleet-manifest.json", contents: data)]), requires: [])
        let input = XcodebuildJob.Input(job: job)
        XCTAssertEqual(input.testTarget, "CacheContractTests")
        XCTAssertEqual(input.packageName, "xcfleet-cache-contract")
        XCTAssertEqual(input.selection.shard, 0)
        XCTAssertEqual(input.selection.shardCount, 2, "the shard's part is chosen from the discovered tests")
        XCTAssertNil(input.project)
        XCTAssertEqual(input.jobID, "cache contract#s1of2")
        // Without a build cache the attempt builds into its own job directory; the repetition travels at run time.
        XCTAssertTrue(input.needsBuild)
        XCTAssertNil(input.derivedDataPath)
        XCTAssertEqual(input.testEnvironment, ["XCFLEET_REPETITION": "0"])
    }
}
