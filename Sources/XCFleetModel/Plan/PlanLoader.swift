import Foundation
import XCFleetBasics

/// Reads and validates a test plan (format: README, "Plan format").
///
/// Plans are JSON with `//` and `/* */` comments and trailing commas allowed. Validation
/// collects every problem in the file and throws them together as a `PlanValidationError`,
/// one line each: `Plans/x.json:12:5: suites[1].timeoutSeconds: must be between 1 and 86400 (got 0)`.
public enum PlanLoader {
    /// Keys of a suite object, in the order they are documented.
    public static let suiteKeys = ["name", "template", "kind", "parameters", "requires", "shards", "repetitions",
                                   "retries", "allowFlaky", "mutants", "timeouts", "timeoutSeconds", "destination", "xcode", "subject",
                                   "package", "filter", "skip", "workspace", "project", "scheme", "testPlan", "configurations"]
    public static let planKeys = ["name", "description", "defaults", "suites"]
    public static let timeoutKeys = ["connect", "push", "build", "test", "silence", "cleanup"]
    public static let retryKeys = ["infrastructure", "testFailures"]

    public static let shardRange = 1...64
    public static let repetitionRange = 1...100
    public static let retryRange = 0...10
    public static let timeoutRange = 1...86_400

    /// Reads `path` and validates it. Throws `PlanValidationError` (also for an unreadable file).
    public static func load(path: String, knownTemplates: Set<String>) throws -> TestPlan {
        var reader = SchemaReader(file: path)
        guard let data = reader.readFile(path) else { throw ValidationError(problems: reader.sortedProblems) }
        return try parse(data, path: path, knownTemplates: knownTemplates)
    }

    /// Validates a plan held in memory; `path` names it in messages and becomes `sourcePath`.
    public static func parse(_ data: Data, path: String, knownTemplates: Set<String>) throws -> TestPlan {
        var reader = SchemaReader(file: path)
        let plan = read(data, path: path, knownTemplates: knownTemplates, reader: &reader)
        if let plan, reader.problems.isEmpty { return plan }
        if reader.problems.isEmpty {
            // Not expected: every path that yields no value records a problem first.
            reader.report("the plan could not be read", at: .root, nil)
        }
        throw ValidationError(problems: reader.sortedProblems)
    }

    // MARK: Schema

    private static func read(_ data: Data, path: String, knownTemplates: Set<String>, reader r: inout SchemaReader) -> TestPlan? {
        guard let document = r.document(data),
              let root = r.object(SchemaField(node: document.root, path: .root)) else { return nil }
        r.checkKeys(root, allowed: planKeys)

        let name = r.required(root, "name", hint: "give the plan a name, e.g. \"name\": \"nightly\"")
            .flatMap { r.nonEmptyString($0, what: "the plan a name") }
        let description = root.field("description").flatMap { r.string($0) }

        var defaults = SuiteFields()
        if let field = root.field("defaults"), let object = r.object(field) {
            r.checkKeys(object, allowed: suiteKeys.filter { !["name", "template", "subject"].contains($0) && !packageOnlyKeys.contains($0)
                                                                && !xcodeOnlyKeys.contains($0) },
                        misplaced: ["name": "each suite needs its own name; set it in the suite",
                                    "template": "set the template in each suite",
                                    "subject": "set the subject in each suite"].merging(packageKeysInDefaults) { a, _ in a }
                                                                               .merging(xcodeKeysInDefaults) { a, _ in a })
            defaults = readFields(object, reader: &r)
        }

        var suites: [SuiteSpec] = []
        if let field = r.required(root, "suites", hint: "list the suites to run, e.g. \"suites\": [{\"name\": \"cache-gate\", \"template\": \"cache-contract\"}]") {
            if case .array(let nodes) = field.node.value {
                if nodes.isEmpty {
                    r.report("must list at least one suite", field)
                }
                var seen: [String: (Int, JSONPosition)] = [:]
                for (index, node) in nodes.enumerated() {
                    let suiteField = SchemaField(node: node, path: field.path / index)
                    guard let object = r.object(suiteField) else { continue }
                    if let suite = readSuite(object, index: index, defaults: defaults, knownTemplates: knownTemplates,
                                             seen: &seen, planPath: path, reader: &r) {
                        suites.append(suite)
                    }
                }
            } else {
                r.report("expected an array of suites, got \(field.node.value.kindDescription)", field)
            }
        }
        guard let name else { return nil }
        return TestPlan(name: name, description: description, suites: withReferenceProbes(suites), sourcePath: path)
    }

