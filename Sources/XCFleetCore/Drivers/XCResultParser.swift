import Foundation
import XCFleetBasics
import XCFleetModel

/// The `xcresulttool` commands that read a result bundle, and the parsing of their JSON into
/// `TestResult`s / `TestEvent`s.
///
/// - Xcode 16 and later: `xcrun xcresulttool get test-results tests --path B` (JSON; one
///   document: `testNodes`, a tree of Test Plan → Unit test bundle → Test Suite → Test Case →
///   Failure Message / Test Case Run …).
/// - Before Xcode 16 (and as a fallback on 16+ with `--legacy`): `xcrun xcresulttool get --format json
///   --path B` gives the `ActionsInvocationRecord` (failures, and the id of the tests summary), then
///   `… --id <testsRef>` gives `ActionTestPlanRunSummaries` (the test tree). Values are wrapped as
///   `{"_value": …}` and arrays as `{"_values": […]}`.
///
/// Parsing never traps: unknown node types are walked through, missing fields are skipped.
public enum XCResultParser {
    // MARK: Commands

    /// Whether this Xcode has the `test-results` subcommand (Xcode 16+).
    public static func hasTestResultsCommand(_ xcode: XcodeVersion?) -> Bool {
        guard let major = xcode.flatMap({ XcodeVersion.components($0.version).first }) else { return true }
        return major >= 16
    }

    /// `get test-results tests` prints JSON by default. No `--format json`: published uses of the
    /// Xcode 16 command (e.g. fastlane's trainer) pass only `--path`, and an unknown option would fail
    /// the command (the legacy fallback would still read the bundle).
    public static func testResultsCommand(bundle: String, developerDir: String?) -> ShellCommand {
        xcresulttool(["get", "test-results", "tests", "--path", bundle], developerDir)
    }

    /// The legacy form: `--legacy` is required from Xcode 16 on and unknown before it.
    public static func legacyCommand(bundle: String, id: String? = nil, developerDir: String?, xcode16OrLater: Bool) -> ShellCommand {
        var args = ["get"]
        if xcode16OrLater { args.append("--legacy") }
        args += ["--format", "json", "--path", bundle]
        if let id { args += ["--id", id] }
        return xcresulttool(args, developerDir)
    }

    private static func xcresulttool(_ args: [String], _ developerDir: String?) -> ShellCommand {
        ShellCommand(["xcrun", "xcresulttool"] + args, environment: developerDir.map { ["DEVELOPER_DIR": $0] } ?? [:])
    }

    // MARK: Xcode 16+ `test-results tests`

    /// Tests of a `get test-results tests` document. Suites are `Bundle.Class` (the unit test bundle's
    /// name is the test target, i.e. the module), names without `()`.
    public static func parseTestResults(_ data: Data) throws -> [TestResult] {
        guard let root = try jsonObject(data, what: "xcresulttool get test-results tests") as? [String: Any],
              let nodes = root["testNodes"] as? [[String: Any]] else {
            throw XCResultError(what: "xcresulttool get test-results tests", detail: "no testNodes array")
        }
        var out: [TestResult] = []
        func walk(_ node: [String: Any], bundle: String?, suite: String?, depth: Int = 0) {
            guard depth < 64 else { return }
            let type = node["nodeType"] as? String ?? ""
            let name = node["name"] as? String ?? ""
            let children = node["children"] as? [[String: Any]] ?? []
            switch type {
            case "Unit test bundle", "UI test bundle":
                for c in children { walk(c, bundle: name, suite: nil, depth: depth + 1) }
            case "Test Suite":
                let s = suite.map { "\($0)/\(name)" } ?? name
                for c in children { walk(c, bundle: bundle, suite: s, depth: depth + 1) }
            case "Test Case":
                let identifier = node["nodeIdentifier"] as? String
                let id = testIdentifier(identifier: identifier, name: name, suite: suite, module: bundle)
                let messages = collect(children, types: ["Failure Message"])
                let result = node["result"] as? String ?? "unknown"
                let status = status(result)
                var failures: [FailureDetail] = []
                var skip: String?
                switch status {
                case .failed:
                    failures = distinct(messages).map(failureDetail)
                    if failures.isEmpty, result != "Failed" { failures = [FailureDetail(message: "result bundle: result \(result)")] }
                case .skipped: skip = messages.first.map(skipReason) ?? ""
                case .passed: break
                }
                out.append(TestResult(id: id, status: status, seconds: seconds(node), failures: failures, skipReason: skip))
            default:
                for c in children { walk(c, bundle: bundle, suite: suite, depth: depth + 1) }
            }
        }
        for n in nodes { walk(n, bundle: nil, suite: nil) }
        return out
    }

