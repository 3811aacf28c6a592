import Foundation

/// What a job pushes, how it is built and how it is tested: the one input that differs between a
/// rendered template, a team's package and an Xcode project. The attempt machine (`AttemptMachine`)
/// runs the same steps — push, build or reuse, test, collect, clean up — for every source; the
/// source decides only which files go up and which driver's commands the steps run.
///
/// Adding a source is a new `Origin` case, the code that makes its `Workspace` (in the kit), and a
/// `driver` it builds with; the steps, the build cache, the scheduler and the reports are shared.
public struct JobSource: Equatable, Sendable {
    /// Where the workspace came from (for the event log and messages).
    public enum Origin: Equatable, Sendable {
        /// A package rendered from one of our templates (`Renderer`): the template's name.
        case template(String)
        /// A team's own SwiftPM package (`PackageSuite`): its folder relative to the repository that is
        /// pushed ("" for the repository's top). Its tests are the ones discovered after the build.
        case package(String)
        /// A team's own Xcode workspace or project (`XcodeProjectSuite`), built for its scheme and
        /// test plan; its tests are the ones `-enumerate-tests` lists after the build.
        case xcodeProject(XcodeProjectSuite)
    }

    /// The tool that builds and tests the workspace.
    public enum Driver: Equatable, Sendable {
        /// `swift build --build-tests` through the host build cache, then the built test bundle.
        case swiftPM
        /// `xcodebuild build-for-testing` through the host build cache, then `test-without-building`
        /// on `destination` (the plan's destination text), then the result bundle.
        case xcodebuild(destination: String)
    }

    public var origin: Origin
    /// The files pushed to the host (their content hash names the push cache entry).
    public var workspace: Workspace
    public var driver: Driver

    public init(origin: Origin, workspace: Workspace, driver: Driver) {
        self.origin = origin
        self.workspace = workspace
        self.driver = driver
    }

    /// The steps an attempt of this source runs, in order (cleanup always follows). Every source
    /// lists the tests of what was built (`discover`) before it runs them: that list is its manifest.
    public var steps: [AttemptStep] { driver.steps }

    /// The Xcode workspace or project, for an Xcode project source.
    public var xcodeProject: XcodeProjectSuite? {
        if case .xcodeProject(let project) = origin { return project }
        return nil
    }

    /// The package's folder relative to the pushed tree, for a package source.
    public var packageDirectory: String? {
        if case .package(let dir) = origin { return dir }
        return nil
    }

    /// How the build step's failure is named when the output held no compiler error.
    public var buildToolName: String { driver.buildToolName }

    /// The destination a build key includes (nil for SwiftPM on the host itself).
    public var destination: String? { driver.destination }
}

extension JobSource.Driver {
    /// The steps an attempt with this driver runs, in order (cleanup always follows).
    public var steps: [AttemptStep] {
        switch self {
        case .swiftPM, .xcodebuild: return [.push, .build, .discover, .test, .collect]
        }
    }

    /// How the build step's failure is named when the output held no compiler error.
    public var buildToolName: String {
        switch self {
        case .swiftPM: return "swift build"
        case .xcodebuild: return "xcodebuild build-for-testing"
        }
    }

    public var destination: String? {
        switch self {
        case .swiftPM: return nil
        case .xcodebuild(let destination): return destination
        }
    }
}

/// One step of an attempt, in the order `JobSource.steps` lists them.
public enum AttemptStep: String, Equatable, Sendable, CaseIterable {
    /// Make the job directory and put the workspace there (or find it there already).
    case push
    /// Build, or reuse a cached build of the same key (Xcode: also choose the Xcode and boot the simulator).
    case build
    /// List the tests of what was built (the built bundle's `--list-tests`, or `xcodebuild
    /// -enumerate-tests`, without a rebuild): the attempt's manifest, logged as `testsDiscovered`.
    case discover
    /// Run the tests, output streamed to the parser.
    case test
    /// Read what the test run left behind: its attachments folder (docs/attachments.md) and, for
    /// Xcode, the result bundle.
    case collect

    /// The phase the event log records the step under.
    public var phase: Phase {
        switch self {
        case .push: return .push
        case .build, .discover: return .build
        case .test: return .test
        case .collect: return .fetch
        }
    }
}
