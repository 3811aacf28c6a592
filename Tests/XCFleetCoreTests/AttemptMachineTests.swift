import XCTest
@testable import XCFleetBasics
@testable import XCFleetModel
@testable import XCFleetCore
import XCFleetTestSupport

/// Every transition of the pure attempt machine, for SwiftPM and Xcode sources alike.
final class AttemptMachineTests: XCTestCase {
    typealias Action = AttemptMachine.Action

    private func source(_ driver: JobSource.Driver) -> JobSource {
        JobSource(origin: .template("cache-contract"), workspace: Workspace(files: []), driver: driver)
    }

    /// The judgement of build, test and collect (the discover step's is tested with the whole
    /// sequence below and in PackageSuiteTests).
    private func machine(_ driver: JobSource.Driver = .swiftPM, cleanup: Double = 60) -> AttemptMachine {
        let s = source(driver)
        return AttemptMachine(AttemptMachine.Plan(steps: s.steps.filter { $0 != .discover }, buildToolName: s.buildToolName,
                                                  host: "mac-1", cleanupSeconds: cleanup))
    }

    /// Pushes to /w/j1 and returns the actions of the push's end.
    private func pushed(_ m: inout AttemptMachine) -> [Action] {
        XCTAssertEqual(m.start(), [.phaseStarted(.push), .perform(.push)])
        return m.stepEnded(.pushed(directory: "/w/j1"))
    }

    func testSourcesNameTheirSteps() {
        XCTAssertEqual(source(.swiftPM).steps, [.push, .build, .discover, .test, .collect], "collect fetches the attachments folder")
        XCTAssertEqual(source(.xcodebuild(destination: "platform=macOS")).steps, [.push, .build, .discover, .test, .collect])
        XCTAssertEqual(source(.xcodebuild(destination: "platform=macOS")).destination, "platform=macOS")
        XCTAssertNil(source(.swiftPM).destination)
        XCTAssertEqual(AttemptStep.collect.phase, .fetch)
    }

    func testGreenSwiftPMAttemptRunsEveryStepThenCleansUp() {
        var m = AttemptMachine(AttemptMachine.Plan(source: source(.swiftPM), host: "mac-1", cleanupSeconds: 60))
        XCTAssertEqual(pushed(&m), [.phaseFinished(.push), .recordHostPath("/w/j1"), .phaseStarted(.build), .perform(.build)])
        XCTAssertEqual(m.jobDirectory, "/w/j1")
        XCTAssertEqual(m.stepEnded(.ended(.exited(0))), [.phaseFinished(.build), .phaseStarted(.build), .perform(.discover)])
        XCTAssertEqual(m.stepEnded(.discovered(problem: nil)), [.phaseFinished(.build), .phaseStarted(.test), .perform(.test)])
        XCTAssertEqual(m.stepEnded(.ended(.exited(0))), [.phaseFinished(.test), .phaseStarted(.fetch), .perform(.collect)])
        XCTAssertEqual(m.stepEnded(.collected), [.phaseFinished(.fetch), .phaseStarted(.cleanup), .cleanUp(directory: "/w/j1", seconds: 60)])
        XCTAssertFalse(m.isFinished)
        XCTAssertEqual(m.cleanedUp(), [.phaseFinished(.cleanup), .finish(AttemptEnded(termination: .exited(0)))])
        XCTAssertTrue(m.isFinished)
        XCTAssertEqual(m.outcome(testsPassed: true), .passed)
        XCTAssertEqual(m.outcome(testsPassed: false), .testsFailed, "a missing expected test is red even after exit 0")
        // Stale reports after the end change nothing.
        XCTAssertEqual(m.stepEnded(.ended(.exited(1))), [])
        XCTAssertEqual(m.cleanedUp(), [])
        XCTAssertEqual(m.start(), [])
    }

