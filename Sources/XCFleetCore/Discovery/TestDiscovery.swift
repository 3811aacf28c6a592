import Foundation
import XCFleetBasics

/// One test found in what was built (never in source text).
public struct DiscoveredTest: Equatable, Hashable, Sendable {
    /// The module (SwiftPM) or test target (Xcode) that holds it.
    public var target: String
    /// `Suite/name` as manifests, shards and results name tests: `CacheTests/testC1_hit`, and
    /// for Swift Testing `Suite/name()` or just `name()` for a free test function.
    public var name: String
    /// Swift Testing (the name ends in a parenthesised argument-label list).
    public var isSwiftTesting: Bool
    /// The code disabled it (`.disabled()`, a test plan or scheme skip): shown as skipped, never required.
    public var enabled: Bool

    public init(target: String, name: String, isSwiftTesting: Bool, enabled: Bool = true) {
        self.target = target
        self.name = name
        self.isSwiftTesting = isSwiftTesting
        self.enabled = enabled
    }

    /// The identifier `xcodebuild -only-testing:` takes: `Target/Suite/test` (XCTest, no
    /// parentheses) or `Target/Suite/test()` (Swift Testing).
    public var onlyTestingIdentifier: String { "\(target)/\(name)" }

    /// The `--filter` regular expression that selects exactly this test in `swift test`.
    public var swiftTestFilter: String { "^" + SwiftTestList.regexEscaped("\(target).\(name)") + "$" }
}

/// `swift test list` (after `swift build --build-tests`): one test per line, `Module.Class/test`
/// for XCTest and `Module.Suite/test()` (nested suites `Module.Outer/Inner/test()`, free
/// functions `Module.test()`) for Swift Testing. Lines that are not a test (build progress,
/// warnings) are left out; a line is never guessed into a test.
public enum SwiftTestList {
    public static func parse(_ output: String) -> [DiscoveredTest] {
        var seen = Set<String>()
        var out: [DiscoveredTest] = []
        for raw in output.split(whereSeparator: \.isNewline) {
            guard let test = parseLine(String(raw)), seen.insert(test.onlyTestingIdentifier).inserted else { continue }
            out.append(test)
        }
        return out
    }

    static func parseLine(_ raw: String) -> DiscoveredTest? {
        let line = raw.trimmingCharacters(in: .whitespaces)
        // Progress lines (`[3/9] Compiling …`), diagnostics and anything with spaces are not test ids.
        guard !line.isEmpty, !line.hasPrefix("["), !line.contains(" ") || line.hasSuffix(")") else { return nil }
        guard let dot = line.firstIndex(of: ".") else { return nil }
        let module = String(line[..<dot])
        let rest = String(line[line.index(after: dot)...])
        guard isIdentifier(module), !rest.isEmpty else { return nil }
        let swiftTesting = rest.hasSuffix(")") && rest.contains("(")
        if swiftTesting {
            // `Suite/test(_:label:)` or a free function `test()`; a display name never appears here.
            guard let open = rest.firstIndex(of: "("), !rest[..<open].isEmpty else { return nil }
            let path = rest[..<open].split(separator: "/", omittingEmptySubsequences: false)
            guard path.allSatisfy({ isIdentifier(String($0)) || isBacktickedName(String($0)) }) else { return nil }
            return DiscoveredTest(target: module, name: rest, isSwiftTesting: true)
        }
        let parts = rest.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, parts.allSatisfy({ isIdentifier(String($0)) }) else { return nil }
        return DiscoveredTest(target: module, name: rest, isSwiftTesting: false)
    }

    static func isIdentifier(_ s: String) -> Bool {
        guard let first = s.unicodeScalars.first, !(first.properties.numericType != nil) else { return false }
        return s.unicodeScalars.allSatisfy { $0 == "_" || $0.properties.isAlphabetic || $0.properties.numericType != nil }
    }

    static func isBacktickedName(_ s: String) -> Bool { s.count > 2 && s.hasPrefix("`") && s.hasSuffix("`") }

    /// Escapes what a regular expression would read specially.
    public static func regexEscaped(_ s: String) -> String {
        var out = ""
        for c in s {
            if "\\^$.|?*+()[]{}".contains(c) { out.append("\\") }
            out.append(c)
        }
        return out
    }
}

/// `xcodebuild test-without-building -enumerate-tests -test-enumeration-format json
/// -test-enumeration-output-path FILE` (Xcode 15 and later):
/// `{"errors": [...], "values": [{"testPlan": "App", "enabledTests": [{"identifier": "T/C/test()"}],
/// "disabledTests": [...]}]}`. Identifiers are `Target/Class/test()` (XCTest methods carry `()`
/// here, although `-only-testing` takes them without), `Target/Suite/test()` and
/// `Target/test()` for Swift Testing, `Target/Class/testName` for Objective-C. Nothing but the
/// identifier tells the libraries apart (`library(of:)`); `T/C/test…()` is read as XCTest unless
/// `swiftTestingTargets` names its target (docs/discovery.md, "Names").
public struct XcodeTestEnumeration: Equatable, Sendable {
    public struct Plan: Equatable, Sendable {
        public var testPlan: String?
        public var tests: [DiscoveredTest]
    }

