import XCFleetKit

/// A usage problem: printed as one line with a hint, exit code 2.
struct UsageError: Error, CustomStringConvertible {
    var description: String
    init(_ message: String) { description = message }
}

/// Minimal argument scanner: positionals, `--flag`, `--option VALUE` / `--option=VALUE`.
/// Unknown options are errors that name the option and the command's help.
struct Arguments {
    var positionals: [String] = []
    var options: [String: String] = [:]
    /// Every value of a repeatable option, in order (`options` keeps the last).
    var repeated: [String: [String]] = [:]
    var flags: Set<String> = []

    init(_ args: ArraySlice<String>, options known: Set<String>, flags knownFlags: Set<String>, command: String) throws {
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
                if knownFlags.contains(name) {
                    if value != nil { throw UsageError("--\(name) takes no value (xcfleet \(command) --help)") }
                    flags.insert(name)
                } else if known.contains(name) {
                    if value == nil {
                        i += 1
                        guard i < args.endIndex else { throw UsageError("--\(name) needs a value (xcfleet \(command) --help)") }
                        value = args[i]
                    }
                    options[name] = value
                    if let value { repeated[name, default: []].append(value) }
                } else {
                    throw UsageError("unknown option --\(name) for 'xcfleet \(command)' (see xcfleet \(command) --help)")
                }
            }
            i += 1
        }
    }
}