    /// Failing tests still collect what they left (their attachments), then the attempt ends.
    func testFailingTestsEndAfterTheTestStepAndCollect() {
        var m = machine()
        _ = pushed(&m)
        _ = m.stepEnded(.ended(.exited(0)))
        XCTAssertEqual(m.stepEnded(.ended(.exited(1))), [.phaseFinished(.test), .phaseStarted(.fetch), .perform(.collect)])
        XCTAssertEqual(m.stepEnded(.collected), [.phaseFinished(.fetch), .phaseStarted(.cleanup), .cleanUp(directory: "/w/j1", seconds: 60)])
        XCTAssertEqual(m.cleanedUp().last, .finish(AttemptEnded(termination: .exited(1))))
        XCTAssertEqual(m.outcome(testsPassed: false), .testsFailed)
        XCTAssertNil(m.attemptFailure)
    }

    func testBuildFailureWithoutACompilerErrorNamesTheTool() {
        var m = machine()
        _ = pushed(&m)
        XCTAssertEqual(m.stepEnded(.ended(.exited(1))), [.phaseFinished(.build), .recordBuildError("swift build exited with status 1"),
                                                        .phaseStarted(.cleanup), .cleanUp(directory: "/w/j1", seconds: 60)])
        XCTAssertEqual(m.cleanedUp().last, .finish(AttemptEnded(termination: .exited(1))))
        XCTAssertEqual(m.outcome(testsPassed: false), .testsFailed, "a build failure is red, not an infrastructure failure")

        var x = machine(.xcodebuild(destination: "platform=macOS"))
        _ = pushed(&x)
        XCTAssertEqual(x.stepEnded(.ended(.exited(65))).dropFirst().first, .recordBuildError("xcodebuild build-for-testing exited with status 65"))
    }

    func testBuildFailureWithACompilerErrorSpeaksForItself() {
        var m = machine()
        _ = pushed(&m)
        XCTAssertEqual(m.stepEnded(.ended(.exited(1), sawBuildError: true)), [.phaseFinished(.build), .phaseStarted(.cleanup), .cleanUp(directory: "/w/j1", seconds: 60)])
    }

    func testDeadlinesAreTimeoutsOfTheirPhase() {
        var m = machine()
        _ = pushed(&m)
        _ = m.stepEnded(.ended(.timedOut("total")))
        XCTAssertEqual(m.cleanedUp().last, .finish(AttemptEnded(termination: .timedOut("total"), timedOutPhase: .build)))
        XCTAssertEqual(m.outcome(testsPassed: false), .timedOut(phase: .build))

        var t = machine()
        _ = pushed(&t)
        _ = t.stepEnded(.ended(.exited(0)))
        _ = t.stepEnded(.ended(.timedOut("silence")))
        _ = t.cleanedUp()
        XCTAssertEqual(t.outcome(testsPassed: true), .timedOut(phase: .test), "a timeout is never green")
    }

    func testLostConnectionIsHostLostWithAShortCleanup() {
        var m = machine()
        _ = pushed(&m)
        _ = m.stepEnded(.ended(.exited(0)))
        XCTAssertEqual(m.stepEnded(.ended(.connectionLost("EOF"))), [.phaseFinished(.test), .phaseStarted(.cleanup), .cleanUp(directory: "/w/j1", seconds: 3)])
        let text = "connection to mac-1 lost during test: EOF"
        XCTAssertEqual(m.cleanedUp().last, .finish(AttemptEnded(termination: .connectionLost("EOF"), infraError: text)))
        XCTAssertEqual(m.outcome(testsPassed: true), .infraFailure(.hostLost(text)))
        XCTAssertTrue(AttemptFailure.hostLost(text).suspectsHost)

        var short = AttemptMachine(AttemptMachine.Plan(steps: [.push, .build, .test, .collect], buildToolName: "swift build", host: "mac-1", cleanupSeconds: 2))
        _ = pushed(&short)
        XCTAssertEqual(short.stepEnded(.ended(.connectionLost("EOF"))).last, .cleanUp(directory: "/w/j1", seconds: 2), "never longer than the cleanup deadline")
    }