    private static func readSuite(_ object: SchemaObject, index: Int, defaults: SuiteFields, knownTemplates: Set<String>,
                                  seen: inout [String: (Int, JSONPosition)], planPath: String, reader r: inout SchemaReader) -> SuiteSpec? {
        r.checkKeys(object, allowed: suiteKeys)
        var name: String?
        if let field = r.required(object, "name", hint: "give the suite a name of letters, digits, '.', '_' or '-'"),
           let s = r.string(field) {
            if s.isEmpty || s.utf8.count > 100 || !s.unicodeScalars.allSatisfy(isSuiteNameScalar) {
                r.report("must be 1 to 100 letters, digits, '.', '_' or '-' (got '\(SchemaReader.excerpt(s))')", field)
            } else if let problem = suiteNameProblem(s) {
                r.report("\(problem) (got '\(SchemaReader.excerpt(s))'); suite names become folder and file names", field)
            } else if let (first, position) = seen[s] {
                r.report("duplicate suite name '\(s)' (also suites[\(first)] at line \(position.line)); give each suite its own name", field)
            } else {
                seen[s] = (index, field.position)
                name = s
            }
        }

        let known = knownTemplates.sorted()
        let knownList = known.isEmpty ? "no templates are installed" : "known templates: " + known.joined(separator: ", ")
        var template: String?
        let namesXcode = object.field("workspace") != nil || object.field("project") != nil
        if namesXcode {
            template = xcodeSuiteTemplate(object, reader: &r)
        } else if object.field("package") != nil {
            template = packageSuiteTemplate(object, reader: &r)
        } else if let field = r.required(object, "template", hint: knownList + "; or name your own package (\"package\": \"path/to/it\") or Xcode project (\"project\": \"App.xcodeproj\", \"scheme\": \"App\")"),
                  let s = r.string(field) {
            if knownTemplates.contains(s) {
                template = s
            } else if let suggestion = SchemaReader.suggestion(for: s, among: known) {
                r.report("unknown template '\(SchemaReader.excerpt(s))'; did you mean '\(suggestion)'? (\(knownList))", field)
            } else {
                r.report("unknown template '\(SchemaReader.excerpt(s))'; \(knownList) (a template of your own is found with --templates DIR)", field)
            }
        }

        let own = readFields(object, reader: &r)
        let merged = own.overriding(defaults)
        let kind = merged.kind ?? .gate
        let mutants = merged.mutants ?? false
        if kind == .probe && mutants {
            r.report("a probe cannot run mutants (only gates can kill them); set \"mutants\": false or \"kind\": \"gate\"",
                     at: object.path, object.position)
        }
        var subject: SubjectSpec?
        var subjectOK = true
        if let field = object.field("subject"), object.field("package") == nil { // a package suite says why it takes none
            subject = readSubject(field, template: template, planPath: planPath, reader: &r)
            subjectOK = subject != nil
        }
        let package = namesXcode ? (ok: true, suite: nil)
            : readPackageSuite(object, merged: (merged.mutants ?? false, merged.destination), planPath: planPath, reader: &r)
        let xcodeProject = readXcodeProject(object, merged: (merged.mutants ?? false, merged.destination), planPath: planPath, reader: &r)
        guard let name, let template, subjectOK, package.ok, xcodeProject.ok else { return nil }

        let base = PhaseTimeouts.defaults
        let t = merged.timeouts
        let timeouts = PhaseTimeouts(connect: t["connect"] ?? base.connect, push: t["push"] ?? base.push,
                                     build: t["build"] ?? base.build, test: t["test"] ?? base.test,
                                     silence: t["silence"] ?? base.silence, cleanup: t["cleanup"] ?? base.cleanup)
        let baseRetries = RetryPolicy()
        return SuiteSpec(name: name, template: template, kind: kind, parameters: merged.parameters,
                         requires: merged.requires ?? [], shards: merged.shards ?? 1,
                         repetitions: merged.repetitions ?? 1,
                         retries: RetryPolicy(infrastructure: merged.infrastructureRetries ?? baseRetries.infrastructure,
                                              testFailures: merged.testFailureRetries ?? baseRetries.testFailures),
                         allowFlaky: merged.allowFlaky ?? false, mutants: mutants, timeouts: timeouts,
                         destination: merged.destination, xcode: merged.xcode,
                         secretParameters: merged.secret.isEmpty ? nil : merged.secret.sorted(), subject: subject)
            .withPackage(package.suite)
            .withXcodeProject(xcodeProject.suite)
    }

