import Foundation
import XCFleetBasics

/// A test-discovery file that could not be read: which file, where, and what is wrong.
public struct DiscoveryFileError: Error, Equatable, Sendable, CustomStringConvertible {
    public var file: String
    public var line: Int?
    public var message: String
    /// `usage` for a file from the user's repository (a test plan, a scheme), `infrastructure`
    /// for one a host produced (an `.xctestrun`, an enumeration).
    public var exitCode: Int32

    public init(file: String, line: Int? = nil, message: String, exitCode: Int32 = UserFacingErrors.ExitCode.usage) {
        self.file = file
        self.line = line
        self.message = message
        self.exitCode = exitCode
    }

    public var description: String {
        let place = TerminalText.sanitize(file) + (line.map { ":\($0)" } ?? "")
        return "\(place): \(TerminalText.sanitize(message))"
    }
}

extension DiscoveryFileError: UserFacingError {
    public var userMessage: String { description }
}

// MARK: - .xctestrun

/// What an `.xctestrun` property list (written by `xcodebuild build-for-testing`) says about the
/// test bundles it runs. Format 1 lists targets as top-level keys; format 2 lists them under
/// `TestConfigurations[].TestTargets[]` and may name the test plan it was built from.
public struct XCTestRunFile: Equatable, Sendable {
    public struct Target: Equatable, Sendable {
        /// Format 1: the top-level key; format 2: `BlueprintName`.
        public var name: String
        /// Format 2: the configuration (`TestConfigurations[].Name`) it belongs to.
        public var configuration: String?
        public var isUITestBundle: Bool
        public var onlyTestIdentifiers: [String]
        public var skipTestIdentifiers: [String]
        public var productModuleName: String?
        public var testBundlePath: String?
    }

    public struct TestPlan: Equatable, Sendable {
        public var name: String
        public var isDefault: Bool
    }

    public var formatVersion: Int
    /// `__xctestrun_metadata__.FormatVersion`; nil when the file has no metadata (before Xcode 10.1).
    public var metadataFormatVersion: Int?
    public var configurations: [String]
    public var targets: [Target]
    public var testPlan: TestPlan?

    public static let metadataKey = "__xctestrun_metadata__"

    public static func parse(_ data: Data, file: String) throws(DiscoveryFileError) -> XCTestRunFile {
        let host = UserFacingErrors.ExitCode.infrastructure
        let root: PropertyListValue
        do { root = try PropertyList.parse(data) } catch {
            throw DiscoveryFileError(file: file, line: error.line, message: error.message, exitCode: host)
        }
        guard let members = root.members else {
            throw DiscoveryFileError(file: file, message: "the property list is not a dictionary", exitCode: host)
        }
        let metadata = root[metadataKey]
        let metadataVersion = metadata?["FormatVersion"]?.integer
        let format = metadataVersion ?? 1
        switch format {
        case 1:
            let targets = members.filter { $0.key != metadataKey }.compactMap { m -> Target? in
                guard m.value.members != nil else { return nil }
                return target(m.value, name: m.key, configuration: nil)
            }
            return XCTestRunFile(formatVersion: 1, metadataFormatVersion: metadataVersion, configurations: [],
                                 targets: targets, testPlan: nil)
        case 2:
            var configurations: [String] = []
            var targets: [Target] = []
            for configuration in root["TestConfigurations"]?.array ?? [] {
                let name = configuration["Name"]?.string ?? ""
                configurations.append(name)
                for t in configuration["TestTargets"]?.array ?? [] where t.members != nil {
                    targets.append(target(t, name: t["BlueprintName"]?.string ?? "", configuration: name))
                }
            }
            let plan = root["TestPlan"].flatMap { p -> TestPlan? in
                guard let name = p["Name"]?.string else { return nil }
                return TestPlan(name: name, isDefault: p["IsDefault"]?.bool ?? false)
            }
            return XCTestRunFile(formatVersion: 2, metadataFormatVersion: metadataVersion, configurations: configurations,
                                 targets: targets, testPlan: plan)
        default:
            throw DiscoveryFileError(file: file, message: "FormatVersion \(format) is not known (xcfleet reads 1 and 2)", exitCode: host)
        }
    }

