import Foundation
import XCFleetBasics

public enum RenderError: Error, Equatable, CustomStringConvertible {
    case templatesNotFound(tried: [String])
    case unknownTemplate(String)
    case unreadable(String, String)
    case badMutant(String, String)
    case mutantTargetMissing(mutant: String, path: String)
    /// Edit number `edit` (0-based) of a mutant: its `find` text occurs `occurrences` times (0, or 2 meaning "more than once").
    case mutantDoesNotApply(mutant: String, file: String, edit: Int, find: String, occurrences: Int)
    /// A team's mutant that does not apply to their package (message names the mutant, the file and where it is declared).
    case subjectMutantDoesNotApply(String)

    public var description: String {
        switch self {
        case .templatesNotFound(let tried):
            return "cannot find xcfleet's templates (a folder with Templates/ and Sources/CacheContract/); looked in: \(tried.joined(separator: ", ")); set XCFLEET_HOME or pass --templates DIR"
        case .unknownTemplate(let name):
            return "no template '\(name)' under Templates/ (known: \(TemplateInfo.names.sorted().joined(separator: ", ")))"
        case .unreadable(let path, let why): return "\(path): cannot read: \(why)"
        case .badMutant(let path, let why): return "\(path): not a valid mutant description: \(why)"
        case .mutantTargetMissing(let mutant, let path): return "mutant \(mutant) edits \(path), which the rendered package does not have"
        case .mutantDoesNotApply(let mutant, let file, let edit, let find, let count):
            var shown = find.count > 120 ? String(find.prefix(120)) + "…" : find
            shown = shown.debugDescription
            if count == 0 {
                return "mutant \(mutant) does not apply: \(file) does not contain the text of edits[\(edit)].find \(shown) (the file changed; update Templates/mutants/\(mutant)/mutant.json)"
            }
            return "mutant \(mutant) does not apply: the text of edits[\(edit)].find occurs more than once in \(file) \(shown); it must occur exactly once (make it longer)"
        case .subjectMutantDoesNotApply(let message): return message
        }
    }
}

extension RenderError {
    /// The message for a team's mutant that failed to apply: paths are the package's own, the hint
    /// names where the mutant is declared instead of Templates/mutants.
    package static func subjectMutant(_ error: Error, declaredIn: String?) -> String {
        let place = declaredIn ?? "the plan"
        switch error as? RenderError {
        case .mutantDoesNotApply(let mutant, let file, let edit, let find, 0)?:
            let shown = (find.count > 120 ? String(find.prefix(120)) + "…" : find).debugDescription
            return "mutant \(mutant) does not apply: \(file) does not contain the text of edits[\(edit)].find \(shown) (the file changed; update \(place))"
        case .mutantTargetMissing(let mutant, let path)?:
            return "mutant \(mutant) edits \(path), which the package does not have (declared in \(place))"
        case let e?: return "\(e.description) (declared in \(place))"
        case nil: return "\(error)"
        }
    }
}

extension RenderError: UserFacingError {
    public var userMessage: String { description }
    public var exitCode: Int32 { UserFacingErrors.ExitCode.usage }
}
