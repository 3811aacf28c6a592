import Foundation
import XCFleetModel
import XCFleetCore

/// A job ready to run: what the event log records, plus the rendered package and its command options.
public struct PlannedJob: Sendable {
    public var planned: JobPlanned
    public var spec: SuiteSpec
    /// What the job pushes, builds and tests (`JobSource`): the attempt machine's input.
    public var source: JobSource
    /// The source's files.
    public var workspace: Workspace {
        get { source.workspace }
        set { source.workspace = newValue }
    }
    /// Capabilities a host needs (plan `requires` + the template's own).
    public var requires: [String]
    /// Where the workspace's files came from (recorded in the event log before the job runs).
    public var sourceMap: SourceMap?
    /// The suite's earlier test durations (`--history`), so that every shard splits the
    /// discovered list the same way, longest first (empty: equal counts).
    public var shardDurations: [String: Double] = [:]
    /// A rerun after test failures: only these discovered tests run (nil: its part).
    public var rerun: [String]? = nil

    /// `origin` nil: a package rendered from the suite's template. The driver follows the suite's
    /// destination (Xcode) or its absence (SwiftPM).
    public init(planned: JobPlanned, spec: SuiteSpec, workspace: Workspace, requires: [String],
                sourceMap: SourceMap? = nil, origin: JobSource.Origin? = nil) {
        self.planned = planned
        self.spec = spec
        self.source = JobSource(origin: origin ?? .template(spec.template), workspace: workspace,
                                driver: spec.destination.map { .xcodebuild(destination: $0) } ?? .swiftPM)
        self.requires = requires
        self.sourceMap = sourceMap
    }
}

/// Turns a plan into jobs: suite × shard × repetition, plus one job per mutant when asked.
public struct JobPlanner: Sendable {
    public var renderer: Renderer
    public var mutants: [MutantSpec]
    /// Earlier durations (`--history`), for equal-time shards (none: equal counts).
    public var history: DurationHistory?

    /// Package suites' workspaces by suite name (`PackageWorkspace.read`).
    public var packages: [String: Workspace]

    public init(renderer: Renderer, mutants: [MutantSpec], history: DurationHistory? = nil, packages: [String: Workspace] = [:]) {
        self.renderer = renderer
        self.mutants = mutants
        self.history = history
        self.packages = packages
    }

    public func jobs(for plan: TestPlan, forceMutants: Bool = false) throws -> [PlannedJob] {
        var out: [PlannedJob] = []
        for suite in plan.suites {
            if let package = suite.package {
                out += packageJobs(suite, package)
                continue
            }
            if let project = suite.xcodeProject {
                out += xcodeProjectJobs(suite, project)
                continue
            }
            let requires = Array(Set(suite.requires + (TemplateInfo.named(suite.template)?.requires ?? []))).sorted()
            // Rendered once: repetitions share the package (and so the build); mutants are the
            // gate's files with their edits. No job plans a list of tests: each attempt discovers
            // them in what was built and runs its shard's part (`PackageSelection`).
            let rendered = try renderer.renderGate(suite)
            let durations = history?.durations(suite: suite.name) ?? [:]
            let shardCount = max(1, suite.shards)
            for rep in 0..<max(1, suite.repetitions) {
                for shard in 0..<shardCount {
                    var id = suite.name
                    if suite.repetitions > 1 { id += "#r\(rep + 1)" }
                    if shardCount > 1 { id += "#s\(shard + 1)of\(shardCount)" }
                    let planned = JobPlanned(jobID: id, suite: suite.name, kind: suite.kind, shard: shard, shardCount: shardCount,
                                             repetition: rep, mutant: nil, expectedTests: [],
                                             contentHash: rendered.workspace.contentHash)
                    var job = PlannedJob(planned: planned, spec: suite, workspace: rendered.workspace, requires: requires,
                                         sourceMap: rendered.sourceMap)
                    job.shardDurations = durations
                    out.append(job)
                }
            }
            if suite.kind == .gate && (suite.mutants || forceMutants) {
                // A team's subject brings its own mutants (of its own files); ours edit our reference.
                for mutant in suite.subject?.mutants ?? mutants.filter({ $0.template == suite.template }) {
                    let variant = try renderer.variant(of: rendered, suite: suite, mutant: mutant)
                    let planned = JobPlanned(jobID: "\(suite.name)#mutant-\(mutant.id)", suite: suite.name, kind: suite.kind,
                                             mutant: mutant.id, mutantFault: mutant.fault, expectedTests: [],
                                             contentHash: variant.workspace.contentHash)
                    var spec = suite
                    spec.retries.testFailures = 0 // a mutant's failure is the expected outcome: never rerun it
                    out.append(PlannedJob(planned: planned, spec: spec, workspace: variant.workspace, requires: requires,
                                          sourceMap: variant.sourceMap))
                }
            }
        }
        return out
    }

