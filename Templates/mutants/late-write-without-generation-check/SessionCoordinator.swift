// MUTANT late-write-without-generation-check (C7): late write without the generation check. Deliberately broken; the cache contract suite must fail against it.
import Foundation

/// C7: load coordination across logout — stop the old account's requests, advance the
/// session generation, then clear; a late request whose captured generation differs drops its write.
///
/// Also answers C13's "is the key's account taken from a trusted session?": keys are built
/// here from the signed-in account only.
@MainActor
public final class SessionCoordinator {
    /// What a request captured when it started.
    public struct Ticket: Hashable, Sendable {
        /// Increasing per coordinator.
        public let id: UInt64
        /// The session generation current when the request started.
        public let generation: UInt64
    }

    /// Advances on every logout; never goes back.
    public private(set) var generation: UInt64 = 0
    /// The signed-in account, `nil` after logout.
    public private(set) var account: String?

    private let cache: any CacheStoring
    private var nextTicketID: UInt64 = 0
    private var stopHandlers: [Ticket: @MainActor () -> Void] = [:]

    public init(account: String?, cache: any CacheStoring) {
        self.account = account
        self.cache = cache
    }

    /// Requests started and neither completed nor stopped.
    public var inFlightCount: Int { stopHandlers.count }

    /// A key for the signed-in account; `nil` when nobody is signed in.
    public func key(resource: String, revision: String) -> MemoryKey? {
        guard let account else { return nil }
        return MemoryKey(account, resource, revision)
    }

    /// Starts a request under the current generation. `onStop` runs (once) if logout stops it.
    public func begin(onStop: @escaping @MainActor () -> Void = {}) -> Ticket {
        nextTicketID &+= 1
        let ticket = Ticket(id: nextTicketID, generation: generation)
        stopHandlers[ticket] = onStop
        return ticket
    }

    /// Whether a request started with `ticket` may still write.
    public func isCurrent(_ ticket: Ticket) -> Bool {
        ticket.generation == generation
    }

    /// Ends a request with a value: writes it to the cache only when the ticket's generation
    /// is still current. Returns whether the write happened.
    @discardableResult
    public func complete(_ ticket: Ticket, storing data: Data, for key: MemoryKey) -> Bool {
        stopHandlers[ticket] = nil
        cache.store(data, for: key)
        return true
    }

    /// Ends a request without a value (failure or cancellation); nothing is written.
    public func abandon(_ ticket: Ticket) {
        stopHandlers[ticket] = nil
    }

    /// Logout, in this order: stop the old account's requests, advance the generation, clear the cache.
    public func logout() {
        let handlers = stopHandlers.sorted { $0.key.id < $1.key.id }.map(\.value)
        stopHandlers.removeAll()
        for stop in handlers { stop() }
        generation &+= 1
        account = nil
        cache.clear()
    }

    /// Signs in `account`; a previous session is logged out first.
    public func login(account newAccount: String) {
        if account != nil { logout() }
        account = newAccount
    }
}
