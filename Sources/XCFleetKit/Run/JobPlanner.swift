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
    /// Tests this job runs when it is one shard of a suite (`nil`: the whole suite).
    public var filter: [String]?
    /// Capabilities a host needs (plan `requires` + the template's own).
    public var requires: [String]
    /// Where the workspace's files came from (recorded in the event log before the job runs).
    public var sourceMap: SourceMap?

    /// `origin` nil: a package rendered from the suite's template. The driver follows the suite's
    /// destination (Xcode) or its absence (SwiftPM).
    public init(planned: JobPlanned, spec: SuiteSpec, workspace: Workspace, filter: [String]?, requires: [String],
                sourceMap: SourceMap? = nil, origin: JobSource.Origin? = nil) {
        self.planned = planned
        self.spec = spec
        self.source = JobSource(origin: origin ?? .template(spec.template), workspace: workspace,
                                driver: spec.destination.map { .xcodebuild(destination: $0) } ?? .swiftPM)
        self.filter = filter
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

    public init(renderer: Renderer, mutants: [MutantSpec], history: DurationHistory? = nil) {
        self.renderer = renderer
        self.mutants = mutants
        self.history = history
    }

    public func jobs(for plan: TestPlan, forceMutants: Bool = false) throws -> [PlannedJob] {
        var out: [PlannedJob] = []
        for suite in plan.suites {
            let requires = Array(Set(suite.requires + (TemplateInfo.named(suite.template)?.requires ?? []))).sorted()
            // Rendered once: repetitions share the package (and so the build); mutants are the
            // gate's files with their edits.
            let rendered = try renderer.renderGate(suite)
            for rep in 0..<max(1, suite.repetitions) {
                let shardCount = max(1, min(suite.shards, rendered.manifest.tests.count))
                let buckets = shardCount > 1 ? Sharder.split(tests: rendered.manifest.tests, durations: history?.durations(suite: suite.name) ?? [:], shards: shardCount) : [rendered.manifest.tests]
                for (shard, tests) in buckets.enumerated() {
                    var id = suite.name
                    if suite.repetitions > 1 { id += "#r\(rep + 1)" }
                    if shardCount > 1 { id += "#s\(shard + 1)of\(shardCount)" }
                    let planned = JobPlanned(jobID: id, suite: suite.name, kind: suite.kind, shard: shard, shardCount: shardCount,
                                             repetition: rep, mutant: nil, expectedTests: tests,
                                             contentHash: rendered.workspace.contentHash)
                    out.append(PlannedJob(planned: planned, spec: suite, workspace: rendered.workspace,
                                          filter: shardCount > 1 ? tests : nil, requires: requires, sourceMap: rendered.sourceMap))
                }
            }
            if suite.kind == .gate && (suite.mutants || forceMutants) {
                // A team's subject brings its own mutants (of its own files); ours edit our reference.
                for mutant in suite.subject?.mutants ?? mutants.filter({ $0.template == suite.template }) {
                    let variant = try renderer.variant(of: rendered, suite: suite, mutant: mutant)
                    let planned = JobPlanned(jobID: "\(suite.name)#mutant-\(mutant.id)", suite: suite.name, kind: suite.kind,
                                             mutant: mutant.id, mutantFault: mutant.fault, expectedTests: variant.manifest.tests,
                                             contentHash: variant.workspace.contentHash)
                    var spec = suite
                    spec.retries.testFailures = 0 // a mutant's failure is the expected outcome: never rerun it
                    out.append(PlannedJob(planned: planned, spec: spec, workspace: variant.workspace, filter: nil, requires: requires,
                                          sourceMap: variant.sourceMap))
                }
            }
        }
        return out
    }
}
