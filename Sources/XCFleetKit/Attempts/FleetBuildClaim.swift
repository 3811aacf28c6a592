import Foundation
import XCFleetModel
import XCFleetHostScripts

/// Build once per fleet for one attempt, for every driver (docs/builds.md): before compiling a key
/// this host holds no record of, the attempt asks the run's `FleetBuilds`; while another host of the
/// same class builds it, it waits for that build, then receives it (`BuildRelay`: a SwiftPM test
/// bundle, or an Xcode build's products folder with its `.xctestrun`) and its build step finds a
/// trusted cached build. A relay that fails is a note, and the host builds the key itself.
/// Used by its attempt's task only.
final class FleetBuildClaim: @unchecked Sendable {
    let executor: AttemptExecutor
    /// The build key this attempt claimed for the fleet (it builds it).
    private(set) var claimed: String?

    init(executor: AttemptExecutor) {
        self.executor = executor
    }

    private var hostName: String { executor.shell.host.name }

    /// Whether this host holds a record of `key` (its own build cache may then have it).
    private func trustedHere(_ key: String) -> Bool { executor.buildTrust.digests(host: hostName)[key] != nil }

    /// For a build in the push's round trip: true when this attempt may build now (it then holds the claim).
    func claimNow(key: String) async -> Bool {
        guard let fleet = executor.fleetBuilds else { return true }
        if trustedHere(key) { return true }
        guard await fleet.claimNow(key: key, host: hostName) else { return false }
        claimed = key
        return true
    }

    /// Before the build step's cache script: receive `key` from the host that builds or built it.
    /// Returns the product digest now recorded for this host when the build was received (the cache
    /// script must be told it), nil when this attempt builds the key itself.
    @discardableResult
    func receive(_ key: BuildKey, identity: String, productGlob: String, readOnly: Bool) async -> String? {
        guard let fleet = executor.fleetBuilds else { return nil }
        if trustedHere(key.hex) { return nil }
        let timeouts = executor.job.spec.timeouts
        switch await fleet.claim(key: key.hex, host: hostName, seconds: timeouts.build) {
        case .build:
            claimed = key.hex
            return nil
        case .relay(let from, let digest):
            let log = executor.log, ref = executor.ref
            guard let open = executor.openShell else { return nil }
            let started = Date()
            do {
                let source = try await open(from)
                defer { Task { await source.close() } }
                let relay = BuildRelay(key: key, digest: digest, toolchainDigest: BuildKey.toolchainDigest(identity),
                                       productGlob: productGlob, workspace: executor.job.workspace, readOnly: readOnly)
                let done = try await relay.run(from: source, to: executor.shell,
                                               deadlines: CommandDeadlines(total: timeouts.build, silence: timeouts.silence))
                executor.buildTrust.record(host: hostName, key: key.hex, product: digest)
                log.append(.note(String(format: "%@ attempt %d: received the build %@ from %@ (%d files, %d bytes, %.1f s): not compiled on %@",
                                        ref.jobID, ref.attempt, key.short, from, done.files, done.bytes, Date().timeIntervalSince(started), hostName)))
                return digest
            } catch {
                log.append(.note("\(ref.jobID) attempt \(ref.attempt): could not receive the build \(key.short) from \(from) (\(error)); building it on \(hostName)"))
                return nil
            }
        }
    }

    /// The build step ended: others may receive a successful build; a failed claim is released.
    func finished(key: String, product: String?) {
        guard let fleet = executor.fleetBuilds else { return }
        let host = hostName
        let mine = claimed == key
        if mine { claimed = nil }
        guard product != nil || mine else { return }
        Task { await fleet.finished(key: key, host: host, digest: product) }
    }

    /// The attempt ends holding a claim it did not finish (push failed, cancelled): others may build it.
    func release() async {
        guard let key = claimed, let fleet = executor.fleetBuilds else { return }
        claimed = nil
        await fleet.finished(key: key, host: hostName, digest: nil)
    }
}