    // MARK: Legacy

    /// The tests summary id of an `ActionsInvocationRecord` (first action that has one).
    public static func legacyTestsRef(_ invocation: Data) throws -> String? {
        try legacyTestsRefs(invocation).first
    }

    /// The tests summary id of every action of an `ActionsInvocationRecord` that has one, in order
    /// (a bundle from `xcodebuild test` over several test plans or destinations has several).
    public static func legacyTestsRefs(_ invocation: Data) throws -> [String] {
        guard let root = try jsonObject(invocation, what: "xcresulttool get (legacy)") as? [String: Any] else { return [] }
        return values(root["actions"]).compactMap { action in
            guard let result = action["actionResult"] as? [String: Any],
                  let ref = result["testsRef"] as? [String: Any] else { return nil }
            return value(ref["id"])
        }
    }

    /// Tests of every action of a legacy bundle: `tests[i]` is the `ActionTestPlanRunSummaries` of
    /// the i-th action that has a `testsRef`. Each action's failures come from its own
    /// `actionResult.issues` (the record-wide `issues` when an action has none), so a failure is
    /// attached to the action and test it belongs to.
    public static func parseLegacy(invocation: Data, tests: [Data]) throws -> [TestResult] {
        guard let record = try jsonObject(invocation, what: "xcresulttool get (legacy)") as? [String: Any] else {
            throw XCResultError(what: "xcresulttool get (legacy)", detail: "not a JSON object")
        }
        let recordWide = failureSummaries(record["issues"])
        var perAction: [[String: [FailureDetail]]] = []
        for action in values(record["actions"]) {
            guard let result = action["actionResult"] as? [String: Any], result["testsRef"] != nil else { continue }
            let own = failureSummaries(result["issues"])
            perAction.append(own.isEmpty ? recordWide : own)
        }
        var out: [TestResult] = []
        for (i, doc) in tests.enumerated() {
            out += try parseLegacyTests(doc, failuresByKey: i < perAction.count ? perAction[i] : recordWide)
        }
        return out
    }

    /// Failure summaries of an `issues` object, by `class/test` key.
    private static func failureSummaries(_ issues: Any?) -> [String: [FailureDetail]] {
        var failuresByKey: [String: [FailureDetail]] = [:]
        guard let issues = issues as? [String: Any] else { return [:] }
        for f in values(issues["testFailureSummaries"]) {
            guard let testCase = value(f["testCaseName"]) else { continue }
            let (file, line) = location(value((f["documentLocationInCreatingWorkspace"] as? [String: Any])?["url"]))
            let detail = FailureDetail(file: file, line: line, message: value(f["message"]) ?? "failed")
            failuresByKey[legacyKey(testCase), default: []].append(detail)
        }
        return failuresByKey
    }

    /// Tests of a legacy `ActionTestPlanRunSummaries` document, with failures from the invocation
    /// record's `testFailureSummaries` (matched by `Class.test()` / `Class/test()`).
    public static func parseLegacy(invocation: Data, tests: Data) throws -> [TestResult] {
        try parseLegacy(invocation: invocation, tests: [tests])
    }

