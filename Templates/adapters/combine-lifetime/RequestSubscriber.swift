#if canImport(Combine)
import Combine

/// K2 (code under test): the app's own subscriber for one request. Forwards values and the
/// completion to closures and cancels its upstream subscription exactly once, however often
/// `cancel()` is called; after cancel or completion no callback runs.
final class RequestSubscriber<Input, Failure: Error>: Subscriber, Cancellable {
    private var subscription: (any Subscription)?
    private var onValue: ((Input) -> Void)?
    private var onCompletion: ((Subscribers.Completion<Failure>) -> Void)?
    private var ended = false

    init(onValue: @escaping (Input) -> Void, onCompletion: @escaping (Subscribers.Completion<Failure>) -> Void = { _ in }) {
        self.onValue = onValue
        self.onCompletion = onCompletion
    }

    func receive(subscription: any Subscription) {
        guard self.subscription == nil, !ended else {
            subscription.cancel()
            return
        }
        self.subscription = subscription
        subscription.request(.unlimited)
    }

    func receive(_ input: Input) -> Subscribers.Demand {
        onValue?(input)
        return .none
    }

    func receive(completion: Subscribers.Completion<Failure>) {
        let callback = onCompletion
        end()
        subscription = nil
        callback?(completion)
    }

    func cancel() {
        guard let upstream = subscription else { return }
        subscription = nil
        end()
        upstream.cancel()
    }

    private func end() {
        ended = true
        onValue = nil
        onCompletion = nil
    }
}
#endif
