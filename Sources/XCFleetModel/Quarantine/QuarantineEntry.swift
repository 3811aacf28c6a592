import Foundation

/// One test in the quarantine file (`Plans/quarantine.json`, docs/history.md "Quarantine"): it
/// still runs and is reported, but its own failed executions never turn its gate red.
/// Recorded in `events.jsonl` (`RunEvent.Body.quarantine`) so reports rebuild the same.
public struct QuarantineEntry: Equatable, Codable, Sendable {
    /// The plan suite the test belongs to.
    public var suite: String
    /// `Class/test`, `Module.Class/test`, or `/test` / `test()` for a Swift Testing function without a suite.
    public var test: String
    public var reason: String
    public var owner: String
    /// `YYYY-MM-DD` (UTC): the last day the entry holds.
    public var expires: String
    /// Line of the entry in the quarantine file, for messages.
    public var line: Int?

    public init(suite: String, test: String, reason: String, owner: String, expires: String, line: Int? = nil) {
        self.suite = suite
        self.test = test
        self.reason = reason
        self.owner = owner
        self.expires = expires
        self.line = line
    }

    /// `Class/test` without module prefix or `()`: the form `Verdict.testKey` gives an observed test.
    public var key: String { Self.key(test) }

    /// The module the entry names (`Module` of `Module.Class/test`), nil when it names none.
    package var module: String? {
        let cls = classPart
        guard let dot = cls.lastIndex(of: ".") else { return nil }
        return String(cls[..<dot])
    }

    private var classPart: String {
        guard let slash = test.firstIndex(of: "/") else { return "" }
        return String(test[..<slash])
    }

    package static func key(_ test: String) -> String {
        var cls = "", name = test
        if let slash = test.firstIndex(of: "/") {
            cls = String(test[..<slash])
            name = String(test[test.index(after: slash)...])
        }
        if name.hasSuffix("()") { name.removeLast(2) }
        if let dot = cls.lastIndex(of: ".") { cls = String(cls[cls.index(after: dot)...]) }
        return cls + "/" + name
    }

    /// Whether an observed test is this entry's: same class and name; when both name a module, the same module.
    public func matches(_ id: TestIdentifier) -> Bool {
        guard id.testKey == key else { return false }
        guard let module, let dot = id.suite.lastIndex(of: ".") else { return true }
        let observed = id.suite[..<dot]
        let last = observed.split(separator: "/").last.map(String.init) ?? String(observed)
        return last == module
    }

    /// Whether a `Class/test` key (as `RunnerEvidence.flakyInAttempt` holds them) is this entry's.
    public func matches(key other: String) -> Bool { other == key }
}

/// The quarantine in force for one run.
public struct Quarantine: Equatable, Sendable {
    public var entries: [QuarantineEntry]

    public init(entries: [QuarantineEntry] = []) { self.entries = entries }

    /// The entries of one suite.
    public func entries(suite: String) -> [QuarantineEntry] { entries.filter { $0.suite == suite } }
}

extension Array where Element == QuarantineEntry {
    /// The entry an observed test is quarantined by, if any.
    public func entry(for id: TestIdentifier) -> QuarantineEntry? { first { $0.matches(id) } }
    package func contains(_ id: TestIdentifier) -> Bool { entry(for: id) != nil }
    package func contains(key: String) -> Bool { contains { $0.matches(key: key) } }
}