    private static func target(_ v: PropertyListValue, name: String, configuration: String?) -> Target {
        Target(name: name, configuration: configuration, isUITestBundle: v["IsUITestBundle"]?.bool ?? false,
               onlyTestIdentifiers: v["OnlyTestIdentifiers"]?.strings ?? [],
               skipTestIdentifiers: v["SkipTestIdentifiers"]?.strings ?? [],
               productModuleName: v["ProductModuleName"]?.string, testBundlePath: v["TestBundlePath"]?.string)
    }
}

// MARK: - .xctestplan

/// An Xcode test plan (JSON): its configurations and test targets with their selections.
public struct XCTestPlanFile: Equatable, Sendable {
    public struct Target: Equatable, Sendable {
        public var name: String
        /// `container:App.xcodeproj`, `container:LocalSwiftPackage`, …
        public var containerPath: String?
        public var identifier: String?
        /// `enabled` (absent: true).
        public var enabled: Bool
        /// `parallelizable` (absent: nil, Xcode's default applies).
        public var parallelizable: Bool?
        public var skippedTests: [String]
        public var selectedTests: [String]
    }

    public struct EnvironmentVariable: Equatable, Sendable {
        /// `default` for `defaultOptions`, else the configuration's name.
        public var scope: String
        public var key: String
        public var value: String
        public var enabled: Bool
    }

    public var version: Int
    public var configurations: [String]
    public var targets: [Target]
    public var environment: [EnvironmentVariable]
    /// `defaultOptions.testRepetitionMode` (`retryOnFailure`, `untilFailure`, `fixedIterations`).
    public var testRepetitionMode: String?

    public static func parse(_ data: Data, file: String) throws(DiscoveryFileError) -> XCTestPlanFile {
        let document: JSONDocument
        do { document = try JSONDocument(data: data) } catch {
            throw DiscoveryFileError(file: file, line: error.position.line, message: error.message)
        }
        guard case .object(let root) = document.root.value else {
            throw DiscoveryFileError(file: file, line: document.root.position.line, message: "a test plan is a JSON object")
        }
        func fail(_ node: JSONNode, _ message: String) -> DiscoveryFileError {
            DiscoveryFileError(file: file, line: node.position.line, message: message)
        }
        var plan = XCTestPlanFile(version: 1, configurations: [], targets: [], environment: [], testRepetitionMode: nil)
        if let v = root["version"]?.value, case .number(let n) = v.value { plan.version = n.intValue ?? 1 }
        func environment(_ options: JSONObject?, scope: String) {
            guard let entries = options?["environmentVariableEntries"]?.value, case .array(let list) = entries.value else { return }
            for entry in list {
                guard case .object(let o) = entry.value, let key = o["key"].flatMap({ Self.string($0.value) }) else { continue }
                let enabled: Bool
                if let e = o["enabled"]?.value, case .bool(let b) = e.value { enabled = b } else { enabled = true }
                plan.environment.append(EnvironmentVariable(scope: scope, key: key,
                                                            value: o["value"].flatMap { Self.string($0.value) } ?? "", enabled: enabled))
            }
        }
        let defaults = root["defaultOptions"].flatMap { m -> JSONObject? in if case .object(let o) = m.value.value { return o }; return nil }
        environment(defaults, scope: "default")
        plan.testRepetitionMode = defaults?["testRepetitionMode"].flatMap { Self.string($0.value) }
        if let c = root["configurations"]?.value {
            guard case .array(let list) = c.value else { throw fail(c, "configurations is \(c.value.kindDescription); expected an array") }
            for item in list {
                guard case .object(let o) = item.value, let name = o["name"].flatMap({ Self.string($0.value) }) else {
                    throw fail(item, "a configuration without a name")
                }
                plan.configurations.append(name)
                environment(o["options"].flatMap { m -> JSONObject? in if case .object(let x) = m.value.value { return x }; return nil }, scope: name)
            }
        }
        if let t = root["testTargets"]?.value {
            guard case .array(let list) = t.value else { throw fail(t, "testTargets is \(t.value.kindDescription); expected an array") }
            for item in list {
                guard case .object(let o) = item.value, let targetNode = o["target"]?.value, case .object(let target) = targetNode.value,
                      let name = target["name"].flatMap({ Self.string($0.value) }) else {
                    throw fail(item, "a test target without target.name")
                }
                var enabled = true
                if let e = o["enabled"]?.value, case .bool(let b) = e.value { enabled = b }
                var parallel: Bool?
                if let p = o["parallelizable"]?.value, case .bool(let b) = p.value { parallel = b }
                plan.targets.append(Target(name: name, containerPath: target["containerPath"].flatMap { Self.string($0.value) },
                                           identifier: target["identifier"].flatMap { Self.string($0.value) },
                                           enabled: enabled, parallelizable: parallel,
                                           skippedTests: Self.strings(o["skippedTests"]?.value),
                                           selectedTests: Self.strings(o["selectedTests"]?.value)))
            }
        }
        return plan
    }

