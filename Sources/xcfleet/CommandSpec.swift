/// One command of `xcfleet`: its words, usage, options (with what completes their values) and
/// examples. `CommandTable.commands` lists them all; help, the argument scanner's known options
/// and the shell completion scripts are generated from that table, so adding a command is one
/// entry there plus its `case` in `main`'s dispatch.
struct CommandSpec: Sendable {
    /// What completes a value: nothing, any file, a `.json` file, a directory, or fixed words.
    enum Completion: Sendable, Equatable {
        case none, file, json, directory, jsonOrDirectory
        case words([String])
    }

    struct Option: Sendable {
        var name: String
        /// The value's placeholder (`FILE`); nil for a flag.
        var value: String?
        var help: String
        var completion: Completion = .none

        static func flag(_ name: String, _ help: String) -> Option { Option(name: name, value: nil, help: help) }
    }

    /// `["hosts", "check"]`.
    var path: [String]
    /// Positional arguments as shown in the usage line (`PLAN`, `[LOG|-]`).
    var arguments: String
    var summary: String
    var options: [Option]
    var positional: Completion
    var examples: [String]

    var name: String { path.joined(separator: " ") }
    var valueOptions: Set<String> { Set(options.filter { $0.value != nil }.map(\.name)) }
    var flagOptions: Set<String> { Set(options.filter { $0.value == nil }.map(\.name)) }

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
            lines.append("  " + label.padding(toLength: width, withPad: " ", startingAt: 0) + option.help)
        }
        lines.append("")
        lines.append(examples.count == 1 ? "example:" : "examples:")
        for e in examples { lines.append("  \(e)") }
        lines.append("")
        lines.append(CommandTable.exitCodes)
        return lines.joined(separator: "\n")
    }
}
