#if canImport(Combine)
import Combine

/// One feed request's subscriber: hands values and the end of the stream to closures, asks for
/// everything, and stops its upstream once however often `cancel()` is called. After a stop or
/// the end of the stream no closure runs.
public final class FeedSubscription<Value, Failure: Error>: Subscriber, Cancellable {
    private var upstream: (any Subscription)?
    private var deliver: ((Value) -> Void)?
    private var ended: ((Subscribers.Completion<Failure>) -> Void)?
    private var done = false

    public init(deliver: @escaping (Value) -> Void, ended: @escaping (Subscribers.Completion<Failure>) -> Void = { _ in }) {
        self.deliver = deliver
        self.ended = ended
    }

    public func receive(subscription: any Subscription) {
        if upstream != nil || done {
            subscription.cancel()
            return
        }
        upstream = subscription
        subscription.request(.unlimited)
    }

    public func receive(_ input: Value) -> Subscribers.Demand {
        deliver?(input)
        return .none
    }

    public func receive(completion: Subscribers.Completion<Failure>) {
        let callback = ended
        finish()
        upstream = nil
        callback?(completion)
    }

    public func cancel() {
        guard let current = upstream else { return }
        upstream = nil
        finish()
        current.cancel()
    }

    private func finish() {
        done = true
        deliver = nil
        ended = nil
    }
}
#endif
