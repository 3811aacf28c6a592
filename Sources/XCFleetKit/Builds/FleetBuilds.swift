import Foundation
import XCFleetModel

/// Build once per fleet (docs/builds.md): which host of the run builds, or built, each build key.
/// A key names one toolchain identity (`BuildKey` covers it), so hosts that share a key are of one
/// class and can run each other's builds. The first attempt that needs a key builds it; another
/// host that needs it while that build runs waits for it (at most its build deadline) and then
/// receives the finished build (`BuildRelay`) instead of compiling it again.
actor FleetBuilds {
    /// What an attempt should do for a key its host holds no record of.
    enum Claim: Equatable, Sendable {
        /// Build it (the caller must report how it ended with `finished`).
        case build
        /// Receive it from `host`, whose finished build has this product digest.
        case relay(from: String, digest: String)
    }

    private enum State {
        case building(host: String)
        case built(host: String, digest: String)
    }

    private var states: [String: State] = [:] {
        didSet {
            var building: [String: Set<String>] = [:]
            for (key, state) in states { if case .building(let host) = state { building[host, default: []].insert(key) } }
            inFlight.setClaimed(building)
        }
    }
    /// The keys each host is building now or will build, readable without awaiting the actor (a
    /// build command is made synchronously): a build the host's cache script finds finished while it
    /// waited for the lock may be its base only when it is one of these (`BuildCacheScript.Input.pending`).
    private nonisolated let inFlight = InFlightKeys()

    /// Keys this run is building on `host` right now, or will build there: those claimed, and those
    /// of the attempts started there. Attempts started together make their commands in any order, and
    /// a job that waits at the host's build lock for a sibling that had not claimed yet would
    /// otherwise not build on the sibling's build (docs/builds.md, step 6).
    nonisolated func building(on host: String) -> Set<String> { inFlight.get(host) }

    /// An attempt that builds `key` (if its host has no build of it) started on `host`: called by the
    /// runner when it starts the attempt, before any attempt started with it makes its command.
    nonisolated func expect(_ key: String, host: String, attempt: AttemptRef) { inFlight.start(key, host: host, attempt: attempt) }

    /// The attempt ended (whether it built, found its build or failed).
    nonisolated func ended(_ attempt: AttemptRef) { inFlight.end(attempt) }
    private var waiters: [String: [UUID: CheckedContinuation<Void, Never>]] = [:]

    /// The claim for `key` on `host`: build it, or receive it from the host that built it; while
    /// another host builds it, waits up to `seconds` for that build (then builds after all).
    func claim(key: String, host: String, seconds: Double) async -> Claim {
        switch states[key] {
        case nil:
            states[key] = .building(host: host)
            return .build
        case .built(let other, let digest)?:
            if other == host { return .build } // its own build: the host cache has it (or rebuilds it)
            return .relay(from: other, digest: digest)
        case .building(let other)?:
            if other == host { return .build } // the host's build lock makes a second job wait for the first
            await wait(for: key, seconds: seconds)
            if case .built(let builder, let digest)? = states[key], builder != host { return .relay(from: builder, digest: digest) }
            if states[key] == nil { states[key] = .building(host: host) }
            return .build
        }
    }

    /// Another host builds `key` or built it (a chained build should not start on `host`).
    func elsewhere(key: String, host: String) -> Bool {
        switch states[key] {
        case .building(let other)?, .built(let other, _)?: return other != host
        case nil: return false
        }
    }

    /// Claims `key` for `host` when nobody has (for a build that starts at once, in the push's
    /// round trip); false when another host builds or built it.
    func claimNow(key: String, host: String) -> Bool {
        if elsewhere(key: key, host: host) { return false }
        if states[key] == nil { states[key] = .building(host: host) }
        return true
    }

    /// `host`'s build of `key` ended: `digest` of its product when it succeeded (others may then
    /// receive it), nil when it did not (the next claim builds).
    func finished(key: String, host: String, digest: String?) {
        if let digest {
            states[key] = .built(host: host, digest: digest)
        } else if case .building(let h)? = states[key], h == host {
            states[key] = nil
        }
        for (_, c) in waiters.removeValue(forKey: key) ?? [:] { c.resume() }
    }

    /// A host that left the run: its builds can no longer be received.
    func hostGone(_ host: String) {
        for (key, state) in states {
            switch state {
            case .building(let h), .built(let h, _):
                guard h == host else { continue }
                states[key] = nil
                for (_, c) in waiters.removeValue(forKey: key) ?? [:] { c.resume() }
            }
        }
    }

    private func wait(for key: String, seconds: Double) async {
        let id = UUID()
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            waiters[key, default: [:]][id] = c
            Task { [weak self] in
                try? await Task.sleep(nanoseconds: UInt64(max(0, seconds) * 1e9))
                await self?.timeOut(key, id)
            }
        }
    }

    private func timeOut(_ key: String, _ id: UUID) {
        waiters[key]?.removeValue(forKey: id)?.resume()
    }
}

/// A lock-protected copy of `FleetBuilds`' keys in flight per host: those claimed, and those of
/// the attempts started there (from their start to their end).
private final class InFlightKeys: @unchecked Sendable {
    private let lock = NSLock()
    private var claimed: [String: Set<String>] = [:]
    private var started: [AttemptRef: (host: String, key: String)] = [:]
    func setClaimed(_ value: [String: Set<String>]) { lock.lock(); claimed = value; lock.unlock() }
    func start(_ key: String, host: String, attempt: AttemptRef) { lock.lock(); started[attempt] = (host, key); lock.unlock() }
    func end(_ attempt: AttemptRef) { lock.lock(); started[attempt] = nil; lock.unlock() }
    func get(_ host: String) -> Set<String> {
        lock.lock(); defer { lock.unlock() }
        return (claimed[host] ?? []).union(started.values.lazy.filter { $0.host == host }.map(\.key))
    }
}