    func testSIGKILLIsTheHostsDoingOtherSignalsAreTheTests() {
        var m = machine()
        _ = pushed(&m)
        _ = m.stepEnded(.ended(.exited(0)))
        _ = m.stepEnded(.ended(.signaled("SIGKILL")))
        _ = m.cleanedUp()
        XCTAssertEqual(m.outcome(testsPassed: false), .infraFailure(.killedByHost("test process on mac-1 was killed by the host (SIGKILL)")))

        var s = machine()
        _ = pushed(&s)
        _ = s.stepEnded(.ended(.exited(0)))
        _ = s.stepEnded(.ended(.signaled("SIGSEGV")))
        _ = s.cleanedUp()
        XCTAssertEqual(s.outcome(testsPassed: false), .testsFailed, "a crash is the tests' problem")
    }

    func testPushFailureWithoutADirectoryEndsAtOnce() {
        var m = machine()
        _ = m.start()
        let text = "mac-1: push: tar -x on the host failed"
        XCTAssertEqual(m.stepEnded(.failed(.host(text))), [.phaseFinished(.push), .finish(AttemptEnded(infraError: text))])
        XCTAssertEqual(m.outcome(testsPassed: true), .infraFailure(.host(text)))
    }

    func testPushFailureAfterTheDirectoryWasMadeStillCleansUp() {
        var m = machine()
        _ = m.start()
        m.directoryCreated("/w/j1")
        let text = "mac-1: timeout: push took longer than 120 s"
        XCTAssertEqual(m.stepEnded(.failed(.host(text), timedOut: true)), [.phaseFinished(.push), .phaseStarted(.cleanup), .cleanUp(directory: "/w/j1", seconds: 60)])
        XCTAssertEqual(m.cleanedUp().last, .finish(AttemptEnded(infraError: text, timedOutPhase: .push)))
        XCTAssertEqual(m.outcome(testsPassed: false), .infraFailure(.host(text)), "the host's error text wins over the bare deadline")
    }

    func testDeadlineRule() {
        XCTAssertEqual(AttemptMachine.outcome(ended: AttemptEnded(timedOutPhase: .push), failure: nil, testsPassed: true), .infraFailure(.deadline(.push)))
        XCTAssertEqual(AttemptMachine.outcome(ended: AttemptEnded(timedOutPhase: .connect), failure: nil, testsPassed: true), .infraFailure(.deadline(.connect)))
        XCTAssertEqual(AttemptFailure.deadline(.push).description, "push deadline expired")
        XCTAssertEqual(AttemptMachine.outcome(ended: AttemptEnded(termination: .exited(0)), failure: nil, testsPassed: true), .passed)
    }

    func testCancellationIsTypedAndDoesNotSuspectTheHost() {
        var m = machine()
        _ = pushed(&m)
        XCTAssertEqual(m.stepEnded(.cancelled), [.phaseFinished(.build), .phaseStarted(.cleanup), .cleanUp(directory: "/w/j1", seconds: 60)])
        XCTAssertEqual(m.cleanedUp().last, .finish(AttemptEnded(termination: .cancelled)))
        XCTAssertEqual(m.outcome(testsPassed: true), .infraFailure(.cancelled))
        XCTAssertEqual(AttemptFailure.cancelled.description, "cancelled")
        XCTAssertFalse(AttemptFailure.cancelled.suspectsHost)

        var c = machine()
        _ = pushed(&c)
        _ = c.stepEnded(.ended(.exited(0)))
        _ = c.stepEnded(.ended(.cancelled))
        _ = c.cleanedUp()
        XCTAssertEqual(c.outcome(testsPassed: false), .infraFailure(.cancelled), "a test command killed by the cancel")
    }

