import XCTest
@testable import XCFleetBasics
@testable import XCFleetModel
@testable import XCFleetCore
import XCFleetTestSupport

/// Package suites' pure parts: the plan keys, `filter`/`skip` entries, which discovered tests an
/// attempt runs (shards, reruns), the commands, and the verdict over a discovered manifest.
final class PackageSuiteTests: XCTestCase {
    // MARK: Plan keys

    /// A repository in a temp folder: `.git`, a package `Pkg/` and the plan file beside it.
    private func repository() throws -> URL {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("pkgsuite-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root.appendingPathComponent(".git"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: root.appendingPathComponent("Pkg"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: root.appendingPathComponent("NotAPackage"), withIntermediateDirectories: true)
        try Data("// swift-tools-version:5.9\nimport PackageDescription\nlet package = Package(name: \"Pkg\")\n".utf8)
            .write(to: root.appendingPathComponent("Pkg/Package.swift"))
        addTeardownBlock { try? FileManager.default.removeItem(at: root) }
        return root
    }

    private func load(_ suite: String, in root: URL) -> (TestPlan?, [String]) {
        let path = root.appendingPathComponent("plan.json").path
        let text = "{\"name\": \"p\", \"suites\": [\(suite)]}"
        do {
            return (try PlanLoader.parse(Data(text.utf8), path: path, knownTemplates: ["cache-contract"]), [])
        } catch let error as PlanValidationError {
            return (nil, error.problems.map(\.description))
        } catch {
            return (nil, ["\(error)"])
        }
    }

    func testAPackageSuiteLoadsWithItsFolderFilterAndSkip() throws {
        let root = try repository()
        let (plan, problems) = load(#"{"name": "pkg", "package": "Pkg", "shards": 2, "filter": ["PkgTests"], "skip": ["PkgTests.Slow/*"]}"#, in: root)
        XCTAssertEqual(problems, [])
        let suite = try XCTUnwrap(plan?.suites.first)
        XCTAssertEqual(suite.template, "")
        XCTAssertEqual(suite.package?.directory, "Pkg")
        XCTAssertEqual(suite.package?.path, "Pkg")
        XCTAssertEqual(suite.package?.filter, ["PkgTests"])
        XCTAssertEqual(suite.package?.skip, ["PkgTests.Slow/*"])
        XCTAssertEqual(suite.shards, 2)
        XCTAssertEqual(suite.package?.repository, SafePath.resolvedExisting(root.path))

        let (top, topProblems) = load(#"{"name": "pkg", "package": "."}"#, in: root.appendingPathComponent("Pkg"))
        XCTAssertEqual(topProblems, [])
        XCTAssertEqual(top?.suites.first?.package?.directory, "Pkg", "the plan's own folder, relative to the repository above it")
    }

    func testEveryBadPackageKeyIsOneLineAtItsPosition() throws {
        let root = try repository()
        let cases: [(String, String)] = [
            (#"{"name": "a", "package": "Missing"}"#, "1:51: suites[0].package: package folder 'Missing' does not exist"),
            (#"{"name": "a", "package": "NotAPackage"}"#, "suites[0].package: 'NotAPackage' holds no Package.swift"),
            (#"{"name": "a", "package": "../.."}"#, "suites[0].package: the package path '../..' leaves the repository"),
            (#"{"name": "a", "package": "/abs"}"#, "suites[0].package: the package path must be relative to the plan"),
            (#"{"name": "a", "package": "Pkg", "template": "cache-contract"}"#, "suites[0].template: a suite names either a \"template\" or a \"package\", not both"),
            (#"{"name": "a"}"#, "or name your own package (\"package\": \"path/to/it\")"),
            (#"{"name": "a", "package": "Pkg", "filter": ["Pkg Tests"]}"#, "suites[0].filter[0]: an entry contains no spaces"),
            (#"{"name": "a", "package": "Pkg", "filter": ["^Pkg.*$"]}"#, "suites[0].filter[0]: an entry starts with a target name or '*'"),
            (#"{"name": "a", "package": "Pkg", "skip": ["Pkg|x"]}"#, "suites[0].skip[0]: '|' cannot appear in a test name"),
            (#"{"name": "a", "package": "Pkg", "filter": []}"#, "suites[0].filter: list at least one test name"),
            (#"{"name": "a", "package": "Pkg", "filter": "PkgTests"}"#, "suites[0].filter: expected an array, got a string"),
            (#"{"name": "a", "template": "cache-contract", "filter": ["X"]}"#, "suites[0].filter: filter narrows the tests of a package suite"),
            (#"{"name": "a", "package": "Pkg", "subject": {}}"#, "suites[0].subject: a package suite runs the package's own tests"),
            (#"{"name": "a", "package": "Pkg", "mutants": true}"#, "suites[0]: a package suite has no mutants"),
            (#"{"name": "a", "package": "Pkg", "destination": "platform=macOS"}"#, "suites[0]: a package suite runs `swift test` on the host"),
        ]
        for (suite, expected) in cases {
            let (plan, problems) = load(suite, in: root)
            XCTAssertNil(plan, suite)
            XCTAssertEqual(problems.count, 1, "\(suite): \(problems)")
            XCTAssertTrue(problems.first?.contains(expected) == true, "\(suite): \(problems)")
            XCTAssertTrue(problems.first?.hasPrefix(root.appendingPathComponent("plan.json").path + ":1:") == true, "file:line:col: \(problems)")
        }
    }

    func testFilterAndSkipAreNotDefaults() throws {
        let root = try repository()
        let path = root.appendingPathComponent("plan.json").path
        let text = #"{"name": "p", "defaults": {"filter": ["X"]}, "suites": [{"name": "a", "package": "Pkg"}]}"#
        XCTAssertThrowsError(try PlanLoader.parse(Data(text.utf8), path: path, knownTemplates: [])) { error in
            XCTAssertTrue("\(error)".contains("set filter in the package suite it narrows"), "\(error)")
        }
    }

    func testSuitesLoggedByOlderRunsStillDecode() throws {
        let old = #"{"name":"s","template":"cache-contract","kind":"gate","parameters":{},"requires":[],"shards":1,"repetitions":1,"retries":{"infrastructure":2,"testFailures":0},"allowFlaky":false,"mutants":false,"timeouts":{"connect":20,"push":120,"build":900,"test":900,"silence":300,"cleanup":60}}"#
        let suite = try JSONDecoder().decode(SuiteSpec.self, from: Data(old.utf8))
        XCTAssertNil(suite.package)
        let event = #"{"seq":1,"t":0,"body":{"note":{"_0":"x"}}}"#
        XCTAssertNoThrow(try JSONDecoder().decode(RunEvent.self, from: Data(event.utf8)))
    }

    func testTheDeclaredPackageNameNamesTheBundle() {
        XCTAssertEqual(PackageSuite.declaredName(manifest: "let package = Package(\n    name: \"swift-log\",\n products: []"), "swift-log")
        XCTAssertNil(PackageSuite.declaredName(manifest: "let package = Package(name: name)"))
        XCTAssertNil(PackageSuite.declaredName(manifest: "let package = Package(name: \"a b\")"), "not a plain name")
        XCTAssertNil(PackageSuite.declaredName(manifest: "let package = Package(name: \"$(rm -rf)\")"))
    }

    // MARK: filter / skip entries

    func testSelectionEntriesMatchWholeNamesOrPrefixesAtABoundary() {
        let tests = ["ShelfTests.ShelfTests/testPutAndTake", "ShelfTests.ShelfTestsSlow/testBig", "ShelfTests.CapacityTests/testZero",
                     "ShelfSwiftTests.OrderTests/fill(capacity:)", "ShelfSwiftTests.empty()"]
        func sel(_ e: String) -> [String] { tests.filter { TestSelection.matches(e, $0) } }
        XCTAssertEqual(sel("ShelfTests"), Array(tests.prefix(3)))
        XCTAssertEqual(sel("ShelfTests.ShelfTests"), ["ShelfTests.ShelfTests/testPutAndTake"], "a class, not a longer class name")
        XCTAssertEqual(sel("ShelfTests.ShelfTests/testPutAndTake"), ["ShelfTests.ShelfTests/testPutAndTake"])
        XCTAssertEqual(sel("ShelfSwiftTests.OrderTests/fill"), ["ShelfSwiftTests.OrderTests/fill(capacity:)"], "without the labels")
        XCTAssertEqual(sel("ShelfSwiftTests.OrderTests/fill(capacity:)"), ["ShelfSwiftTests.OrderTests/fill(capacity:)"])
        XCTAssertEqual(sel("*/testZ*"), ["ShelfTests.CapacityTests/testZero"])
        XCTAssertEqual(sel("*Slow"), ["ShelfTests.ShelfTestsSlow/testBig"])
        XCTAssertEqual(sel("Shelf"), [], "no partial target names")
        XCTAssertEqual(TestSelection.apply(filter: ["ShelfTests"], skip: ["*/testBig"], to: tests),
                       ["ShelfTests.ShelfTests/testPutAndTake", "ShelfTests.CapacityTests/testZero"])
        // Many stars cannot make matching slow.
        let long = String(repeating: "a", count: 200)
        XCTAssertFalse(TestSelection.matches(String(repeating: "*a", count: 100) + "b", long))
    }

    // MARK: What an attempt runs

    private func listed(_ n: Int) -> [DiscoveredTest] {
        (0..<n).map { i in i % 3 == 0 ? DiscoveredTest(target: "T", name: "S/t\(i)()", isSwiftTesting: true)
                                      : DiscoveredTest(target: "T", name: "C/test\(i)", isSwiftTesting: false) }
    }

    func testShardsAreDisjointAndCoverTheFilteredList() {
        let package = PackageSuite(path: ".", repository: "/r", directory: "", skip: ["T.C/test1"])
        for shards in [1, 2, 3, 7, 40] {
            let parts = (0..<shards).map { PackageSelection.select(listed: listed(23), package: package, shard: $0, shardCount: shards).selected }
            let all = parts.flatMap { $0 }
            XCTAssertEqual(all.count, Set(all).count, "disjoint with \(shards) shards")
            XCTAssertEqual(Set(all), Set(listed(23).map { "T.\($0.name)" }).subtracting(["T.C/test1"]), "covering with \(shards) shards")
            XCTAssertLessThanOrEqual((parts.map(\.count).max() ?? 0) - (parts.map(\.count).min() ?? 0), 1, "equal counts without durations")
        }
        let empty = PackageSelection.select(listed: listed(2), package: nil, shard: 3, shardCount: 4)
        XCTAssertTrue(empty.emptyShard, "more shards than tests: the last ones run nothing, and that is no problem")
    }

    func testDurationsSplitLongestFirstTheSameOnEveryShard() {
        let durations = ["C/test1": 10.0, "C/test2": 9, "T.C/test4": 1]
        let parts = (0..<2).map { PackageSelection.select(listed: listed(6), package: nil, shard: $0, shardCount: 2, durations: durations).selected }
        XCTAssertTrue(parts[0].contains("T.C/test1"))
        XCTAssertTrue(parts[1].contains("T.C/test2"), "the two longest go to different shards")
        XCTAssertEqual(Set(parts[0]).intersection(parts[1]), [])
    }

    func testEmptyListsFailuresAndFiltersThatSelectNothingAreProblems() {
        XCTAssertEqual(PackageSelection.select(listed: [], package: nil, shard: 0, shardCount: 1).problem?.contains("list no tests"), true)
        XCTAssertEqual(PackageSelection.select(listed: listed(3), listFailure: "boom", package: nil, shard: 0, shardCount: 1).problem, "boom")
        let narrow = PackageSuite(path: ".", repository: "/r", directory: "", filter: ["Nope"])
        XCTAssertEqual(PackageSelection.select(listed: listed(3), package: narrow, shard: 0, shardCount: 1).problem?.contains("select none of the 3"), true)
    }

    func testARerunRunsOnlyWhatDidNotPassOfItsPart() {
        let rerun = PackageSelection.select(listed: listed(6), package: nil, shard: 0, shardCount: 1, rerun: ["T.C/test2", "T.Gone/x"])
        XCTAssertEqual(rerun.selected, ["T.C/test2"])
        XCTAssertEqual(rerun.rerun, true)
    }

    func testNotPassedNamesFailedAndMissingButNotSkippedTests() {
        let found = TestsDiscovered(tests: ["T.C/testA", "T.C/testB", "T.S/c()", "T.S/d()"], selected: ["T.C/testA", "T.C/testB", "T.S/c()", "T.S/d()"])
        let attempt = SampleReports.attempt(1, host: "h", start: 0, tests: [
            SampleReports.test("C/testA", .passed), SampleReports.test("C/testB", .failed),
            SampleReports.test("c()", .skipped),
        ])
        XCTAssertEqual(PackageSelection.notPassed(found, attempt: attempt), ["T.C/testB", "T.S/d()"])
    }

    // MARK: Commands

    func testCommandsRunEachLibraryOnlyForItsSelectedTests() {
        let b = "/w/builds/k/Pkg/.build/debug/PkgPackageTests.xctest"
        XCTAssertEqual(PackageTestCommands.list(bundle: b, packageFolder: "/w/builds/k/Pkg", records: "/j/r", darwin: false).suffix(3), [b, "/j/r", PackageTestCommands.recordsMarker])
        func input(_ c: ShellCommand) -> [String] { String(decoding: c.input ?? [], as: UTF8.self).split(separator: "\n").map(String.init) }
        let all = PackageTestCommands.run(bundle: b, packageFolder: "", darwin: false, selected: nil, all: ["T.C/a", "T.S/c()"], swiftTesting: ["T.S/c()"])
        XCTAssertEqual(all.arguments.last, b, "the selection is not on the command line")
        XCTAssertEqual(input(all), ["x*", "t*"], "every XCTest, and Swift Testing unfiltered")
        let noTesting = PackageTestCommands.run(bundle: b, packageFolder: "", darwin: false, selected: nil, all: ["T.C/a"], swiftTesting: [])
        XCTAssertEqual(input(noTesting), ["x*"], "a bundle without Swift Testing tests does not start it")
        let some = PackageTestCommands.run(bundle: b, packageFolder: "", darwin: false, selected: ["T.C/testA", "T.S/c()"], all: [], swiftTesting: ["T.S/c()"])
        XCTAssertEqual(input(some), ["x T.C/testA", #"t ^(T\.S/c\(\))(/|$)"#])
        let onlyXCTest = PackageTestCommands.run(bundle: b, packageFolder: "", darwin: false, selected: ["T.C/testA"], all: [], swiftTesting: [])
        XCTAssertEqual(input(onlyXCTest), ["x T.C/testA"], "Swift Testing is not started")
        let onlyTesting = PackageTestCommands.run(bundle: b, packageFolder: "", darwin: false, selected: ["T.S/c()"], all: [], swiftTesting: ["T.S/c()"])
        XCTAssertEqual(input(onlyTesting), [#"t ^(T\.S/c\(\))(/|$)"#], "XCTest is not started")
        let mac = PackageTestCommands.run(bundle: b, packageFolder: "/p", darwin: true, selected: ["T.C/a"], all: [], swiftTesting: [])
        XCTAssertEqual(input(mac), [#"^(T\.C/a)(/|$)"#])
        XCTAssertEqual(Array(mac.arguments.suffix(1)), ["/p"])
        XCTAssertNil(PackageTestCommands.run(bundle: b, packageFolder: "/p", darwin: true, selected: nil, all: [], swiftTesting: []).input,
                     "every test: no filter")
    }

    /// A selection longer than one argument may be is split into parts, none longer than the
    /// bound, that together name every selected test once.
    func testALongSelectionIsSplitIntoPartsThatEachFitOneArgument() {
        let xctest = (0..<3_000).map { "BigTests.Generated\($0 / 100)Tests/testNumber\($0)" }
        let testing = (0..<2_000).map { "BigTests.Suite\($0 / 100)/check\($0)()" }
        let c = PackageTestCommands.run(bundle: "/b", packageFolder: "", darwin: false, selected: xctest + testing, all: [],
                                        swiftTesting: Set(testing), partBytes: 10_000)
        let lines = String(decoding: c.input ?? [], as: UTF8.self).split(separator: "\n").map(String.init)
        let x = lines.filter { $0.hasPrefix("x ") }.map { String($0.dropFirst(2)) }, t = lines.filter { $0.hasPrefix("t ") }.map { String($0.dropFirst(2)) }
        XCTAssertGreaterThan(x.count, 5)
        XCTAssertGreaterThan(t.count, 5)
        XCTAssertTrue((x + t).allSatisfy { $0.utf8.count <= 10_000 }, "every part fits the bound")
        XCTAssertEqual(x.flatMap { $0.split(separator: ",").map(String.init) }, xctest, "each XCTest test once, in order")
        for name in testing.prefix(50) + testing.suffix(50) {
            let matching = t.filter { (try? Regex($0)).map { name.wholeMatch(of: $0) != nil || name.prefixMatch(of: $0) != nil } ?? false }
            XCTAssertEqual(matching.count, 1, name)
        }
        XCTAssertEqual(c.arguments.count, 5, "the command line does not grow with the selection")
    }

    /// A chained template test decides on the host which library to start from the listing it just
    /// wrote (real `sh` and `awk`; the bundle is a script that prints how it was started).
    func testRunListedStartsEachLibraryTheListingNames() throws {
        let dir = NSTemporaryDirectory() + "runlisted-\(UUID().uuidString.prefix(6))"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let bundle = dir + "/PkgPackageTests.xctest", listing = dir + "/listing"
        try ("#!/bin/sh\n" + #"echo "run:$*"; [ "${1:-}" != --testing-library ] || exit "${ST_STATUS:-0}""# + "\n")
            .write(toFile: bundle, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: bundle)
        func run(_ listed: String, stStatus: Int = 0) throws -> (out: String, status: Int32) {
            try listed.write(toFile: listing, atomically: true, encoding: .utf8)
            let args = PackageTestCommands.runListed(bundle: bundle, packageFolder: dir, darwin: false, listing: listing)
            let r = try TestShell.runProcess("/usr/bin/env", ["ST_STATUS=\(stStatus)"] + args)
            return (r.stdout, r.status)
        }
        let marker = PackageTestCommands.recordsMarker
        XCTAssertEqual(try run("T.C/testA\nT.C/testB\n").out, "run:\n", "XCTest only: Swift Testing is not started")
        XCTAssertEqual(try run("T.S/c()\n\(marker)\n{\"kind\":\"test\"}\n").out, "run:--testing-library swift-testing\n",
                       "Swift Testing only (its records after the marker are not tests)")
        let both = try run("T.C/testA\nT.S/c(x:)\n\(marker)\n", stStatus: 3)
        XCTAssertEqual(both.out, "run:\nrun:--testing-library swift-testing\n")
        XCTAssertEqual(both.status, 3, "the run fails when either library did")
        XCTAssertEqual(try run("").out, "", "nothing listed: nothing started")
        try? FileManager.default.removeItem(atPath: listing)
        XCTAssertNotEqual(try TestShell.runProcess("/bin/sh", Array(PackageTestCommands.runListed(bundle: bundle, packageFolder: dir, darwin: false,
                                                                                                 listing: listing).dropFirst())).status, 0,
                          "no listing file: the run fails")
        // macOS: `run`'s every-test form, its standard input not the exec's.
        let mac = PackageTestCommands.runListed(bundle: bundle, packageFolder: "/p", darwin: true, listing: listing)
        XCTAssertEqual(Array(mac.prefix(4)), ["sh", "-c", #"exec </dev/null; exec "$@""#, "sh"])
        XCTAssertEqual(Array(mac.dropFirst(4)), PackageTestCommands.run(bundle: bundle, packageFolder: "/p", darwin: true, selected: nil,
                                                                        all: [], swiftTesting: []).arguments)
    }

    func testSwiftTestingRecordsGiveDisplayNames() {
        let lines = [
            #"{"kind":"test","payload":{"displayName":"Adds two values","id":"T.S\/add()\/S.swift:3:6","kind":"function","name":"add()"},"version":0}"#,
            #"{"kind":"test","payload":{"displayName":"A suite","id":"T.S","kind":"suite","name":"S"},"version":0}"#,
            #"{"kind":"test","payload":{"id":"T.S\/plain()\/S.swift:9:6","kind":"function","name":"plain()"},"version":0}"#,
            "T.S/add()", "{not json", #"{"kind":"test","payload":[]}"#,
        ]
        XCTAssertEqual(SwiftTestingRecords.displayNames(lines.map { Substring($0) }), ["T.S/add()": "Adds two values"])
        let found = PackageSelection.select(listed: [DiscoveredTest(target: "T", name: "S/add()", isSwiftTesting: true)], package: nil,
                                            shard: 0, shardCount: 1, displayNames: ["T.S/add()": "Adds two values", "T.Gone/x()": "x"])
        XCTAssertEqual(found.displayNames, ["T.S/add()": "Adds two values"])
        XCTAssertEqual(found.resultName(of: "T.S/add()"), "Adds two values")
        var attempt = SampleReports.attempt(1, host: "h", start: 0, tests: [SampleReports.test("Adds two values", .passed)])
        attempt.discovery = found
        XCTAssertEqual(Verdict.problems(of: attempt, expected: []), [], "a test is found by its display name")
        // A display name may hold a slash.
        var slashed = PackageSelection.select(listed: [DiscoveredTest(target: "T", name: "S/pick()", isSwiftTesting: true)], package: nil,
                                              shard: 0, shardCount: 1, displayNames: ["T.S/pick()": "String/Data picks String"])
        var withSlash = SampleReports.attempt(1, host: "h", start: 0, tests: [TestResult(id: TestIdentifier(suite: "", name: "String/Data picks String"), status: .passed)])
        withSlash.discovery = slashed
        XCTAssertEqual(Verdict.problems(of: withSlash, expected: []), [])
        XCTAssertEqual(PackageSelection.notPassed(slashed, attempt: withSlash), [])
        slashed.selected = []
    }

    // MARK: Verdict over a discovered manifest

    func testGreenNeedsEverySelectedEnabledTestPassing() {
        let found = TestsDiscovered(tests: ["T.C/testA", "T.S/c()", "T.off()"], selected: ["T.C/testA", "T.S/c()", "T.off()"])
        var attempt = SampleReports.attempt(1, host: "h", start: 0, tests: [SampleReports.test("C/testA", .passed), SampleReports.test("c()", .passed),
                                                    SampleReports.test("off()", .skipped)])
        attempt.discovery = found
        XCTAssertEqual(Verdict.problems(of: attempt, expected: []), [], "a disabled test (seen skipped) is not required")
        attempt.tests.remove(at: 1)
        XCTAssertEqual(Verdict.problems(of: attempt, expected: []), ["1 expected test was not seen passing: c()"])
        attempt.discovery?.problem = "the built products list no tests"
        XCTAssertTrue(Verdict.problems(of: attempt, expected: []).contains("test discovery: the built products list no tests"))
        var emptyShard = SampleReports.attempt(1, host: "h", start: 0, tests: [])
        emptyShard.discovery = TestsDiscovered(tests: ["T.C/testA"], selected: [])
        XCTAssertEqual(Verdict.problems(of: emptyShard, expected: []), [])
    }
}

/// The rest of the package path through the pure parts: the attempt machine's discover step, the
/// collator's rerun carry, the scheduler's rerun on another host.
final class PackageAttemptTests: XCTestCase {
    private var source: JobSource { JobSource(origin: .package("Pkg"), workspace: Workspace(files: []), driver: .swiftPM) }

    func testAPackageAttemptDiscoversBetweenBuildAndTest() {
        XCTAssertEqual(source.steps, [.push, .build, .discover, .test, .collect])
        var machine = AttemptMachine(AttemptMachine.Plan(source: source, host: "h", cleanupSeconds: 5))
        XCTAssertEqual(machine.start(), [.phaseStarted(.push), .perform(.push)])
        _ = machine.stepEnded(.pushed(directory: "/j"))
        XCTAssertEqual(machine.stepEnded(.ended(.exited(0))), [.phaseFinished(.build), .phaseStarted(.build), .perform(.discover)])
        XCTAssertEqual(machine.stepEnded(.discovered(problem: nil)), [.phaseFinished(.build), .phaseStarted(.test), .perform(.test)])
    }

    func testADiscoveryProblemEndsTheAttemptBeforeTheTests() {
        var machine = AttemptMachine(AttemptMachine.Plan(source: source, host: "h", cleanupSeconds: 5))
        _ = machine.start()
        _ = machine.stepEnded(.pushed(directory: "/j"))
        _ = machine.stepEnded(.ended(.exited(0)))
        XCTAssertEqual(machine.stepEnded(.discovered(problem: "no tests")),
                       [.phaseFinished(.build), .phaseStarted(.cleanup), .cleanUp(directory: "/j", seconds: 5)])
        XCTAssertFalse(machine.stepEnded(.ended(.exited(0))).contains(.perform(.test)))
    }

    func testATemplateSourceDiscoversItsTestsToo() {
        XCTAssertEqual(JobSource(origin: .template("cache-contract"), workspace: Workspace(files: []), driver: .swiftPM).steps, [.push, .build, .discover, .test, .collect])
    }

    func testARerunByTestCarriesWhatPassedBeforeIntoTheDecisiveAttempt() {
        var first = SampleReports.attempt(1, host: "a", start: 0, tests: [SampleReports.test("C/testA", .passed), SampleReports.test("C/testB", .failed)])
        first.discovery = TestsDiscovered(tests: ["T.C/testA", "T.C/testB"], selected: ["T.C/testA", "T.C/testB"])
        var second = SampleReports.attempt(2, host: "b", start: 5, tests: [SampleReports.test("C/testB", .passed)])
        second.discovery = TestsDiscovered(tests: ["T.C/testA", "T.C/testB"], selected: ["T.C/testB"], rerun: true)
        let merged = Collator.carryingPassedIntoReruns([first, second])
        XCTAssertEqual(merged[1].tests.map(\.id.name), ["testA", "testB"])
        XCTAssertEqual(merged[1].tests.map(\.status), [.passed, .passed])
        XCTAssertEqual(merged[0].tests.count, 2, "the first attempt is unchanged")
        var lost = first
        lost.lost = true
        XCTAssertEqual(Collator.carryingPassedIntoReruns([lost, second])[1].tests.count, 1, "a lost attempt carries nothing")
    }

    func testARerunAfterTestFailuresPrefersAnotherHostWithAFreeSlot() {
        var scheduler = Scheduler(jobs: [SchedulerJob(id: "j", suite: "s", testRetries: 1)],
                                  hosts: [SchedulerHost(name: "a"), SchedulerHost(name: "b")])
        XCTAssertEqual(scheduler.start(), [.start(jobID: "j", attempt: 1, host: "a", slot: 0)])
        XCTAssertEqual(scheduler.attemptFinished(jobID: "j", attempt: 1, outcome: .testsFailed),
                       [.start(jobID: "j", attempt: 2, host: "b", slot: 0)])

        var alone = Scheduler(jobs: [SchedulerJob(id: "j", suite: "s", testRetries: 1)], hosts: [SchedulerHost(name: "a")])
        _ = alone.start()
        XCTAssertEqual(alone.attemptFinished(jobID: "j", attempt: 1, outcome: .testsFailed),
                       [.start(jobID: "j", attempt: 2, host: "a", slot: 0)], "the same host when it is the only one")
    }
}
