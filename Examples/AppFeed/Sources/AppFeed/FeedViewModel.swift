#if canImport(Combine)
import Combine

/// The feed screen: each load gets the next generation number; only the newest generation sets
/// the headline, and only while the screen is on display. Stopping a load never clears what it
/// already set. Everything runs on the caller's thread (the main thread in the app).
public final class FeedViewModel {
    /// What happened, for the app's diagnostics (generation numbers and kinds only, never content).
    public enum Event: Equatable, Sendable {
        case began(Int), arrived(Int), ignored(Int), applied(Int), ended(Int, failed: Bool), stopped(Int), disappeared
    }

    public private(set) var headline = "idle"
    public private(set) var generation = 0
    public private(set) var onScreen = true
    /// Called for every event, in order.
    public var onEvent: ((Event) -> Void)?
    private var loads: [Int: any Cancellable] = [:]

    public init() {}

    deinit {
        for load in loads.values { load.cancel() }
    }

    /// Loads still running.
    public var pendingCount: Int { loads.count }

    /// Starts a load; older loads keep running, the generation check ignores their answers.
    @discardableResult
    public func load<Feed: Publisher>(_ feed: Feed) -> Int where Feed.Output == String {
        generation += 1
        let number = generation
        onEvent?(.began(number))
        let subscription = FeedSubscription<String, Feed.Failure>(
            deliver: { [weak self] text in self?.apply(text, from: number) },
            ended: { [weak self] completion in self?.ended(number, completion) }
        )
        loads[number] = subscription
        feed.subscribe(subscription)
        return number
    }

    /// Pull to refresh: stops every running load, then starts one.
    @discardableResult
    public func refresh<Feed: Publisher>(_ feed: Feed) -> Int where Feed.Output == String {
        stopAll()
        return load(feed)
    }

    /// Sets the headline if `number` is the newest generation and the screen is on display.
    public func apply(_ text: String, from number: Int) {
        onEvent?(.arrived(number))
        guard onScreen, number == generation else {
            onEvent?(.ignored(number))
            return
        }
        headline = text
        onEvent?(.applied(number))
    }

    /// Stops one load; the headline it set stays.
    public func stop(_ number: Int) {
        guard let load = loads.removeValue(forKey: number) else { return }
        load.cancel()
        onEvent?(.stopped(number))
    }

    public func stopAll() {
        for number in loads.keys.sorted() { stop(number) }
    }

    /// The screen went away: late answers no longer change the headline.
    public func disappear() {
        onScreen = false
        onEvent?(.disappeared)
        stopAll()
    }

    private func ended<Failure: Error>(_ number: Int, _ completion: Subscribers.Completion<Failure>) {
        loads[number] = nil
        if case .failure = completion { onEvent?(.ended(number, failed: true)) } else { onEvent?(.ended(number, failed: false)) }
    }
}
#endif
