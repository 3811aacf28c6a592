import Foundation

/// A deliberately broken variant (CONTRACT.md M): the rendered gate package with a few exact
/// text edits applied (`Templates/mutants/<id>/mutant.json`; format in docs/templates.md).
public struct MutantSpec: Equatable, Codable, Sendable {
    public var id: String
    /// What is broken, in words ("key without the account field").
    public var fault: String
    public var contract: String
    /// The template whose gate suite must kill it.
    public var template: String
    /// The edits, applied in order to the rendered package (`MutantEdit`); for a subject's
    /// mutant, paths relative to the team's package.
    public var edits: [MutantEdit]
    /// Where a team's mutant was declared (a `mutant.json`, or the plan), for messages; nil for
    /// xcfleet's own (`Templates/mutants/<id>/mutant.json`). Not part of the description.
    public var declaredIn: String? = nil

    private enum CodingKeys: String, CodingKey { case id, fault, contract, template, edits }

    public init(id: String, fault: String, contract: String, template: String, edits: [MutantEdit]) {
        self.id = id
        self.fault = fault
        self.contract = contract
        self.template = template
        self.edits = edits
    }

    /// The package paths the mutant changes, sorted, without repeats.
    public var files: [String] { Array(Set(edits.map(\.file))).sorted() }

    /// What is wrong with a decoded spec, or nil.
    public func problem() -> String? {
        if id.isEmpty || !id.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }) {
            return "\"id\" must be letters, digits, - and _ (got \(id.debugDescription))"
        }
        if edits.isEmpty { return "\"edits\" is empty: a mutant must change something" }
        for (i, edit) in edits.enumerated() {
            if let why = Workspace.pathProblem(edit.file) { return "edits[\(i)].file \(edit.file.debugDescription): \(why)" }
            if edit.find.isEmpty { return "edits[\(i)].find is empty" }
            if edit.find == edit.replace { return "edits[\(i)]: find and replace are the same text" }
        }
        return nil
    }
}
