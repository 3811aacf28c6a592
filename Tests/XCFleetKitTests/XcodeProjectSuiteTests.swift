import Foundation
import XCTest
@testable import XCFleetKit
import XCFleetTestSupport

/// A team's own Xcode workspace or project as a suite: the plan keys and their messages, the jobs
/// (one per test-plan configuration and shard), and the Apple sequence over a scripted shell (no
/// Mac here): build-for-testing of the scheme and test plan, `-enumerate-tests` of what was built
/// as the manifest, then `test-without-building` of exactly this shard's part.
final class XcodeProjectSuiteTests: XCTestCase {
    typealias Reply = ScriptedShell.Reply

    /// A repository with `App.xcworkspace` and `ios/App.xcodeproj` folders and a plan in `ci/`.
    private func repository() throws -> URL {
        let repo = try TestPaths.temporaryDirectory("xcode-repo")
        for dir in [".git", "App.xcworkspace", "ios/App.xcodeproj", "ci"] {
            try FileManager.default.createDirectory(at: repo.appendingPathComponent(dir), withIntermediateDirectories: true)
        }
        return repo
    }

    private func load(_ suite: String, in repo: URL) throws -> TestPlan {
        let path = repo.appendingPathComponent("ci/plan.json").path
        try Data(#"{"name": "app", "suites": [\#(suite)]}"#.utf8).write(to: URL(fileURLWithPath: path))
        return try PlanLoader.load(path: path, knownTemplates: ["cache-contract"])
    }

    private func problems(_ suite: String, in repo: URL) throws -> String {
        do {
            _ = try load(suite, in: repo)
            XCTFail("expected the plan to be refused: \(suite)")
            return ""
        } catch let error as ValidationError {
            return error.problems.map(\.description).joined(separator: "\n")
        }
    }

    func testAWorkspaceSuiteReadsItsSchemeTestPlanAndConfigurations() throws {
        let repo = try repository()
        let plan = try load(#"{"name": "ui", "workspace": "../App.xcworkspace", "scheme": "App", "testPlan": "Unit", "configurations": ["English", "German"], "destination": "platform=iOS Simulator,name=iPhone 16", "shards": 2, "skip": ["AppTests.SlowTests"]}"#, in: repo)
        let suite = try XCTUnwrap(plan.suites.first)
        XCTAssertEqual(suite.template, "")
        let project = try XCTUnwrap(suite.xcodeProject)
        XCTAssertEqual(project.kind, .workspace)
        XCTAssertEqual(project.container, "App.xcworkspace")
        XCTAssertEqual(project.repository, SafePath.resolvedExisting(repo.path))
        XCTAssertEqual(project.scheme, "App")
        XCTAssertEqual(project.testPlan, "Unit")
        XCTAssertEqual(project.configurations, ["English", "German"])
        XCTAssertEqual(project.skip, ["AppTests.SlowTests"])
        let nested = try load(#"{"name": "p", "project": "../ios/App.xcodeproj", "scheme": "App", "destination": "platform=macOS"}"#, in: repo)
        XCTAssertEqual(nested.suites.first?.xcodeProject?.container, "ios/App.xcodeproj")
        XCTAssertEqual(nested.suites.first?.xcodeProject?.containerFolder, SafePath.resolvedExisting(repo.path) + "/ios")
    }

    func testEveryMistakeIsALineThatSaysWhatToFix() throws {
        let repo = try repository()
        let d = #""destination": "platform=macOS""#
        let cases: [(String, String)] = [
            (#"{"name": "a", "project": "../ios/App.xcodeproj", \#(d)}"#, "suites[0].scheme: missing required key 'scheme'; name the scheme"),
            (#"{"name": "a", "project": "../ios/App.xcodeproj", "scheme": "App"}"#, "needs a \"destination\""),
            (#"{"name": "a", "project": "../ios/App.xcodeproj", "scheme": "App", "configurations": ["English"], \#(d)}"#, "configurations belong to a test plan; add \"testPlan\""),
            (#"{"name": "a", "template": "cache-contract", "scheme": "App"}"#, "a scheme without a project cannot be built"),
            (#"{"name": "a", "workspace": "../ios/App.xcodeproj", "scheme": "App", \#(d)}"#, "for a project write \"project\""),
            (#"{"name": "a", "project": "../Missing.xcodeproj", "scheme": "App", \#(d)}"#, "project '../Missing.xcodeproj' does not exist"),
            (#"{"name": "a", "project": "../../Elsewhere.xcodeproj", "scheme": "App", \#(d)}"#, "leaves the repository"),
            (#"{"name": "a", "project": "../ios/App.xcodeproj", "template": "cache-contract", "scheme": "App", \#(d)}"#, "remove \"template\""),
            (#"{"name": "a", "workspace": "../App.xcworkspace", "project": "../ios/App.xcodeproj", "scheme": "App", \#(d)}"#, "not both"),
            (#"{"name": "a", "project": "../ios/App.xcodeproj", "scheme": "-App", \#(d)}"#, "cannot start with '-'"),
            (#"{"name": "a", "project": "../ios/App.xcodeproj", "scheme": "App", "testPlan": "Unit.xctestplan", \#(d)}"#, "without .xctestplan"),
            (#"{"name": "a", "project": "../ios/App.xcodeproj", "scheme": "App", "testPlan": "Unit", "configurations": ["A", "A"], \#(d)}"#, "each configuration once"),
            (#"{"name": "a", "project": "../ios/App.xcodeproj", "scheme": "App", "mutants": true, \#(d)}"#, "has no mutants"),
        ]
        for (suite, expected) in cases {
            let text = try problems(suite, in: repo)
            XCTAssertTrue(text.contains(expected), "\(suite)\n→ \(text)\nexpected: \(expected)")
            XCTAssertTrue(text.hasPrefix(repo.appendingPathComponent("ci/plan.json").path + ":1:"), "file:line:col: \(text)")
        }
    }

    func testOneJobPerConfigurationAndShardEachDiscoveringItsTests() throws {
        let repo = try repository()
        let plan = try load(#"{"name": "ui", "workspace": "../App.xcworkspace", "scheme": "App", "testPlan": "Unit", "configurations": ["English", "German"], "destination": "platform=iOS Simulator,name=iPhone 16", "shards": 2}"#, in: repo)
        let planner = JobPlanner(renderer: Renderer(root: TemplateRoot(url: TestPaths.packageRoot)), mutants: [],
                                 packages: ["ui": Workspace(files: [WorkspaceFile(path: "App.xcworkspace/contents.xcworkspacedata", contents: Data("<Workspace/>".utf8))])])
        let jobs = try planner.jobs(for: plan)
        XCTAssertEqual(jobs.map(\.planned.jobID), ["ui#c1#s1of2", "ui#c1#s2of2", "ui#c2#s1of2", "ui#c2#s2of2"])
        XCTAssertEqual(jobs.map(\.planned.configuration), ["English", "English", "German", "German"])
        XCTAssertEqual(jobs.map(\.planned.shard), [0, 1, 0, 1])
        XCTAssertTrue(jobs.allSatisfy { $0.planned.expectedTests.isEmpty }, "the manifest comes from the build")
        XCTAssertEqual(jobs[0].source.steps, [.push, .build, .discover, .test, .collect])
        XCTAssertEqual(jobs[0].requires, ["platform:macos"], "xcodebuild needs a Mac")
        XCTAssertEqual(jobs[0].source.driver, .xcodebuild(destination: "platform=iOS Simulator,name=iPhone 16"))
        let input = XcodebuildJob.Input(job: jobs[3])
        XCTAssertEqual(input.project?.scheme, "App")
        XCTAssertEqual(input.selection, .init(configuration: "German", shard: 1, shardCount: 2))
    }

    // MARK: The Apple sequence

    static let dir = "/Users/ci/xcfleet/jobs/ui-1a2b"
    static let dev = "/Applications/Xcode_16.4.app/Contents/Developer"
    static let env = "DEVELOPER_DIR=\(dev) "
    static let products = "\(dir)/DerivedData/Build/Products"
    static let xctestrun = "App_Unit_iphonesimulator18.4-arm64-x86_64.xctestrun"
    static let udid = "9F1C2B3A-4D5E-6F70-8192-A3B4C5D6E7F8"

    /// `-enumerate-tests` JSON in the documented shape (Xcode 15+): XCTest methods with `()`, a
    /// Swift Testing suite, a disabled test.
    static let enumeration = """
    {"errors": [], "values": [{"testPlan": "Unit", "enabledTests": [
      {"identifier": "AppTests/LoginTests/testSignIn()"}, {"identifier": "AppTests/LoginTests/testSignOut()"},
      {"identifier": "AppTests/CartTests/testTotal()"}, {"identifier": "AppSwiftTests/PriceSuite/rounding()"}],
      "disabledTests": [{"identifier": "AppTests/LoginTests/testFlakyNetwork()"}]}]}
    """

    private func job(_ shell: ScriptedShell, configuration: String? = "German", shard: Int = 0, shardCount: Int = 2,
                     rerun: [String]? = nil, skip: [String]? = nil) -> XcodebuildJob {
        let project = XcodeProjectSuite(kind: .workspace, path: "../App.xcworkspace", repository: "/repo", container: "App.xcworkspace",
                                        scheme: "App", testPlan: "Unit", configurations: ["English", "German"], skip: skip)
        var input = XcodebuildJob.Input(jobID: "ui#c2#s1of2", suite: SuiteSpec(name: "ui", template: "", destination: "platform=iOS Simulator,name=iPhone 16", xcode: "16.4"),
                                        packageName: "", testTarget: "")
        input.project = project
        input.selection = .init(configuration: configuration, shard: shard, shardCount: shardCount, rerun: rerun)
        return XcodebuildJob(shell: shell, directory: Self.dir, input: input, deadlines: XcodebuildJob.Deadlines(timeouts: .defaults))
    }

    private func script(enumerate: Reply = Reply(), test: Reply = Reply(stdout: "** TEST SUCCEEDED **\n")) throws -> [(String, Reply)] {
        let env = Self.env
        return [
            ("ls -1 /Applications", Reply(stdout: "Xcode_16.4.app\n")),
            (env + "xcodebuild -version", Reply(stdout: XcodeFixtures.versionOutput("16.4", "16F6"))),
            (env + "xcodebuild build-for-testing", Reply(stdout: "** TEST BUILD SUCCEEDED **\n")),
            (env + "xcrun simctl list devices", Reply(stdout: try XcodeFixtures.text("simctl-devices.json"), chunkSize: 100)),
            (env + "xcrun simctl list devicetypes", Reply(stdout: try XcodeFixtures.text("simctl-devicetypes.json"), chunkSize: 100)),
            (env + "xcrun simctl list runtimes", Reply(stdout: try XcodeFixtures.text("simctl-runtimes.json"), chunkSize: 100)),
            (env + "xcrun simctl create", Reply(stdout: Self.udid + "\n")),
            (env + "xcrun simctl erase", Reply()),
            (env + "xcrun simctl boot ", Reply()),
            (env + "xcrun simctl bootstatus", Reply(stdout: "Device already booted, nothing to do.\n")),
            ("ls -1t ", Reply(stdout: "App_UI_iphonesimulator18.4-arm64-x86_64.xctestrun\n\(Self.xctestrun)\nDebug-iphonesimulator\n")),
            ("*-enumerate-tests", enumerate),
            (env + "xcodebuild test-without-building", test),
            (env + "xcrun xcresulttool", Reply(stderr: "no bundle in the scripted shell", termination: .exited(1))),
            (env + "xcrun simctl shutdown", Reply()),
            (env + "xcrun simctl delete", Reply()),
        ]
    }

    func testBuildOnceEnumerateThenRunOnlyThisShardsPartOfThisConfiguration() async throws {
        let shell = ScriptedShell(host: HostSpec(name: "mac-1", address: "10.0.0.5", user: "ci", labels: ["platform:macos"], slots: 2),
                                  script: try script())
        shell.provide(XcodebuildJob.enumerationName, Data(Self.enumeration.utf8))
        let outcome = await job(shell).run(output: { _ in })
        let env = Self.env, dir = Self.dir, products = Self.products, udid = Self.udid
        let ran = shell.ran.filter { !$0.contains("simctl") && !$0.hasPrefix("ls -1 /") && !$0.contains("-version") && !$0.contains("xcresulttool") }
        XCTAssertEqual(ran, [
            env + "xcodebuild build-for-testing -workspace App.xcworkspace -scheme App -testPlan Unit -destination 'generic/platform=iOS Simulator' -derivedDataPath \(dir)/DerivedData -skipPackagePluginValidation -skipMacroValidation CODE_SIGNING_ALLOWED=NO",
            "ls -1t \(products)",
            env + "xcodebuild test-without-building -xctestrun \(products)/\(Self.xctestrun) -destination 'platform=iOS Simulator,id=\(udid)' -only-test-configuration German -enumerate-tests -test-enumeration-format json -test-enumeration-style flat -test-enumeration-output-path \(dir)/\(XcodebuildJob.enumerationName)",
            "fetch \(XcodebuildJob.enumerationName)",
            env + "xcodebuild test-without-building -xctestrun \(products)/\(Self.xctestrun) -destination 'platform=iOS Simulator,id=\(udid)' -only-test-configuration German -enableCodeCoverage NO -collect-test-diagnostics on-failure -resultBundlePath \(dir)/result.xcresult '-only-testing:AppSwiftTests/PriceSuite/rounding()' -only-testing:AppTests/LoginTests/testSignIn",
        ])
        let found = try XCTUnwrap(outcome.discovery)
        // Enabled tests only: the disabled one is not required. `T/C/test…()` reads as XCTest (its
        // methods carry `()` in the enumeration too); a name not starting with `test` is Swift
        // Testing's and keeps its `()` (docs/discovery.md).
        XCTAssertEqual(found.tests, ["AppTests.LoginTests/testSignIn", "AppTests.LoginTests/testSignOut", "AppTests.CartTests/testTotal", "AppSwiftTests.PriceSuite/rounding()"])
        XCTAssertEqual(Set(found.selected).count, 2)
        XCTAssertNil(found.problem)
        XCTAssertEqual(outcome.scheme, "App")

        // The other shard takes the other two: the parts are disjoint and cover the list.
        let other = ScriptedShell(host: shell.host, script: try script())
        other.provide(XcodebuildJob.enumerationName, Data(Self.enumeration.utf8))
        let second = await job(other, shard: 1).run(output: { _ in })
        let parts = Set(found.selected).union(second.discovery?.selected ?? [])
        XCTAssertEqual(parts, Set(found.tests))
        XCTAssertTrue(Set(found.selected).isDisjoint(with: second.discovery?.selected ?? []))
    }

    func testEnumerationErrorsAndEmptyListsAreRedWithTheReasonAndNothingRuns() async throws {
        for (json, reason) in [(#"{"errors": ["The scheme App has no test plan named Unit."], "values": []}"#, "xcodebuild -enumerate-tests reported: The scheme App has no test plan named Unit."),
                               (#"{"errors": [], "values": [{"testPlan": "Unit", "enabledTests": []}]}"#, "enable no tests"),
                               ("not json", "the test enumeration could not be read")] {
            let shell = ScriptedShell(host: HostSpec(name: "mac-1", address: "10.0.0.5", user: "ci", labels: ["platform:macos"], slots: 1), script: try script())
            shell.provide(XcodebuildJob.enumerationName, Data(json.utf8))
            let outcome = await job(shell, shardCount: 1).run(output: { _ in })
            XCTAssertTrue(outcome.discovery?.problem?.contains(reason) == true, "\(json): \(String(describing: outcome.discovery?.problem))")
            XCTAssertFalse(shell.ran.contains { $0.contains("-resultBundlePath") }, "no test run after a failed discovery")
        }
        // xcodebuild itself failing to enumerate: red with its message.
        let shell = ScriptedShell(host: HostSpec(name: "mac-1", address: "10.0.0.5", user: "ci", labels: ["platform:macos"], slots: 1),
                                  script: try script(enumerate: Reply(stderr: "xcodebuild: error: Unable to find a destination", termination: .exited(70))))
        let outcome = await job(shell, shardCount: 1).run(output: { _ in })
        XCTAssertEqual(outcome.discovery?.problem, "xcodebuild -enumerate-tests ended exit 70: xcodebuild: error: Unable to find a destination")
    }

    func testARerunRunsOnlyTheTestsThatDidNotPassAndSkipNarrowsFirst() async throws {
        let shell = ScriptedShell(host: HostSpec(name: "mac-1", address: "10.0.0.5", user: "ci", labels: ["platform:macos"], slots: 1), script: try script())
        shell.provide(XcodebuildJob.enumerationName, Data(Self.enumeration.utf8))
        let outcome = await job(shell, configuration: nil, shardCount: 1, rerun: ["AppTests.CartTests/testTotal"], skip: ["AppSwiftTests"]).run(output: { _ in })
        XCTAssertEqual(outcome.discovery?.selected, ["AppTests.CartTests/testTotal"])
        XCTAssertEqual(outcome.discovery?.rerun, true)
        let test = try XCTUnwrap(shell.ran.first { $0.contains("-resultBundlePath") })
        XCTAssertTrue(test.hasSuffix("-enableCodeCoverage NO -collect-test-diagnostics on-failure -resultBundlePath /Users/ci/xcfleet/jobs/ui-1a2b/result.xcresult -only-testing:AppTests/CartTests/testTotal"), test)
        XCTAssertFalse(test.contains("-only-test-configuration"), "no configurations: the whole test plan in one run")
    }

    func testOnlyTestingIdentifiersKeepSwiftTestingParentheses() {
        XCTAssertEqual(XcodebuildJob.onlyTestingIdentifier("AppTests.LoginTests/testSignIn"), "AppTests/LoginTests/testSignIn")
        XCTAssertEqual(XcodebuildJob.onlyTestingIdentifier("AppSwiftTests.PriceSuite/rounding()"), "AppSwiftTests/PriceSuite/rounding()")
        XCTAssertEqual(XcodebuildJob.onlyTestingIdentifier("AppSwiftTests.free()"), "AppSwiftTests/free()")
    }
}