    func testUnusableBuildCacheIsInfrastructure() {
        var m = machine()
        _ = pushed(&m)
        let text = "build cache on mac-1 unusable: not a directory of ci"
        XCTAssertEqual(m.stepEnded(.failed(.buildCacheUnusable(text), termination: .exited(97))).last, .cleanUp(directory: "/w/j1", seconds: 60))
        XCTAssertEqual(m.cleanedUp().last, .finish(AttemptEnded(termination: .exited(97), infraError: text)))
        XCTAssertEqual(m.outcome(testsPassed: false), .infraFailure(.buildCacheUnusable(text)))
    }

    func testXcodeCollectsAfterATestRunThatEndedOnItsOwn() {
        var m = machine(.xcodebuild(destination: "platform=iOS Simulator,name=iPhone 16"))
        _ = pushed(&m)
        _ = m.stepEnded(.ended(.exited(0)))
        XCTAssertEqual(m.stepEnded(.ended(.exited(65))), [.phaseFinished(.test), .phaseStarted(.fetch), .perform(.collect)])
        XCTAssertEqual(m.stepEnded(.collected), [.phaseFinished(.fetch), .phaseStarted(.cleanup), .cleanUp(directory: "/w/j1", seconds: 60)])
        XCTAssertEqual(m.cleanedUp().last, .finish(AttemptEnded(termination: .exited(65))))

        var green = machine(.xcodebuild(destination: "platform=macOS"))
        _ = pushed(&green)
        _ = green.stepEnded(.ended(.exited(0)))
        XCTAssertEqual(green.stepEnded(.ended(.exited(0))).suffix(2), [.phaseStarted(.fetch), .perform(.collect)])

        var timedOut = machine(.xcodebuild(destination: "platform=macOS"))
        _ = pushed(&timedOut)
        _ = timedOut.stepEnded(.ended(.exited(0)))
        XCTAssertEqual(timedOut.stepEnded(.ended(.timedOut("total"))).last, .perform(.collect), "a bundle is read after a deadline too")
    }

    func testXcodeDoesNotCollectAfterALostConnectionOrACancel() {
        for end in [CommandTermination.connectionLost("EOF"), .cancelled] {
            var m = machine(.xcodebuild(destination: "platform=macOS"))
            _ = pushed(&m)
            _ = m.stepEnded(.ended(.exited(0)))
            XCTAssertFalse(m.stepEnded(.ended(end)).contains(.perform(.collect)), "\(end)")
        }
        var c = machine(.xcodebuild(destination: "platform=macOS"))
        _ = pushed(&c)
        _ = c.stepEnded(.ended(.exited(0)))
        XCTAssertFalse(c.stepEnded(.cancelled).contains(.perform(.collect)))
    }

    func testWedgedSimulatorResetsThenStillCollects() {
        var m = machine(.xcodebuild(destination: "platform=iOS Simulator,name=iPhone 16"))
        _ = pushed(&m)
        _ = m.stepEnded(.ended(.exited(0)))
        let text = "mac-1: command: simulator wedged during xcodebuild test-without-building"
        XCTAssertEqual(m.stepEnded(.failed(.simulatorWedged(text), termination: .exited(65))),
                       [.phaseFinished(.test), .resetSimulators, .phaseStarted(.fetch), .perform(.collect)])
        _ = m.stepEnded(.collected)
        XCTAssertEqual(m.cleanedUp().last, .finish(AttemptEnded(termination: .exited(65), infraError: text)))
        XCTAssertEqual(m.outcome(testsPassed: false), .infraFailure(.simulatorWedged(text)))

        var boot = machine(.xcodebuild(destination: "platform=iOS Simulator,name=iPhone 16"))
        _ = pushed(&boot)
        XCTAssertEqual(boot.stepEnded(.failed(.simulatorWedged("mac-1: command: simulator wedged: bootstatus"))),
                       [.phaseFinished(.build), .resetSimulators, .phaseStarted(.cleanup), .cleanUp(directory: "/w/j1", seconds: 60)])
    }

