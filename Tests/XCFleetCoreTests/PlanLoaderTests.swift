import XCTest
@testable import XCFleetBasics
@testable import XCFleetModel
@testable import XCFleetCore
import XCFleetTestSupport

final class PlanLoaderTests: XCTestCase {
    static let templates: Set<String> = ["cache-contract", "pressure-probes", "combine-lifetime"]

    /// The folder of this file: fixtures live in `Fixtures/` next to it.
    static let testsFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()

    /// The package root: the first folder above this file holding `Package.swift`.
    static var packageRoot: URL? {
        var dir = testsFolder
        while dir.path != "/" {
            if FileManager.default.fileExists(atPath: dir.appendingPathComponent("Package.swift").path) { return dir }
            dir = dir.deletingLastPathComponent()
        }
        return nil
    }

    /// Problem lines for `text` named `name`, or [] when it loads.
    func problems(_ text: String, name: String = "x.json", templates: Set<String> = PlanLoaderTests.templates) -> [String] {
        do {
            _ = try PlanLoader.parse(Data(text.utf8), path: name, knownTemplates: templates)
            return []
        } catch let error as PlanValidationError {
            return error.problems.map(\.description)
        } catch {
            return ["unexpected error type: \(error)"]
        }
    }

    func fixture(_ name: String) throws -> Data {
        try Data(contentsOf: TestPaths.fixtures.appendingPathComponent("plans/\(name)"))
    }

    func fixtureProblems(_ name: String) throws -> [String] {
        problems(String(decoding: try fixture(name), as: UTF8.self), name: "plans/\(name)")
    }

    func plan(_ text: String) throws -> TestPlan {
        try PlanLoader.parse(Data(text.utf8), path: "x.json", knownTemplates: Self.templates)
    }

    // MARK: The project's plans

    func testProjectPlansLoadCleanly() throws {
        guard let root = Self.packageRoot else { throw XCTSkip("Package.swift not found above \(#filePath)") }
        func load(_ name: String) throws -> TestPlan {
            try PlanLoader.load(path: root.appendingPathComponent("Plans/\(name)").path, knownTemplates: Self.templates)
        }
        let cache = try load("cache-contract.json")
        XCTAssertEqual(cache.name, "cache-contract")
        XCTAssertEqual(cache.suites.map(\.name), ["cache-gate"])
        XCTAssertEqual(cache.suites[0].template, "cache-contract")
        XCTAssertEqual(cache.suites[0].kind, .gate)
        XCTAssertEqual(cache.suites[0].parameters, ["costLimitBytes": .int(4_194_304)])
        XCTAssertEqual(cache.suites[0].timeouts.test, 600)
        XCTAssertTrue(cache.sourcePath.hasSuffix("Plans/cache-contract.json"))

        let probes = try load("pressure-probes.json")
        XCTAssertEqual(probes.suites[0].kind, .probe)
        XCTAssertEqual(probes.suites[0].repetitions, 3)
        XCTAssertEqual(probes.suites[0].parameters["objectSizes"], .string("512,4096,65536"))
        XCTAssertEqual(probes.suites[0].parameters["costLimitBytes"], .int(4_194_304))

        let combine = try load("combine-lifetime.json")
        XCTAssertEqual(combine.suites[0].template, "combine-lifetime")
        XCTAssertEqual(combine.suites[0].requires, ["combine", "platform:macos"])
        XCTAssertEqual(combine.suites[0].xcode, "16.4")
        XCTAssertEqual(combine.suites[0].destination, "platform=macOS")

        let nightly = try load("nightly.json")
        XCTAssertEqual(nightly.suites.map(\.template), ["cache-contract", "pressure-probes", "combine-lifetime"])
        XCTAssertEqual(nightly.suites.map(\.mutants), [true, false, false])
        XCTAssertEqual(nightly.suites.map(\.kind), [.gate, .probe, .gate])
        // Defaults reach every suite; the combine suite's own shorthand wins for the test phase.
        XCTAssertEqual(nightly.suites.map(\.timeouts.test), [900, 900, 600])
        XCTAssertEqual(nightly.suites.map(\.timeouts.connect), [30, 30, 30])
    }