    /// The suite keys shared by suites and `defaults` (everything but name and template).
    private static func readFields(_ object: SchemaObject, reader r: inout SchemaReader) -> SuiteFields {
        var f = SuiteFields()
        if let field = object.field("kind") { f.kind = r.choice(field, SuiteKind.self) }
        if let field = object.field("parameters"), let params = r.object(field) {
            for member in params.object.members {
                let path = params.path / member.key
                guard SchemaReader.isIdentifier(member.key) else {
                    r.report("parameter names must be identifiers (letters, digits and '_', not starting with a digit)",
                             at: path, member.keyPosition)
                    continue
                }
                let field = SchemaField(node: member.value, path: path)
                if case .object = member.value.value {
                    // {"value": …, "secret": true}: the value reaches the test process only.
                    guard let object = r.object(field) else { continue }
                    r.checkKeys(object, allowed: ["value", "secret"])
                    let secret = object.field("secret").flatMap { r.bool($0) } ?? false
                    guard let valueField = r.required(object, "value", hint: "give the parameter's value") else { continue }
                    guard let value = parameterValue(valueField, reader: &r, quote: !secret) else { continue }
                    if secret && value.text.count < Redactor.minimumLength {
                        r.report("a secret value must be at least \(Redactor.minimumLength) characters (shorter ones cannot be told apart from ordinary output, so they could not be redacted); use a longer value or drop \"secret\"", valueField)
                        continue
                    }
                    f.parameters[member.key] = value
                    if secret { f.secret.insert(member.key) } else { f.notSecret.insert(member.key) }
                } else if let value = parameterValue(field, reader: &r) {
                    f.parameters[member.key] = value
                    f.notSecret.insert(member.key)
                }
            }
        }
        if let field = object.field("requires") {
            f.requires = r.array(field) { r, element in
                guard let s = r.nonEmptyString(element, what: "a capability such as 'combine' or 'platform:macos'") else { return nil }
                if s.unicodeScalars.contains(where: { CharacterSet.whitespacesAndNewlines.contains($0) }) {
                    r.report("capabilities contain no spaces (got '\(SchemaReader.excerpt(s))')", element)
                    return nil
                }
                return s
            }
        }
        if let field = object.field("shards") { f.shards = r.int(field, in: shardRange) }
        if let field = object.field("repetitions") { f.repetitions = r.int(field, in: repetitionRange) }
        if let field = object.field("retries"), let retries = r.object(field) {
            r.checkKeys(retries, allowed: retryKeys)
            if let v = retries.field("infrastructure") { f.infrastructureRetries = r.int(v, in: retryRange) }
            if let v = retries.field("testFailures") { f.testFailureRetries = r.int(v, in: retryRange) }
        }
        if let field = object.field("allowFlaky") { f.allowFlaky = r.bool(field) }
        if let field = object.field("mutants") { f.mutants = r.bool(field) }
        var explicitTest = false
        if let field = object.field("timeouts"), let timeouts = r.object(field) {
            r.checkKeys(timeouts, allowed: timeoutKeys)
            for key in timeoutKeys {
                guard let v = timeouts.field(key) else { continue }
                if key == "test" { explicitTest = true }
                if let seconds = r.seconds(v, in: timeoutRange) { f.timeouts[key] = seconds }
            }
        }
        if let field = object.field("timeoutSeconds") {
            if explicitTest {
                r.report("timeoutSeconds is shorthand for timeouts.test; set only one of them", field)
            } else if let seconds = r.seconds(field, in: timeoutRange) {
                f.timeouts["test"] = seconds
            }
        }
        if let field = object.field("destination") {
            f.destination = r.nonEmptyString(field, what: "an xcodebuild destination such as 'platform=macOS'")
        }
        if let field = object.field("xcode") {
            if case .number(let n) = field.node.value {
                r.report("expected a string, got a number; write the version in quotes: \"\(n.literal)\"", field)
            } else {
                f.xcode = r.nonEmptyString(field, what: "an Xcode version such as '16.4'")
            }
        }
        return f
    }

