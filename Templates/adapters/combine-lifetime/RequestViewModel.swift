#if canImport(Combine)
import Combine

/// K5/K6/K8/K11 (code under test): a screen model that starts requests with increasing ids.
/// Id changes and state writes happen on the caller's thread (one serial context); only the
/// latest request writes the visible state, and only while the view is shown. Cancel stops
/// delivery but never undoes what was already written (K11). Events go to `probe` (K10).
final class RequestViewModel {
    /// The visible state: the latest request's result.
    private(set) var state = "idle"
    /// The id of the latest request; 0 before the first.
    private(set) var latestRequestID = 0
    private(set) var isVisible = true
    let probe: LifetimeProbe
    private var requests: [Int: RequestSubscriber<String, RequestFailure>] = [:]

    init(probe: LifetimeProbe = LifetimeProbe()) {
        self.probe = probe
    }

    deinit {
        for subscriber in requests.values { subscriber.cancel() }
    }

    /// Requests started and neither completed nor cancelled.
    var inFlightCount: Int { requests.count }

    /// Starts a request without cancelling earlier ones (they may still answer; the id check drops them).
    @discardableResult
    func start<Source: Publisher>(_ source: Source) -> Int where Source.Output == String, Source.Failure == RequestFailure {
        latestRequestID += 1
        let id = latestRequestID
        probe.started(id)
        let subscriber = RequestSubscriber<String, RequestFailure>(
            onValue: { [weak self] value in self?.receive(value, for: id) },
            onCompletion: { [weak self] completion in self?.complete(id, completion) }
        )
        requests[id] = subscriber
        source.subscribe(subscriber)
        return id
    }

    /// Cancels every request in flight, then starts a new one (fast resubscribe, K8).
    @discardableResult
    func restart<Source: Publisher>(_ source: Source) -> Int where Source.Output == String, Source.Failure == RequestFailure {
        cancelAll()
        return start(source)
    }

    /// The write-back path, also used by work that was already queued when a cancel happened.
    func receive(_ value: String, for id: Int) {
        probe.delivered(id)
        guard isVisible, id == latestRequestID else {
            probe.dropped(id)
            return
        }
        state = value
        probe.wrote(id)
    }

    /// Cancels one request; written state stays (K11).
    func cancel(_ id: Int) {
        guard let subscriber = requests.removeValue(forKey: id) else { return }
        subscriber.cancel()
        probe.cancelled(id)
    }

    func cancelAll() {
        for id in requests.keys.sorted() { cancel(id) }
    }

    /// Leaving the view: stop callbacks; later responses leave the visible state unchanged (K6).
    func leave() {
        isVisible = false
        probe.note("leave")
        cancelAll()
    }

    private func complete(_ id: Int, _ completion: Subscribers.Completion<RequestFailure>) {
        requests[id] = nil
        switch completion {
        case .finished:
            probe.completed(id, failed: false)
        case .failure:
            probe.completed(id, failed: true)
        }
    }
}
#endif
