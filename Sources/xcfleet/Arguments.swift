import Foundation
import XCFleetKit

/// A usage problem: one line saying what to fix, exit code 2. `command` (`flaky`) makes the line
/// start `xcfleet flaky:`.
struct UsageError: UserFacingError, CustomStringConvertible {
    var description: String
    var command: String?
    init(_ message: String, command: String? = nil) {
        description = message
        self.command = command
    }
    var userMessage: String { description }
    var exitCode: Int32 { Verdict.ExitCode.usage }
    var commandPath: String? { command }
}

/// The parsed arguments of one command: positionals, flags and option values, each value already
/// checked against the kind its `CommandSpec.Option` declares (a bad one never reaches the command).
/// Syntax: `--flag`, `--option VALUE`, `--option=VALUE`, `--` ends the options.
struct Arguments: Sendable {
    var command: String
    var positionals: [String] = []
    var flags: Set<String> = []
    /// Every value of each option, in order (the accessors return the last; `strings` all).
    private var values: [String: [String]] = [:]
    private var ints: [String: Int] = [:]
    private var doubles: [String: Double] = [:]

    init(_ args: ArraySlice<String>, spec: CommandSpec) throws {
        command = spec.name
        var i = args.startIndex
        var onlyPositionals = false
        while i < args.endIndex {
            let a = args[i]
            if onlyPositionals || !a.hasPrefix("--") || a == "-" {
                positionals.append(a)
            } else if a == "--" {
                onlyPositionals = true
            } else {
                var name = String(a.dropFirst(2))
                var value: String?
                if let eq = name.firstIndex(of: "=") {
                    value = String(name[name.index(after: eq)...])
                    name = String(name[..<eq])
                }
                if name == "help" {
                    flags.insert(name)
                } else if let option = spec.option(name) {
                    if option.kind == .flag {
                        if value != nil { throw usage("--\(name) takes no value (see xcfleet \(command) --help)") }
                        flags.insert(name)
                    } else {
                        if value == nil {
                            i += 1
                            guard i < args.endIndex else { throw usage("--\(name) needs a value \(option.value ?? "") (see xcfleet \(command) --help)") }
                            value = args[i]
                        }
                        try take(value ?? "", for: option)
                    }
                } else {
                    let suggestion = Suggestion.clause(for: name, among: spec.options.map(\.name) + ["help"], prefix: "--")
                    throw usage("unknown option --\(name)\(suggestion) (see xcfleet \(command) --help)")
                }
            }
            i += 1
        }
    }

    /// Checks `raw` against the option's kind and keeps it.
    private mutating func take(_ raw: String, for option: CommandSpec.Option) throws {
        switch option.kind.check(raw, placeholder: option.value) {
        case .refused(let problem): throw usage("--\(option.name): \(problem)")
        case .accepted(.int(let n)): ints[option.name] = n
        case .accepted(.double(let x)): doubles[option.name] = x
        case .accepted(.text): break
        }
        values[option.name, default: []].append(raw)
    }

    private func usage(_ message: String) -> UsageError { UsageError(message, command: command) }

    func flag(_ name: String) -> Bool { flags.contains(name) }
    /// The last value given for a string, path or choice option.
    func string(_ name: String) -> String? { values[name]?.last }
    /// Every value given for a repeatable option, in order.
    func strings(_ name: String) -> [String] { values[name] ?? [] }
    /// The last value of an `int` option, within its declared range.
    func int(_ name: String) -> Int? { ints[name] }
    /// The last value of a `double` option, within its declared range.
    func double(_ name: String) -> Double? { doubles[name] }
}
