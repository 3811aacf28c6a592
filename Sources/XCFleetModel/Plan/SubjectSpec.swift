import Foundation

/// A team's own implementation put under a contract template (README, "Your code under a
/// contract"): their SwiftPM package (by path), the module that holds the implementation and one
/// adapter file of theirs that maps their types onto the contract's surface. xcfleet renders a
/// harness package that depends on theirs by path; their `Package.swift` is never edited.
public struct SubjectSpec: Equatable, Codable, Sendable {
    /// The package folder as written in the plan (relative to the plan's folder).
    public var package: String
    /// The module (target) that holds the implementation.
    public var module: String
    /// The library product the harness depends on (default: the module's name).
    public var product: String
    /// The adapter file as written in the plan (relative to the plan's folder).
    public var adapter: String
    /// Contract ids the subject claims (nil: every id of the contract). Unclaimed ids are reported
    /// as not claimed, never as passed; their tests skip.
    public var claims: [String]?
    /// Find/replace mutants of the team's own files (paths relative to `package`), from the plan
    /// and from `mutants/<id>/mutant.json` beside the adapter. Each must be killed.
    public var mutants: [MutantSpec]
    /// Absolute, symlink-resolved folder of the package (set by `PlanLoader`).
    public var packageDirectory: String
    /// Absolute, symlink-resolved adapter file (set by `PlanLoader`).
    public var adapterPath: String

    public init(package: String, module: String, product: String? = nil, adapter: String, claims: [String]? = nil,
                mutants: [MutantSpec] = [], packageDirectory: String, adapterPath: String) {
        self.package = package
        self.module = module
        self.product = product ?? module
        self.adapter = adapter
        self.claims = claims
        self.mutants = mutants
        self.packageDirectory = packageDirectory
        self.adapterPath = adapterPath
    }

    /// The harness's folder for the team's package (`Subject/<folder name>`): SwiftPM names a path
    /// dependency by its last path component.
    public var packageFolderName: String {
        let name = (packageDirectory as NSString).lastPathComponent
        return name.isEmpty || name == "/" ? "subject" : name
    }
}
