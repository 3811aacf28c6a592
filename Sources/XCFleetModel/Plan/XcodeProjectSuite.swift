import Foundation

/// The `workspace` or `project` of a suite: a team's own Xcode workspace or project, built once
/// with `xcodebuild build-for-testing` for its `scheme` (and `testPlan`) and tested without
/// building, each test-plan configuration as its own job (README, "A team's Xcode project").
/// xcfleet pushes the files of the git repository that holds the plan, as for a package suite,
/// and takes the tests to require from what was built (`-enumerate-tests`), never from sources.
public struct XcodeProjectSuite: Equatable, Codable, Sendable {
    public enum Kind: String, Codable, Sendable {
        case workspace, project
    }

    public var kind: Kind
    /// The `.xcworkspace` / `.xcodeproj` as written in the plan (relative to the plan's folder).
    public var path: String
    /// The repository that holds the plan (absolute, symlinks resolved): what is pushed.
    public var repository: String
    /// The container relative to `repository` (`App.xcworkspace`, `ios/App.xcodeproj`).
    public var container: String
    public var scheme: String
    /// `-testPlan NAME` (the `.xctestplan` file's name without the extension); nil: the scheme's default.
    public var testPlan: String?
    /// Test-plan configurations, each run as its own job with `-only-test-configuration` (nil: every
    /// configuration in one run, as xcodebuild does).
    public var configurations: [String]?
    /// Only the discovered tests some entry selects run (nil: every test); `TestSelection`, on the
    /// names `Target.Class/test` as for a package suite. Selected with `-only-testing:`.
    public var filter: [String]?
    /// Discovered tests some entry selects do not run (applied after `filter`, before shards split).
    public var skip: [String]?

    public init(kind: Kind, path: String, repository: String, container: String, scheme: String,
                testPlan: String? = nil, configurations: [String]? = nil, filter: [String]? = nil, skip: [String]? = nil) {
        self.kind = kind
        self.path = path
        self.repository = repository
        self.container = container
        self.scheme = scheme
        self.testPlan = testPlan
        self.configurations = configurations
        self.filter = filter
        self.skip = skip
    }

    /// The folder the repository's untracked files are taken from: the container's own folder.
    public var containerFolder: String {
        let parent = (container as NSString).deletingLastPathComponent
        return parent.isEmpty ? repository : repository + "/" + parent
    }

    /// The configurations as job dimensions (`[nil]`: one job for the whole test plan).
    public var dimensions: [String?] { configurations.map { $0.map(Optional.some) } ?? [nil] }
}

extension SuiteSpec {
    /// This suite with `xcodeProject` set.
    func withXcodeProject(_ project: XcodeProjectSuite?) -> SuiteSpec {
        var copy = self
        copy.xcodeProject = project
        return copy
    }
}
