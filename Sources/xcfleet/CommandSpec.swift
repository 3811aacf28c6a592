import Foundation
import XCFleetKit

/// One command of `xcfleet`: its words, usage, typed options (with what completes their values),
/// examples and the function that runs it. `CommandTable.commands` lists them all; dispatch,
/// help, the argument parser's known options and the shell completion scripts all come from that
/// table, so adding a command is one entry there and they cannot disagree.
struct CommandSpec: Sendable {
    /// What completes a value: nothing, any file, a `.json` file, a directory, or fixed words.
    enum Completion: Sendable, Equatable {
        case none, file, json, directory, jsonOrDirectory
        case words([String])
    }

    /// What an option's value must be (`OptionKind`); the parser checks it before the command runs.
    typealias Kind = OptionKind

    struct Option: Sendable {
        var name: String
        /// The value's placeholder (`FILE`); nil for a flag.
        var value: String?
        var help: String
        var completion: Completion = .none
        var kind: Kind

        /// `kind` defaults from the rest: a flag without a value, a path when files or
        /// directories complete it, a choice of the completion's words, else a string.
        init(name: String, value: String?, help: String, completion: Completion = .none, kind: Kind? = nil) {
            self.name = name
            self.value = value
            self.help = help
            self.completion = completion
            self.kind = kind ?? {
                guard value != nil else { return .flag }
                switch completion {
                case .none: return .string
                case .file, .json, .directory, .jsonOrDirectory: return .path
                case .words(let words): return .choice(words)
                }
            }()
        }

        static func flag(_ name: String, _ help: String) -> Option { Option(name: name, value: nil, help: help) }
        static func int(_ name: String, _ value: String, _ range: ClosedRange<Int>, _ help: String) -> Option {
            Option(name: name, value: value, help: help, kind: .int(range))
        }
        static func double(_ name: String, _ value: String, _ range: ClosedRange<Double>, _ help: String) -> Option {
            Option(name: name, value: value, help: help, kind: .double(range))
        }
        static func choice(_ name: String, _ value: String, _ words: [String], _ help: String) -> Option {
            Option(name: name, value: value, help: help, completion: .words(words), kind: .choice(words))
        }
    }

    /// `["hosts", "check"]`.
    var path: [String]
    /// Positional arguments as shown in the usage line (`PLAN`, `[LOG|-]`).
    var arguments: String
    var summary: String
    var options: [Option]
    var positional: Completion
    var examples: [String]
    /// Runs the command with its parsed, already validated arguments; returns the exit code.
    var run: @Sendable (Arguments) async throws -> Int32

    var name: String { path.joined(separator: " ") }
    var valueOptions: Set<String> { Set(options.filter { $0.value != nil }.map(\.name)) }
    var flagOptions: Set<String> { Set(options.filter { $0.value == nil }.map(\.name)) }
    func option(_ name: String) -> Option? { options.first { $0.name == name } }

    var usageLine: String {
        var parts = ["xcfleet", name]
        if !arguments.isEmpty { parts.append(arguments) }
        if !options.isEmpty { parts.append("[options]") }
        return parts.joined(separator: " ")
    }

    /// The text `xcfleet CMD --help` prints.
    var help: String {
        var lines = ["usage: \(usageLine)", "", summary]
        let shown = options + [Option.flag("help", "show this help (also -h)")]
        lines.append("")
        lines.append("options:")
        let labels = shown.map { "--\($0.name)" + ($0.value.map { " \($0)" } ?? "") }
        let width = (labels.map(\.count).max() ?? 0) + 2
        for (label, option) in zip(labels, shown) {
            lines.append("  " + label.padding(toLength: width, withPad: " ", startingAt: 0) + option.help + option.kind.helpSuffix)
        }
        lines.append("")
        lines.append(examples.count == 1 ? "example:" : "examples:")
        for e in examples { lines.append("  \(e)") }
        lines.append("")
        lines.append(CommandTable.exitCodes)
        return lines.joined(separator: "\n")
    }
}