    /// A discover step that found nothing to run ends the attempt (cleanup, no test step) with a
    /// typed outcome the scheduler never retries; infrastructure and deadlines still come first.
    func testDiscoveryProblemIsATypedOutcome() {
        let package = JobSource(origin: .package("."), workspace: Workspace(files: []), driver: .swiftPM)
        var m = AttemptMachine(AttemptMachine.Plan(source: package, host: "mac-1", cleanupSeconds: 60))
        XCTAssertEqual(m.start(), [.phaseStarted(.push), .perform(.push)])
        _ = m.stepEnded(.pushed(directory: "/w/j1"))
        XCTAssertEqual(m.stepEnded(.ended(.exited(0))).last, .perform(.discover))
        XCTAssertEqual(m.stepEnded(.discovered(problem: "no test is enabled")).last, .cleanUp(directory: "/w/j1", seconds: 60))
        _ = m.cleanedUp()
        XCTAssertEqual(m.outcome(testsPassed: false), .discoveryFailed("no test is enabled"))
        XCTAssertEqual(AttemptMachine.outcome(ended: AttemptEnded(timedOutPhase: .test), failure: nil, testsPassed: false, discoveryProblem: "x"),
                       .timedOut(phase: .test))
        XCTAssertEqual(AttemptMachine.outcome(ended: AttemptEnded(), failure: .hostLost("gone"), testsPassed: false, discoveryProblem: "x"),
                       .infraFailure(.hostLost("gone")))

        var found = AttemptMachine(AttemptMachine.Plan(source: package, host: "mac-1", cleanupSeconds: 60))
        _ = found.start()
        _ = found.stepEnded(.pushed(directory: "/w/j1"))
        _ = found.stepEnded(.ended(.exited(0)))
        XCTAssertEqual(found.stepEnded(.discovered(problem: nil)).last, .perform(.test))
    }

    func testPlanErrorIsABuildErrorNotRetriedOnAnotherHost() {
        var m = machine(.xcodebuild(destination: "platform=Android"))
        _ = pushed(&m)
        XCTAssertEqual(m.stepEnded(.planError("xcfleet: suite 's': unknown platform")),
                       [.phaseFinished(.build), .recordBuildError("xcfleet: suite 's': unknown platform"), .phaseStarted(.cleanup), .cleanUp(directory: "/w/j1", seconds: 60)])
        XCTAssertEqual(m.cleanedUp().last, .finish(AttemptEnded()))
        XCTAssertEqual(m.outcome(testsPassed: false), .testsFailed)
    }

    func testTheFirstFailureStands() {
        var m = machine(.xcodebuild(destination: "platform=macOS"))
        _ = pushed(&m)
        _ = m.stepEnded(.ended(.exited(0)))
        _ = m.stepEnded(.failed(.simulatorWedged("first"), termination: .signaled("SIGKILL")))
        _ = m.stepEnded(.collected)
        _ = m.cleanedUp()
        XCTAssertEqual(m.attemptFailure, .simulatorWedged("first"))
        XCTAssertEqual(m.outcome(testsPassed: false), .infraFailure(.simulatorWedged("first")))
    }

    func testStepsWithoutPushCleanUpOnlyWithADirectory() {
        var build = AttemptMachine(AttemptMachine.Plan(steps: [.build], buildToolName: "xcodebuild build-for-testing", host: "mac-1", cleanupSeconds: 60))
        XCTAssertEqual(build.start(), [.phaseStarted(.build), .perform(.build)])
        XCTAssertEqual(build.stepEnded(.ended(.exited(0))), [.phaseFinished(.build), .finish(AttemptEnded(termination: .exited(0)))])

        var none = AttemptMachine(AttemptMachine.Plan(steps: [], buildToolName: "x", host: "h", cleanupSeconds: 1))
        XCTAssertEqual(none.start(), [.finish(AttemptEnded())])
        XCTAssertEqual(none.stepEnded(.collected), [], "no step is running")
    }

