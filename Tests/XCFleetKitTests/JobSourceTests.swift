import Foundation
import XCTest
@testable import XCFleetKit
import XCFleetTestSupport

/// The job source is the attempt machine's input: a planned job carries one, its driver follows the
/// suite, and every job — Xcode ones too — gets a build key for the scheduler.
final class JobSourceTests: XCTestCase {
    private func job(_ id: String, suite: String = "gate", destination: String? = nil, mutant: String? = nil,
                     workspace: Workspace) -> PlannedJob {
        PlannedJob(planned: JobPlanned(jobID: id, suite: suite, kind: .gate, mutant: mutant, expectedTests: []),
                   spec: SuiteSpec(name: suite, template: "cache-contract", destination: destination), workspace: workspace, requires: [])
    }

    func testPlannedJobsCarryTheirSource() throws {
        let ws = try BuildCacheTests.contractWorkspace()
        let swiftPM = job("a", workspace: ws)
        XCTAssertEqual(swiftPM.source, JobSource(origin: .template("cache-contract"), workspace: ws, driver: .swiftPM))
        XCTAssertEqual(swiftPM.source.steps, [.push, .build, .discover, .test, .collect], "a template's tests are listed from what was built")
        let xcode = job("b", destination: "platform=macOS", workspace: ws)
        XCTAssertEqual(xcode.source.driver, .xcodebuild(destination: "platform=macOS"))
        XCTAssertEqual(xcode.source.steps, [.push, .build, .discover, .test, .collect])
        var changed = swiftPM
        changed.workspace = Workspace(files: [])
        XCTAssertEqual(changed.source.workspace, Workspace(files: []), "the workspace is the source's")
    }

    func testEveryJobGetsABuildKeyAndXcodeKeysIncludeTheDestination() throws {
        let ws = try BuildCacheTests.contractWorkspace()
        let jobs = [job("spm", workspace: ws), job("mac", destination: "platform=macOS", workspace: ws),
                    job("ios", destination: "platform=iOS Simulator,name=iPhone 16", workspace: ws),
                    job("gate#mutant-m1", mutant: "m1", workspace: Workspace(files: ws.files.dropLast()))]
        let builds = RunCoordinator.builds(for: jobs)
        XCTAssertEqual(Set(builds.keys), ["spm", "mac", "ios", "gate#mutant-m1"], "Xcode jobs are keyed too")
        XCTAssertEqual(Set([builds["spm"]?.key, builds["mac"]?.key, builds["ios"]?.key]).count, 3, "one package for two platforms is two builds")
        XCTAssertEqual(builds["gate#mutant-m1"]?.bases, [try XCTUnwrap(builds["spm"]?.key)], "a mutant starts from its gate's build")
        XCTAssertEqual(builds["spm"]?.bases, [])
    }
}