    /// A scalar parameter value; `quote: false` (secret values) never quotes the value in messages.
    private static func parameterValue(_ field: SchemaField, reader r: inout SchemaReader, quote: Bool = true) -> PlanValue? {
        switch field.node.value {
        case .string(let s): return .string(s)
        case .bool(let b): return .bool(b)
        case .number(let n):
            if n.isIntegerLiteral, let i = Int(n.literal) { return .int(i) }
            if let d = n.doubleValue { return .double(d) }
            r.report(quote ? "number out of range (got \(SchemaReader.excerpt(n.literal)))" : "number out of range (secret value)", field)
            return nil
        case .null, .array, .object:
            r.report("expected a string, number or bool, or {\"value\": …, \"secret\": true}, got \(field.node.value.kindDescription)", field)
            return nil
        }
    }

    /// A probe suite with a subject runs side by side with the same probe against xcfleet's
    /// reference implementation: a second suite `<name>.reference` right after it (unless the plan
    /// already has a suite of that name).
    static func withReferenceProbes(_ suites: [SuiteSpec]) -> [SuiteSpec] {
        var out: [SuiteSpec] = []
        let names = Set(suites.map(\.name))
        for suite in suites {
            out.append(suite)
            guard suite.kind == .probe, suite.subject != nil, !names.contains(suite.name + ".reference") else { continue }
            var reference = suite
            reference.name += ".reference"
            reference.subject = nil
            out.append(reference)
        }
        return out
    }

    /// Suite names name folders (`render --out`, job directories): a plain path component that
    /// is not hidden, so never `.` or `..`.
    package static func suiteNameProblem(_ s: String) -> String? {
        if s == "." || s == ".." { return "must not be '.' or '..'" }
        if s.hasPrefix(".") { return "must not start with '.'" }
        return SafePath.componentProblem(s).map { "must be a plain file name: it \($0)" }
    }

    private static func isSuiteNameScalar(_ s: Unicode.Scalar) -> Bool {
        s.isASCIILetterOrUnderscore || ("0"..."9").contains(s) || s == "." || s == "-"
    }
}

/// Suite settings as written in one object (a suite or `defaults`); nil means "not set here".
private struct SuiteFields {
    var kind: SuiteKind?
    var parameters: [String: PlanValue] = [:]
    /// Parameter names marked secret here / set here without "secret".
    var secret: Set<String> = []
    var notSecret: Set<String> = []
    var requires: [String]?
    var shards: Int?
    var repetitions: Int?
    var infrastructureRetries: Int?
    var testFailureRetries: Int?
    var allowFlaky: Bool?
    var mutants: Bool?
    /// Phase name → seconds.
    var timeouts: [String: Double] = [:]
    var destination: String?
    var xcode: String?

    /// These settings with `defaults` filling what is not set; parameters and timeouts merge key by key.
    func overriding(_ defaults: SuiteFields) -> SuiteFields {
        var m = self
        m.kind = kind ?? defaults.kind
        m.parameters = defaults.parameters.merging(parameters) { _, own in own }
        m.secret = defaults.secret.subtracting(notSecret).union(secret)
        m.requires = requires ?? defaults.requires
        m.shards = shards ?? defaults.shards
        m.repetitions = repetitions ?? defaults.repetitions
        m.infrastructureRetries = infrastructureRetries ?? defaults.infrastructureRetries
        m.testFailureRetries = testFailureRetries ?? defaults.testFailureRetries
        m.allowFlaky = allowFlaky ?? defaults.allowFlaky
        m.mutants = mutants ?? defaults.mutants
        m.timeouts = defaults.timeouts.merging(timeouts) { _, own in own }
        m.destination = destination ?? defaults.destination
        m.xcode = xcode ?? defaults.xcode
        return m
    }
}