    private static func parseLegacyTests(_ tests: Data, failuresByKey: [String: [FailureDetail]]) throws -> [TestResult] {
        guard let summaries = try jsonObject(tests, what: "xcresulttool get --id (legacy)") as? [String: Any] else {
            throw XCResultError(what: "xcresulttool get --id (legacy)", detail: "not a JSON object")
        }
        var out: [TestResult] = []
        func walk(_ node: [String: Any], module: String?, depth: Int) {
            guard depth < 64 else { return }
            let typeName = ((node["_type"] as? [String: Any])?["_name"] as? String) ?? ""
            if typeName == "ActionTestMetadata" {
                let identifier = value(node["identifier"])
                let name = value(node["name"]) ?? ""
                let id = testIdentifier(identifier: identifier, name: name, suite: nil, module: module)
                let statusText = value(node["testStatus"]) ?? "unknown"
                let status = status(statusText)
                let key = legacyKey(identifier ?? name)
                var failures: [FailureDetail] = []
                if status == .failed {
                    failures = failuresByKey[key] ?? [FailureDetail(message: "result bundle: status \(statusText)")]
                }
                let secs = value(node["duration"]).flatMap(Double.init)
                out.append(TestResult(id: id, status: status, seconds: secs, failures: failures, skipReason: status == .skipped ? "" : nil))
                return
            }
            for child in values(node["subtests"]) { walk(child, module: module, depth: depth + 1) }
        }
        for summary in values(summaries["summaries"]) {
            for testable in values(summary["testableSummaries"]) {
                let module = value(testable["targetName"]) ?? value(testable["name"])
                for t in values(testable["tests"]) { walk(t, module: module, depth: 0) }
            }
        }
        return out
    }

    // MARK: Events

    /// The events a result bundle's tests stand for (failures and skips before each test's end).
    public static func events(_ results: [TestResult]) -> [TestEvent] {
        var out: [TestEvent] = []
        for r in results {
            for f in r.failures { out.append(.testFailure(r.id, file: f.file, line: f.line, message: f.message)) }
            if r.status == .skipped { out.append(.testSkipped(r.id, reason: r.skipReason.flatMap { $0.isEmpty ? nil : $0 })) }
            out.append(.testFinished(r.id, status: r.status, seconds: r.seconds, framework: .xctest, clone: nil))
        }
        return out
    }

    // MARK: Helpers

    package static func status(_ text: String) -> TestStatus {
        switch text {
        case "Passed", "Success", "Expected Failure", "ExpectedFailure": return .passed
        case "Skipped": return .skipped
        default: return .failed   // "Failed", "Failure", "unknown", anything new: not proven green
        }
    }

    /// `Class/test()` or `Class.test()` plus module → `Module.Class` / `test`.
    package static func testIdentifier(identifier: String?, name: String, suite: String?, module: String?) -> TestIdentifier {
        var cls = suite?.split(separator: "/").last.map(String.init) ?? ""
        var test = name
        if let identifier, let slash = identifier.lastIndex(of: "/") {
            let head = identifier[..<slash]
            cls = String(head.split(separator: "/").last ?? Substring(head))
            test = String(identifier[identifier.index(after: slash)...])
        } else if cls.isEmpty, let dot = name.lastIndex(of: ".") {
            cls = String(name[..<dot])
            test = String(name[name.index(after: dot)...])
        }
        if test.hasSuffix("()") { test.removeLast(2) }
        let suiteName = cls.isEmpty ? "" : (module.map { cls.contains(".") ? cls : "\($0).\(cls)" } ?? cls)
        return TestIdentifier(suite: suiteName, name: test)
    }

    /// `Class.test()` / `Class/test()` / `Module.Class/test` → `class/test` for matching.
    package static func legacyKey(_ s: String) -> String {
        var t = s
        if t.hasSuffix("()") { t.removeLast(2) }
        if let slash = t.lastIndex(of: "/") {
            let cls = t[..<slash].split(separator: ".").last.map(String.init) ?? ""
            return cls + "/" + t[t.index(after: slash)...]
        }
        if let dot = t.lastIndex(of: ".") { return String(t[..<dot]) + "/" + t[t.index(after: dot)...] }
        return t
    }

    /// `File.swift:41: message` → file, line, message.
    package static func failureDetail(_ text: String) -> FailureDetail {
        let parts = text.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
        if parts.count == 3, !parts[0].isEmpty, let line = Int(parts[1]), line >= 0 {
            return FailureDetail(file: String(parts[0]), line: line, message: parts[2].trimmingCharacters(in: .whitespaces))
        }
        return FailureDetail(message: text)
    }

    package static func skipReason(_ text: String) -> String {
        let d = failureDetail(text).message
        for prefix in ["Test skipped - ", "Test skipped: ", "Skipped: "] where d.hasPrefix(prefix) { return String(d.dropFirst(prefix.count)) }
        return d
    }