    public var plans: [Plan]
    /// What xcodebuild put under `errors`: a run with any is red, with these as the reason.
    public var errors: [String]

    /// Every test of every plan, once.
    public var tests: [DiscoveredTest] {
        var seen = Set<String>()
        return plans.flatMap(\.tests).filter { seen.insert($0.onlyTestingIdentifier).inserted }
    }

    public static func parse(_ data: Data, file: String, swiftTestingTargets: Set<String> = []) throws(DiscoveryFileError) -> XcodeTestEnumeration {
        let host = UserFacingErrors.ExitCode.infrastructure
        let document: JSONDocument
        do { document = try JSONDocument(data: data) } catch {
            throw DiscoveryFileError(file: file, line: error.position.line, message: error.message, exitCode: host)
        }
        guard case .object(let root) = document.root.value else {
            throw DiscoveryFileError(file: file, line: 1, message: "the enumeration is not a JSON object", exitCode: host)
        }
        var result = XcodeTestEnumeration(plans: [], errors: [])
        if let e = root["errors"]?.value, case .array(let list) = e.value {
            result.errors = list.map { item in
                switch item.value {
                case .string(let s): return s
                case .object(let o):
                    for key in ["description", "message", "localizedDescription", "error"] {
                        if let m = o[key], case .string(let s) = m.value.value { return s }
                    }
                    return "an error xcfleet cannot read (keys: \(o.keys.joined(separator: ", ")))"
                default: return "an error xcfleet cannot read"
                }
            }
        }
        guard let valuesNode = root["values"]?.value, case .array(let values) = valuesNode.value else {
            if result.errors.isEmpty {
                throw DiscoveryFileError(file: file, line: 1, message: "the enumeration has no \"values\" list", exitCode: host)
            }
            return result
        }
        for value in values {
            guard case .object(let o) = value.value else { continue }
            var plan = Plan(testPlan: nil, tests: [])
            if let p = o["testPlan"], case .string(let s) = p.value.value { plan.testPlan = s }
            for (key, enabled) in [("enabledTests", true), ("disabledTests", false)] {
                guard let listNode = o[key]?.value, case .array(let list) = listNode.value else { continue }
                for item in list {
                    guard case .object(let t) = item.value, let idNode = t["identifier"], case .string(let id) = idNode.value.value else { continue }
                    guard let test = Self.test(identifier: id, enabled: enabled, swiftTestingTargets: swiftTestingTargets) else {
                        result.errors.append("the enumeration lists '\(id.prefix(120))', which is not Target/Suite/test")
                        continue
                    }
                    plan.tests.append(test)
                }
            }
            result.plans.append(plan)
        }
        return result
    }

    /// Which library an enumerated identifier belongs to. The JSON carries nothing but the
    /// identifier (no kind, no library), so only its shape can tell, and for `T/C/test…()` it cannot.
    enum Library: Equatable, Sendable {
        case xcTest
        case swiftTesting
        /// `T/C/test…()`: an XCTest method or a Swift Testing function named `test…` in a suite.
        case either
    }

    /// What the shape of `T/…` says. XCTest runs only argument-less `test…` methods of a class
    /// (`T/C/testX()`, and `T/C/testX` for Objective-C or older Xcodes); Swift Testing identifiers
    /// always end in `(…)` and may name a free function (`T/f()`), nested suites
    /// (`T/Outer/Inner/f()`), argument labels (`f(x:)`) or any name (`T/S/checksOrder()`).
    static func library(of parts: [String]) -> Library {
        let last = parts[parts.count - 1]
        guard last.hasSuffix(")"), let open = last.firstIndex(of: "(") else { return .xcTest }
        let base = last[..<open]
        if parts.count != 3 || last[open...] != "()" || !base.hasPrefix("test") { return .swiftTesting }
        return .either
    }

    /// `T/C/test()` → target `T`, name `C/test` (XCTest) — unless the shape says Swift Testing
    /// (`library(of:)`) or the target is known to hold Swift Testing tests, where the parentheses stay.
    static func test(identifier: String, enabled: Bool, swiftTestingTargets: Set<String>) -> DiscoveredTest? {
        // A control character (a line break above all) could not travel as one line of a selection.
        guard !identifier.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else { return nil }
        let parts = identifier.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard parts.count >= 2, parts.allSatisfy({ !$0.isEmpty }) else { return nil }
        let target = parts[0]
        var name = parts.dropFirst().joined(separator: "/")
        let swiftTesting: Bool
        switch library(of: parts) {
        case .swiftTesting: swiftTesting = true
        case .either: swiftTesting = swiftTestingTargets.contains(target)
        case .xcTest: swiftTesting = false
        }
        if !swiftTesting {
            guard parts.count == 3 else { return nil }
            if name.hasSuffix("()") { name.removeLast(2) }
        }
        return DiscoveredTest(target: target, name: name, isSwiftTesting: swiftTesting, enabled: enabled)
    }
}
