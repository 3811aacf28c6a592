import Foundation
import XCFleetModel
import XCFleetHostScripts

/// Build once per fleet for SwiftPM jobs (docs/builds.md): before compiling a key this host holds
/// no record of, the attempt asks the run's `FleetBuilds`; while another host of the same class
/// builds it, it waits for that build, then receives it (`BuildRelay`) and its build step finds a
/// trusted cached build. A relay that fails is a note, and the host builds the key itself.
extension SwiftPMSteps {
    private var hostName: String { executor.shell.host.name }

    /// Whether this host holds a record of `key` (its own build cache may then have it).
    private func trustedHere(_ key: String) -> Bool { executor.buildTrust.digests(host: hostName)[key] != nil }

    /// For a build in the push's round trip: true when this attempt may build now (it then holds the claim).
    func claimForChainedBuild(identity: String) async -> Bool {
        guard let fleet = executor.fleetBuilds else { return true }
        let key = cached.key(toolchain: identity).hex
        if trustedHere(key) { return true }
        guard await fleet.claimNow(key: key, host: hostName) else { return false }
        claimedBuild = key
        return true
    }

    /// Before the build step's cache script: receive the key from the host that builds or built it.
    func receiveFromFleet(identity: String) async {
        guard let fleet = executor.fleetBuilds else { return }
        let key = cached.key(toolchain: identity)
        if trustedHere(key.hex) { return }
        let timeouts = executor.job.spec.timeouts
        switch await fleet.claim(key: key.hex, host: hostName, seconds: timeouts.build) {
        case .build:
            claimedBuild = key.hex
        case .relay(let from, let digest):
            let log = executor.log, ref = executor.ref
            guard let open = executor.openShell else { return }
            let started = Date()
            do {
                let source = try await open(from)
                defer { Task { await source.close() } }
                let relay = BuildRelay(key: key, digest: digest, toolchainDigest: BuildKey.toolchainDigest(identity),
                                       productGlob: cached.productGlob, workspace: executor.job.workspace, readOnly: true)
                let done = try await relay.run(from: source, to: executor.shell,
                                               deadlines: CommandDeadlines(total: timeouts.build, silence: timeouts.silence))
                executor.buildTrust.record(host: hostName, key: key.hex, product: digest)
                log.append(.note(String(format: "%@ attempt %d: received the build %@ from %@ (%d files, %d bytes, %.1f s): not compiled on %@",
                                        ref.jobID, ref.attempt, key.short, from, done.files, done.bytes, Date().timeIntervalSince(started), hostName)))
            } catch {
                log.append(.note("\(ref.jobID) attempt \(ref.attempt): could not receive the build \(key.short) from \(from) (\(error)); building it on \(hostName)"))
            }
        }
    }

    /// The build step ended: others may receive a successful build; a failed claim is released.
    func buildFinished(key: String, product: String?) {
        guard let fleet = executor.fleetBuilds else { return }
        let host = hostName
        let claimed = claimedBuild == key
        if claimed { claimedBuild = nil }
        guard product != nil || claimed else { return }
        Task { await fleet.finished(key: key, host: host, digest: product) }
    }

    func releaseBuildClaim() async {
        guard let key = claimedBuild, let fleet = executor.fleetBuilds else { return }
        claimedBuild = nil
        await fleet.finished(key: key, host: hostName, digest: nil)
    }
}