    /// `file:///…/X.swift#…&StartingLineNumber=41…` → (`/…/X.swift`, 41). Xcode's line numbers there are 0-based.
    package static func location(_ url: String?) -> (String?, Int?) {
        guard let url else { return (nil, nil) }
        // `#CharacterRangeLen=0` (no file part) is "no file", not a file named after the fragment.
        let parts = url.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)
        var file = parts.first.map(String.init)
        if let f = file, f.hasPrefix("file://") { file = String(f.dropFirst(7)).removingPercentEncoding ?? String(f.dropFirst(7)) }
        if file?.isEmpty ?? true { file = nil }
        var line: Int?
        if parts.count == 2 {
            for pair in parts[1].split(separator: "&") {
                let kv = pair.split(separator: "=", maxSplits: 1)
                if kv.count == 2, kv[0] == "StartingLineNumber", let n = Int(kv[1]), n >= 0, n < Int.max { line = n + 1 }
            }
        }
        return (file, line)
    }

    /// Seconds of a test-results node: `durationInSeconds`, else `duration` (`"0.0012s"`, `"1,5s"`, `"2m 3s"`).
    package static func seconds(_ node: [String: Any]) -> Double? {
        if let d = node["durationInSeconds"] as? Double { return d }
        guard let text = node["duration"] as? String else { return nil }
        var total = 0.0
        var any = false
        for word in text.split(separator: " ") {
            var w = word.replacingOccurrences(of: ",", with: ".")
            var factor = 1.0
            if w.hasSuffix("ms") { factor = 0.001; w.removeLast(2) }
            else if w.hasSuffix("s") { w.removeLast() }
            else if w.hasSuffix("m") { factor = 60; w.removeLast() }
            else if w.hasSuffix("h") { factor = 3600; w.removeLast() }
            guard let v = Double(w), v.isFinite else { return nil }
            total += v * factor
            any = true
        }
        return any ? total : nil
    }

    /// Each distinct message once, in first-seen order; a repeated one (a failure recorded in every
    /// repetition of a test) says how often: `message (3 times)`.
    package static func distinct(_ messages: [String]) -> [String] {
        var order: [String] = []
        var counts: [String: Int] = [:]
        for m in messages {
            if counts[m] == nil { order.append(m) }
            counts[m, default: 0] += 1
        }
        return order.map { m in counts[m, default: 1] > 1 ? "\(m) (\(counts[m, default: 1]) times)" : m }
    }

    private static func collect(_ nodes: [[String: Any]], types: Set<String>, depth: Int = 0) -> [String] {
        guard depth < 64 else { return [] }
        var out: [String] = []
        for n in nodes {
            if let t = n["nodeType"] as? String, types.contains(t), let name = n["name"] as? String { out.append(name) }
            out += collect(n["children"] as? [[String: Any]] ?? [], types: types, depth: depth + 1)
        }
        return out
    }

    private static func value(_ any: Any?) -> String? {
        guard let dict = any as? [String: Any] else { return nil }
        if let s = dict["_value"] as? String { return s }
        if let n = dict["_value"] as? NSNumber { return n.stringValue }
        return nil
    }

    private static func values(_ any: Any?) -> [[String: Any]] {
        (any as? [String: Any])?["_values"] as? [[String: Any]] ?? []
    }

    private static func jsonObject(_ data: Data, what: String) throws -> Any {
        do { return try JSONSerialization.jsonObject(with: data) } catch {
            throw XCResultError(what: what, detail: "not JSON: \(String(decoding: data.prefix(120), as: UTF8.self))")
        }
    }
}

/// xcresulttool printed something xcfleet cannot read.
public struct XCResultError: Error, Equatable, Sendable, CustomStringConvertible {
    public var what: String
    public var detail: String
    public var description: String { "\(what): \(detail)" }

    package init(what: String, detail: String) {
        self.what = what
        self.detail = detail
    }
}

extension XCResultError: UserFacingError {
    public var userMessage: String { description }
    public var exitCode: Int32 { UserFacingErrors.ExitCode.infrastructure }
}