    /// With the cleanup after the verdict, an attempt whose last command exited ends as soon as it
    /// collected, green or red; its cleanup is the last action and logs no phase.
    func testTheVerdictComesBeforeTheCleanupWhenTheHostIsFine() {
        func early(_ driver: JobSource.Driver = .swiftPM) -> AttemptMachine {
            AttemptMachine(AttemptMachine.Plan(source: source(driver), host: "mac-1", cleanupSeconds: 60, cleanupAfterVerdict: true))
        }
        var m = early()
        _ = pushed(&m)
        _ = m.stepEnded(.ended(.exited(0)))
        _ = m.stepEnded(.discovered(problem: nil))
        _ = m.stepEnded(.ended(.exited(1)))
        XCTAssertEqual(m.stepEnded(.collected), [.phaseFinished(.fetch), .finish(AttemptEnded(termination: .exited(1))), .cleanUp(directory: "/w/j1", seconds: 60)])
        XCTAssertTrue(m.isFinished, "the verdict is given")
        XCTAssertEqual(m.outcome(testsPassed: false), .testsFailed)
        XCTAssertEqual(m.ended, AttemptEnded(termination: .exited(1)))
        XCTAssertEqual(m.cleanedUp(), [], "nothing follows the cleanup")
        XCTAssertTrue(m.isFinished)
        XCTAssertEqual(m.cleanedUp(), [])

        // A build that failed on its own, and a discovery that found nothing, are verdicts too.
        var b = early(.xcodebuild(destination: "platform=macOS"))
        _ = pushed(&b)
        XCTAssertEqual(b.stepEnded(.ended(.exited(65))).suffix(2), [.finish(AttemptEnded(termination: .exited(65))), .cleanUp(directory: "/w/j1", seconds: 60)])
        var d = early()
        _ = pushed(&d)
        _ = d.stepEnded(.ended(.exited(0)))
        XCTAssertEqual(d.stepEnded(.discovered(problem: "no test")).suffix(2), [.finish(AttemptEnded(termination: .exited(0))), .cleanUp(directory: "/w/j1", seconds: 60)])
        XCTAssertEqual(d.outcome(testsPassed: false), .discoveryFailed("no test"))
    }

    /// What may have left something running cleans up first, as without the option: a lost
    /// connection (short deadline), a host failure, a signal, a deadline, a cancellation.
    func testTheCleanupStillComesFirstWhenSomethingMayStillRun() {
        let cases: [(String, AttemptMachine.StepResult)] = [
            ("lost connection", .ended(.connectionLost("EOF"))),
            ("host failure", .failed(.host("mac-1: disk full"), termination: .exited(1))),
            ("signal", .ended(.signaled("SIGSEGV"))),
            ("SIGKILL from the host", .ended(.signaled("SIGKILL"))),
            ("deadline", .ended(.timedOut("silence"))),
            ("step deadline", .failed(.host("mac-1: slow"), timedOut: true)),
            ("cancelled", .cancelled),
        ]
        for (name, result) in cases {
            var m = AttemptMachine(AttemptMachine.Plan(steps: [.push, .test, .collect], buildToolName: "swift build", host: "mac-1",
                                                       cleanupSeconds: 60, cleanupAfterVerdict: true))
            _ = pushed(&m)
            var actions = m.stepEnded(result)
            if actions.contains(.perform(.collect)) { actions = m.stepEnded(.collected) }
            XCTAssertEqual(actions.suffix(2).first, .phaseStarted(.cleanup), name)
            XCTAssertFalse(actions.contains { if case .finish = $0 { return true }; return false }, "\(name): no verdict before the cleanup")
            XCTAssertFalse(m.isFinished, name)
            XCTAssertEqual(m.cleanedUp().last.map { if case .finish = $0 { return true }; return false }, true, name)
        }
    }
}
