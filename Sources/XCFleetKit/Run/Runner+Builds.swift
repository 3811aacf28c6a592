import Foundation
import XCFleetModel

/// What the run knows of its jobs' builds: the scheduler's keys, and the hosts' real keys.
extension RunCoordinator {
    /// An attempt of a SwiftPM job starts on `host`: its real build key (the package and the
    /// toolchain identity the attempt itself will use) is one the host may build now
    /// (`FleetBuilds.expect`), named to the other attempts' build commands from this moment on.
    /// Xcode keys also hold the scheme and the chosen Xcode, which only the host tells: an Xcode
    /// attempt's key is named once it claims it.
    func expectBuild(_ job: PlannedJob, ref: AttemptRef, host: String) {
        guard job.source.driver == .swiftPM, let identity = toolchains.settled(host: host) else { return }
        fleetBuilds.expect(SwiftPMCachedBuild.key(of: job, driver: SwiftPMDriver(), toolchain: identity).hex, host: host, attempt: ref)
    }

    /// The scheduler's keys of the jobs whose build a host holds, from the keys of the finished builds
    /// admission found there (`<workRoot>/builds/*` with their markers): a SwiftPM job's real key
    /// is its package and the host's toolchain. Xcode keys also hold the scheme, which only the
    /// host's `xcodebuild -list` tells, so Xcode jobs get no such hint.
    func schedulerBuildKeys(cached: [String], toolchain: String?) -> [String] {
        guard let toolchain, !cached.isEmpty else { return [] }
        let held = Set(cached)
        var keys: Set<String> = []
        for job in jobs.values where job.source.driver == .swiftPM {
            guard let key = scheduler.build(ofJob: job.planned.jobID)?.key else { continue }
            let real = SwiftPMCachedBuild.key(of: job, driver: SwiftPMDriver(), toolchain: toolchain).hex
            if held.contains(real) { keys.insert(key) }
        }
        return keys.sorted()
    }

    /// The scheduler's build key of a job (nil: builds unknown to the scheduler).
    func scheduledBuildKey(_ jobID: String) -> String? { scheduler.build(ofJob: jobID)?.key }

    /// Tells the scheduler which builds `host` already holds (it prefers that host for those jobs).
    func noteCachedBuilds(on host: String, keys: [String]) {
        for key in keys { apply(scheduler.buildCached(host: host, key: key)) }
    }

    /// A job's build on `host` started or ended (the runner saw the build phase): other jobs of the
    /// key wait for it there rather than build it a second time, and go there once it is cached.
    func noteBuild(jobID: String, host: String, key: String, started: Bool, succeeded: Bool = true) {
        if started {
            apply(scheduler.buildStarted(host: host, key: key, jobID: jobID))
        } else {
            apply(scheduler.buildFinished(host: host, key: key, succeeded: succeeded))
        }
    }
}