    func testEveryProjectPlanIsCoveredAndValid() throws {
        guard let root = Self.packageRoot else { throw XCTSkip("Package.swift not found above \(#filePath)") }
        let folder = root.appendingPathComponent("Plans")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".json") }.sorted()
        XCTAssertEqual(names, ["cache-contract.json", "combine-lifetime.json", "nightly.json", "pressure-probes.json"])
        for name in names {
            XCTAssertNoThrow(try PlanLoader.load(path: folder.appendingPathComponent(name).path, knownTemplates: Self.templates), name)
        }
    }

    // MARK: Many problems at once

    func testManyProblemsAreReportedTogetherWithPositions() throws {
        XCTAssertEqual(try fixtureProblems("many-problems.json"), [
            "plans/many-problems.json:3:3: descripton: unknown key 'descripton'; did you mean 'description'?",
            "plans/many-problems.json:8:7: suites[0].timout: unknown key 'timout'; did you mean 'timeouts'?",
            "plans/many-problems.json:9:17: suites[0].shards: must be between 1 and 64 (got 0)",
            "plans/many-problems.json:12:15: suites[1].name: duplicate suite name 'cache-gate' (also suites[0] at line 6); give each suite its own name",
            "plans/many-problems.json:13:19: suites[1].template: unknown template 'cache-contrakt'; did you mean 'cache-contract'? (known templates: cache-contract, combine-lifetime, pressure-probes)",
            "plans/many-problems.json:14:25: suites[1].timeoutSeconds: must be between 1 and 86400 (got 0)",
            "plans/many-problems.json:15:15: suites[1].kind: must be one of 'gate', 'probe' (got 'gat'); did you mean 'gate'?",
            "plans/many-problems.json:16:22: suites[1].repetitions: expected a number, got a string; write 3 without quotes",
            "plans/many-problems.json:18:5: suites[2].name: missing required key 'name'; give the suite a name of letters, digits, '.', '_' or '-'",
            "plans/many-problems.json:19:19: suites[2].template: unknown template 'mystery'; known templates: cache-contract, combine-lifetime, pressure-probes (a template of your own is found with --templates DIR)",
            "plans/many-problems.json:20:38: suites[2].retries.infrastructure: must be between 0 and 10 (got 11)",
            "plans/many-problems.json:21:29: suites[2].timeouts.test: must be between 1 and 86400 (got 1e400)",
            "plans/many-problems.json:22:32: suites[2].parameters.sizes: expected a string, number or bool, or {\"value\": …, \"secret\": true}, got an array",
        ])
    }

    func testErrorCarriesStructuredProblemsAndJoinedDescription() throws {
        let text = """
        {"name": "p", "suites": [{"name": "a", "template": "cache-contract", "shards": 0, "repetitions": 0}]}
        """
        XCTAssertThrowsError(try plan(text)) { error in
            guard let error = error as? PlanValidationError else { return XCTFail("wrong error type \(error)") }
            XCTAssertEqual(error.problems.count, 2)
            XCTAssertEqual(error.problems[0], PlanProblem(file: "x.json", path: "suites[0].shards", line: 1, column: 80,
                                                          message: "must be between 1 and 64 (got 0)"))
            XCTAssertEqual(error.problems[1].path, "suites[0].repetitions")
            XCTAssertEqual(error.description, """
            x.json:1:80: suites[0].shards: must be between 1 and 64 (got 0)
            x.json:1:98: suites[0].repetitions: must be between 1 and 100 (got 0)
            """)
            XCTAssertEqual(error.localizedDescription, error.description)
        }
    }

    func testProblemRendering() {
        XCTAssertEqual(PlanProblem(file: "a.json", path: "suites[0]", line: 3, column: 4, message: "m").description, "a.json:3:4: suites[0]: m")
        XCTAssertEqual(PlanProblem(file: "a.json", path: "", line: 3, column: nil, message: "m").description, "a.json:3: m")
        XCTAssertEqual(PlanProblem(file: "a.json", path: "name", message: "m").description, "a.json: name: m")
        XCTAssertEqual(PlanValidationError(problems: [PlanProblem(file: "f", path: "", message: "a"),
                                                      PlanProblem(file: "f", path: "", message: "b")]).description, "f: a\nf: b")
    }

    // MARK: Single problem kinds

    func testInvalidJSONIsOneProblemWithLineAndColumn() throws {
        XCTAssertEqual(try fixtureProblems("invalid-json.json"), [
            "plans/invalid-json.json:5:5: invalid JSON: expected ',' or ']' after an element, got '{'",
        ])
        XCTAssertEqual(problems(""), ["x.json:1:1: invalid JSON: the file is empty; expected a JSON object"])
    }

    func testDuplicateKeyIsRejected() throws {
        XCTAssertEqual(try fixtureProblems("duplicate-key.json"), [
            "plans/duplicate-key.json:3:73: invalid JSON: duplicate key \"shards\" (first at line 3); each key may appear once",
        ])
    }

    func testEmptySuiteList() throws {
        XCTAssertEqual(try fixtureProblems("empty-suites.json"), [
            "plans/empty-suites.json:1:39: suites: must list at least one suite",
        ])
    }

    func testMissingRequiredKeys() {
        XCTAssertEqual(problems("{}"), [
            "x.json:1:1: name: missing required key 'name'; give the plan a name, e.g. \"name\": \"nightly\"",
            "x.json:1:1: suites: missing required key 'suites'; list the suites to run, e.g. \"suites\": [{\"name\": \"cache-gate\", \"template\": \"cache-contract\"}]",
        ])
        XCTAssertEqual(problems(#"{"name": "p", "suites": [{"name": "a"}]}"#), [
            "x.json:1:26: suites[0].template: missing required key 'template'; known templates: cache-contract, combine-lifetime, pressure-probes; or name your own package (\"package\": \"path/to/it\") or Xcode project (\"project\": \"App.xcodeproj\", \"scheme\": \"App\")",
        ])
    }

    func testWrongTypes() {
        XCTAssertEqual(problems("[]"), ["x.json:1:1: expected an object, got an array"])
        XCTAssertEqual(problems(#"{"name": 7, "suites": {}}"#), [
            "x.json:1:10: name: expected a string, got a number",
            "x.json:1:23: suites: expected an array of suites, got an object",
        ])
        let text = """
        {"name": "p", "suites": [
          "cache-gate",
          {"name": "a", "template": "cache-contract", "parameters": [], "requires": ["combine", 3, ""],
           "allowFlaky": "true", "mutants": null, "xcode": 16.4, "retries": 2, "timeouts": {"test": "60"}}
        ]}
        """
        XCTAssertEqual(problems(text), [
            "x.json:2:3: suites[0]: expected an object, got a string",
            "x.json:3:61: suites[1].parameters: expected an object, got an array",
            "x.json:3:89: suites[1].requires[1]: expected a string, got a number",
            "x.json:3:92: suites[1].requires[2]: must not be empty; give a capability such as 'combine' or 'platform:macos'",
            "x.json:4:18: suites[1].allowFlaky: expected true or false, got a string; write true without quotes",
            "x.json:4:37: suites[1].mutants: expected true or false, got null",
            "x.json:4:52: suites[1].xcode: expected a string, got a number; write the version in quotes: \"16.4\"",
            "x.json:4:69: suites[1].retries: expected an object, got a number",
            "x.json:4:93: suites[1].timeouts.test: expected a number of seconds, got a string; write 60 without quotes",
        ])
    }

    func testUnknownKeysSuggestOrList() {
        XCTAssertEqual(problems(#"{"name": "p", "Suites": [], "suites": [{"name": "a", "template": "cache-contract", "timeouts": {"tset": 5, "zzz": 1}}]}"#), [
            "x.json:1:15: Suites: unknown key 'Suites'; did you mean 'suites'?",
            "x.json:1:97: suites[0].timeouts.tset: unknown key 'tset'; did you mean 'test'?",
            "x.json:1:108: suites[0].timeouts.zzz: unknown key 'zzz'; allowed keys are connect, push, build, test, silence, cleanup",
        ])
    }

    func testUnknownTemplates() {
        XCTAssertEqual(problems(#"{"name": "p", "suites": [{"name": "a", "template": "cache"}]}"#, templates: []), [
            "x.json:1:52: suites[0].template: unknown template 'cache'; no templates are installed (a template of your own is found with --templates DIR)",
        ])
        XCTAssertEqual(problems(#"{"name": "p", "suites": [{"name": "a", "template": "combine_lifetime"}]}"#), [
            "x.json:1:52: suites[0].template: unknown template 'combine_lifetime'; did you mean 'combine-lifetime'? (known templates: cache-contract, combine-lifetime, pressure-probes)",
        ])
    }

    func testRangesAndBoundaries() throws {
        let ok = try plan("""
        {"name": "p", "suites": [{"name": "a.b_c-1", "template": "cache-contract", "shards": 64, "repetitions": 100,
          "retries": {"infrastructure": 0, "testFailures": 10}, "timeouts": {"connect": 1, "test": 86400, "build": 2.5}}]}
        """)
        XCTAssertEqual(ok.suites[0].shards, 64)
        XCTAssertEqual(ok.suites[0].repetitions, 100)
        XCTAssertEqual(ok.suites[0].retries, RetryPolicy(infrastructure: 0, testFailures: 10))
        XCTAssertEqual(ok.suites[0].timeouts.connect, 1)
        XCTAssertEqual(ok.suites[0].timeouts.test, 86400)
        XCTAssertEqual(ok.suites[0].timeouts.build, 2.5)

        XCTAssertEqual(problems("""
        {"name": "p", "suites": [{"name": "a", "template": "cache-contract", "shards": 65, "repetitions": 1.5,
          "retries": {"testFailures": -1}, "timeouts": {"cleanup": 86401, "push": 0.5}, "timeoutSeconds": 99999999999999999999999}]}
        """), [
            "x.json:1:80: suites[0].shards: must be between 1 and 64 (got 65)",
            "x.json:1:99: suites[0].repetitions: must be a whole number between 1 and 100 (got 1.5)",
            "x.json:2:31: suites[0].retries.testFailures: must be between 0 and 10 (got -1)",
            "x.json:2:60: suites[0].timeouts.cleanup: must be between 1 and 86400 (got 86401)",
            "x.json:2:75: suites[0].timeouts.push: must be between 1 and 86400 (got 0.5)",
            "x.json:2:99: suites[0].timeoutSeconds: must be between 1 and 86400 (got 99999999999999999999999)",
        ])
    }

    func testSuiteNamesMustBeSimpleAndUnique() {
        XCTAssertEqual(problems("""
        {"name": "p", "suites": [
          {"name": "cache gate", "template": "cache-contract"},
          {"name": "", "template": "cache-contract"},
          {"name": "b", "template": "cache-contract"},
          {"name": "b", "template": "cache-contract"},
          {"name": "b", "template": "cache-contract"}
        ]}
        """), [
            "x.json:2:12: suites[0].name: must be 1 to 100 letters, digits, '.', '_' or '-' (got 'cache gate')",
            "x.json:3:12: suites[1].name: must be 1 to 100 letters, digits, '.', '_' or '-' (got '')",
            "x.json:5:12: suites[3].name: duplicate suite name 'b' (also suites[2] at line 4); give each suite its own name",
            "x.json:6:12: suites[4].name: duplicate suite name 'b' (also suites[2] at line 4); give each suite its own name",
        ])
    }

    func testTimeoutShorthandConflictsWithExplicitTestTimeout() {
        XCTAssertEqual(problems(#"{"name": "p", "suites": [{"name": "a", "template": "cache-contract", "timeouts": {"test": 5}, "timeoutSeconds": 6}]}"#), [
            "x.json:1:113: suites[0].timeoutSeconds: timeoutSeconds is shorthand for timeouts.test; set only one of them",
        ])
    }

    func testProbeCannotRunMutants() {
        XCTAssertEqual(problems(#"{"name": "p", "defaults": {"mutants": true}, "suites": [{"name": "a", "template": "pressure-probes", "kind": "probe"}]}"#), [
            "x.json:1:57: suites[0]: a probe cannot run mutants (only gates can kill them); set \"mutants\": false or \"kind\": \"gate\"",
        ])
    }

    func testParameterNamesAndValues() throws {
        let p = try plan(#"{"name": "p", "suites": [{"name": "a", "template": "cache-contract", "parameters": {"i": -3, "d": 1e3, "f": 0.25, "s": "x", "b": false, "big": 123456789012345678901234567890}}]}"#)
        let big = try XCTUnwrap(Double("123456789012345678901234567890"))
        XCTAssertEqual(p.suites[0].parameters, ["i": .int(-3), "d": .double(1000), "f": .double(0.25), "s": .string("x"), "b": .bool(false),
                                                "big": .double(big)])
        XCTAssertEqual(problems(#"{"name": "p", "suites": [{"name": "a", "template": "cache-contract", "parameters": {"two words": 1, "n": null, "o": {}, "h": 1e999}}]}"#), [
            "x.json:1:85: suites[0].parameters[\"two words\"]: parameter names must be identifiers (letters, digits and '_', not starting with a digit)",
            "x.json:1:106: suites[0].parameters.n: expected a string, number or bool, or {\"value\": …, \"secret\": true}, got null",
            "x.json:1:117: suites[0].parameters.o.value: missing required key 'value'; give the parameter's value",
            "x.json:1:126: suites[0].parameters.h: number out of range (got 1e999)",
        ])
    }

    func testDefaultsApplyAndSuiteKeysOverride() throws {
        let p = try PlanLoader.parse(try fixture("defaults.json"), path: "defaults.json", knownTemplates: Self.templates)
        XCTAssertEqual(p.suites.count, 2)
        let inherits = p.suites[0]
        XCTAssertEqual(inherits, SuiteSpec(
            name: "inherits", template: "pressure-probes", kind: .probe,
            parameters: ["costLimitBytes": .int(1024), "mode": .string("fast")], requires: ["platform:macos"],
            shards: 4, repetitions: 2, retries: RetryPolicy(infrastructure: 5, testFailures: 0), allowFlaky: true,
            mutants: false, timeouts: PhaseTimeouts(build: 100, test: 200), destination: "platform=macOS", xcode: "16.4"))
        let overrides = p.suites[1]
        XCTAssertEqual(overrides, SuiteSpec(
            name: "overrides", template: "cache-contract", kind: .gate,
            parameters: ["costLimitBytes": .int(2048), "mode": .string("fast"), "verbose": .bool(true), "ratio": .double(0.5)],
            requires: [], shards: 1, repetitions: 2, retries: RetryPolicy(infrastructure: 5, testFailures: 1),
            allowFlaky: false, mutants: false, timeouts: PhaseTimeouts(build: 300, test: 50),
            destination: "platform=macOS", xcode: "16.3"))
    }

    func testBuiltInDefaultsWithoutDefaultsObject() throws {
        let p = try plan(#"{"name": "p", "description": "d", "suites": [{"name": "a", "template": "cache-contract"}]}"#)
        XCTAssertEqual(p, TestPlan(name: "p", description: "d", suites: [SuiteSpec(name: "a", template: "cache-contract")], sourcePath: "x.json"))
    }

    func testDefaultsCannotNameSuitesOrTemplates() {
        XCTAssertEqual(problems(#"{"name": "p", "defaults": {"name": "x", "template": "cache-contract", "shards": 0}, "suites": [{"name": "a", "template": "cache-contract"}]}"#), [
            "x.json:1:28: defaults.name: 'name' is not allowed here; each suite needs its own name; set it in the suite",
            "x.json:1:41: defaults.template: 'template' is not allowed here; set the template in each suite",
            "x.json:1:81: defaults.shards: must be between 1 and 64 (got 0)",
        ])
    }

    func testCommentsAndTrailingCommasAreAllowed() throws {
        let p = try plan("""
        // a plan
        { /* name */ "name": "p", "suites": [ {"name": "a", "template": "cache-contract",}, ], }
        """)
        XCTAssertEqual(p.suites.map(\.name), ["a"])
    }

    // MARK: Files

    func testUnreadableFileIsOneProblem() throws {
        let missing = "/nonexistent-\(UUID().uuidString)/plan.json"
        XCTAssertThrowsError(try PlanLoader.load(path: missing, knownTemplates: Self.templates)) { error in
            XCTAssertEqual((error as? PlanValidationError)?.description, "\(missing): cannot read the file: no such file; check the path")
        }
        let folder = TestPaths.fixtures.path
        XCTAssertThrowsError(try PlanLoader.load(path: folder, knownTemplates: Self.templates)) { error in
            XCTAssertEqual((error as? PlanValidationError)?.description, "\(folder): cannot read the file: it is a directory; name a .json file")
        }
    }

    func testDevicesAndOversizedFilesAreRefused() throws {
        XCTAssertThrowsError(try PlanLoader.load(path: "/dev/zero", knownTemplates: Self.templates)) { error in
            XCTAssertEqual((error as? PlanValidationError)?.description, "/dev/zero: cannot read the file: not a regular file (it is a device, or a link to one); give a regular file")
        }
        let big = FileManager.default.temporaryDirectory.appendingPathComponent("xcfleet-big-\(UUID().uuidString).json")
        try Data(count: (4 << 20) + 1).write(to: big)
        defer { try? FileManager.default.removeItem(at: big) }
        XCTAssertThrowsError(try PlanLoader.load(path: big.path, knownTemplates: Self.templates)) { error in
            XCTAssertEqual((error as? PlanValidationError)?.description, "\(big.path): the file is larger than 4 MiB; this is not a plan or fleet file")
        }
    }

    func testLoadReportsThePathAsGiven() throws {
        let path = TestPaths.fixtures.appendingPathComponent("plans/empty-suites.json").path
        XCTAssertThrowsError(try PlanLoader.load(path: path, knownTemplates: Self.templates)) { error in
            XCTAssertEqual((error as? PlanValidationError)?.problems.first?.file, path)
        }
    }

    // MARK: Robustness

    func testMutatedPlansNeverTrap() throws {
        guard let root = Self.packageRoot else { throw XCTSkip("Package.swift not found above \(#filePath)") }
        let original = [UInt8](try Data(contentsOf: root.appendingPathComponent("Plans/nightly.json")))
        var rng = SeededGenerator(seed: 0x5EED)
        let alphabet = Array("{}[],:\"0-e/*".utf8)
        var loaded = 0
        var rejected = 0
        for _ in 0..<3000 {
            var bytes = original
            for _ in 0..<Int(rng.next() % 4 + 1) where !bytes.isEmpty {
                let i = Int(rng.next() % UInt64(bytes.count))
                switch rng.next() % 3 {
                case 0: bytes[i] = UInt8(truncatingIfNeeded: rng.next())
                case 1: bytes.remove(at: i)
                default: bytes.insert(alphabet[Int(rng.next() % UInt64(alphabet.count))], at: i)
                }
            }
            do {
                _ = try PlanLoader.parse(Data(bytes), path: "m.json", knownTemplates: Self.templates)
                loaded += 1
            } catch let error as PlanValidationError {
                XCTAssertFalse(error.problems.isEmpty)
                XCTAssertTrue(error.problems.allSatisfy { $0.file == "m.json" && !$0.message.isEmpty })
                rejected += 1
            }
        }
        XCTAssertEqual(loaded + rejected, 3000)
        XCTAssertGreaterThan(rejected, 1000)
    }
}