    static func string(_ node: JSONNode) -> String? { if case .string(let s) = node.value { return s }; return nil }
    static func strings(_ node: JSONNode?) -> [String] {
        guard let node, case .array(let list) = node.value else { return [] }
        return list.compactMap { item in
            if case .string(let s) = item.value { return s }
            // Xcode 16 writes Swift Testing selections as objects: {"identifier": …}.
            if case .object(let o) = item.value, let id = o["identifier"] { return string(id.value) }
            return nil
        }
    }
}

// MARK: - .xcscheme

/// What a scheme's `TestAction` says: the test plans it references and its testables.
public struct XcodeSchemeFile: Equatable, Sendable {
    public struct TestPlanReference: Equatable, Sendable {
        /// `container:App/App.xctestplan`.
        public var reference: String
        public var isDefault: Bool
    }

    public struct Testable: Equatable, Sendable {
        /// The test target's `BlueprintName`.
        public var name: String
        public var container: String?
        /// `skipped = "NO"` (absent: enabled).
        public var enabled: Bool
        public var parallelizable: Bool?
        public var skippedTests: [String]
        public var selectedTests: [String]
        /// `random`, `lexical`, … when the scheme sets it.
        public var testExecutionOrdering: String?
    }

    public var testPlans: [TestPlanReference]
    public var testables: [Testable]

    public static func parse(_ data: Data, file: String) throws(DiscoveryFileError) -> XcodeSchemeFile {
        let root: XMLElement
        do { root = try MiniXML.parse(data) } catch { throw DiscoveryFileError(file: file, line: error.line, message: error.message) }
        guard root.name == "Scheme" else { throw DiscoveryFileError(file: file, line: root.line, message: "the root element is <\(root.name)>, not <Scheme>") }
        guard let action = root.child("TestAction") else { return XcodeSchemeFile(testPlans: [], testables: []) }
        let plans = (action.child("TestPlans")?.children(named: "TestPlanReference") ?? []).compactMap { r -> TestPlanReference? in
            guard let reference = r.attribute("reference") else { return nil }
            return TestPlanReference(reference: reference, isDefault: r.attribute("default") == "YES")
        }
        var testables: [Testable] = []
        for t in action.child("Testables")?.children(named: "TestableReference") ?? [] {
            guard let buildable = t.child("BuildableReference"), let name = buildable.attribute("BlueprintName") else {
                throw DiscoveryFileError(file: file, line: t.line, message: "a TestableReference without BuildableReference BlueprintName")
            }
            let ids: (String) -> [String] = { list in
                t.child(list)?.children(named: "Test").compactMap { $0.attribute("Identifier") } ?? []
            }
            testables.append(Testable(name: name, container: buildable.attribute("ReferencedContainer"),
                                      enabled: t.attribute("skipped") != "YES",
                                      parallelizable: t.attribute("parallelizable").map { $0 == "YES" },
                                      skippedTests: ids("SkippedTests"), selectedTests: ids("SelectedTests"),
                                      testExecutionOrdering: t.attribute("testExecutionOrdering")))
        }
        return XcodeSchemeFile(testPlans: plans, testables: testables)
    }
}