    /// An Xcode project suite's jobs: configuration × repetition × shard, each with no planned
    /// manifest. Every attempt builds (once per key, through the host build cache), enumerates the
    /// built tests and runs its shard's part of them (`PackageSelection`).
    private func xcodeProjectJobs(_ suite: SuiteSpec, _ project: XcodeProjectSuite) -> [PlannedJob] {
        let workspace = packages[suite.name] ?? Workspace(files: [])
        let shardCount = max(1, suite.shards)
        let dimensions = project.dimensions
        let sourceMap = SourceMap.identity(of: workspace.files.map(\.path))
        var out: [PlannedJob] = []
        for (c, configuration) in dimensions.enumerated() {
            for rep in 0..<max(1, suite.repetitions) {
                for shard in 0..<shardCount {
                    var id = suite.name
                    // Configuration names are free text: the job id numbers them (the name is in `configuration`).
                    if dimensions.count > 1 || configuration != nil { id += "#c\(c + 1)" }
                    if suite.repetitions > 1 { id += "#r\(rep + 1)" }
                    if shardCount > 1 { id += "#s\(shard + 1)of\(shardCount)" }
                    var planned = JobPlanned(jobID: id, suite: suite.name, kind: suite.kind, shard: shard, shardCount: shardCount,
                                             repetition: rep, mutant: nil, expectedTests: [], contentHash: workspace.contentHash)
                    planned.configuration = configuration
                    // xcodebuild runs on a Mac: never offered to a host without the label.
                    var job = PlannedJob(planned: planned, spec: suite, workspace: workspace,
                                         requires: Array(Set(suite.requires + ["platform:macos"])).sorted(),
                                         sourceMap: sourceMap, origin: .xcodeProject(project))
                    job.shardDurations = history?.durations(suite: suite.name) ?? [:]
                    out.append(job)
                }
            }
        }
        return out
    }

    /// A package suite's jobs: repetition × shard, each with no planned manifest. Every attempt
    /// discovers the tests of what was built and runs its shard's part (`PackageSelection`).
    private func packageJobs(_ suite: SuiteSpec, _ package: PackageSuite) -> [PlannedJob] {
        let workspace = packages[suite.name] ?? Workspace(files: [])
        let shardCount = max(1, suite.shards)
        // The repository is pushed as it is: a location the host prints is the same file of the repository.
        let sourceMap = SourceMap.identity(of: workspace.files.map(\.path))
        var out: [PlannedJob] = []
        for rep in 0..<max(1, suite.repetitions) {
            for shard in 0..<shardCount {
                var id = suite.name
                if suite.repetitions > 1 { id += "#r\(rep + 1)" }
                if shardCount > 1 { id += "#s\(shard + 1)of\(shardCount)" }
                let planned = JobPlanned(jobID: id, suite: suite.name, kind: suite.kind, shard: shard, shardCount: shardCount,
                                         repetition: rep, mutant: nil, expectedTests: [], contentHash: workspace.contentHash)
                var job = PlannedJob(planned: planned, spec: suite, workspace: workspace,
                                     requires: suite.requires.sorted(), sourceMap: sourceMap, origin: .package(package.directory))
                job.shardDurations = history?.durations(suite: suite.name) ?? [:]
                out.append(job)
            }
        }
        return out
    }
}
