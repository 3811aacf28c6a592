import Foundation

/// Where a failure points, after `LocationMapper` translated the path a host printed (inside its
/// job or build folder) into the user's repository. `FailureDetail.location` carries it; `file`
/// and `line` of the detail then hold `path`/`line` when the location is a file of the repository.
public struct SourceLocation: Equatable, Codable, Sendable {
    public enum Kind: String, Codable, Sendable {
        /// A file of the user's repository (`path` is relative to the repository root).
        case repository
        /// An installed xcfleet (no repository): `path` is relative to the templates root.
        case templates
        /// A file xcfleet generated (`generated` names it); no repository file to point at.
        case generated
        /// A file a mutant replaced or patched: `mutant`, `original` (and `path`/`line` when known).
        case mutant
        /// Not a file of the rendered package: the host's path, as printed.
        case host
    }

    public var kind: Kind
    /// The file as the host printed it (absolute, `file://` URLs included).
    public var hostFile: String
    /// The line as the host printed it (in the rendered file).
    public var hostLine: Int?
    public var column: Int?
    /// Repository-relative path (kinds `repository`, `mutant`) or templates-relative (`templates`).
    public var path: String?
    /// Line in `path`.
    public var line: Int?
    /// Name of a generated file (`XCFleetSettings.swift`).
    public var generated: String?
    public var mutant: String?
    /// The repository file a mutant replaces or patches.
    public var original: String?

    public init(kind: Kind, hostFile: String, hostLine: Int? = nil, column: Int? = nil, path: String? = nil, line: Int? = nil,
                generated: String? = nil, mutant: String? = nil, original: String? = nil) {
        self.kind = kind
        self.hostFile = hostFile
        self.hostLine = hostLine
        self.column = column
        self.path = path
        self.line = line
        self.generated = generated
        self.mutant = mutant
        self.original = original
    }

    /// A path a CI can attach to a line of the repository (annotations `file=`, forge links).
    public var repositoryPath: String? {
        switch kind {
        case .repository, .mutant: return path
        case .templates, .generated, .host: return nil
        }
    }

    /// How every report shows it: `Templates/x/A.swift:12`, `generated: XCFleetSettings.swift:3`,
    /// `Sources/CacheContract/K.swift:4 (mutant key-x)`, `xcfleet templates: Templates/…:7`, or the host path.
    public var display: String {
        func at(_ p: String, _ l: Int?) -> String { l.map { "\(p):\($0)" } ?? p }
        switch kind {
        case .repository: return at(path ?? hostFile, line)
        case .templates: return "xcfleet templates: " + at(path ?? hostFile, line)
        case .generated: return "generated: " + at(generated ?? hostFile, hostLine)
        case .mutant:
            let id = mutant ?? "?"
            let orig = original ?? "?"
            guard let path else { return "mutant \(id) of \(orig) (in the mutant's edit)" }
            if path == orig { return at(path, line) + " (mutant \(id))" }
            return at(path, line) + " (mutant \(id) of \(orig))"
        case .host: return at(hostFile, hostLine)
        }
    }
}
