#if canImport(Combine)
import Combine

/// Stand-in for the network: a `PassthroughSubject` behind a counting link, so a test decides
/// when values and completions arrive and sees what reaches upstream. Counts subscriptions,
/// demand requests and EVERY cancel call that reaches it (not deduplicated: a double cancel
/// that gets through shows as 2). Not thread-safe: use it from the test's thread.
final class ControllableSubject<Output, Failure: Error>: Publisher {
    private let subject = PassthroughSubject<Output, Failure>()
    /// Subscriptions made to this source.
    private(set) var subscriptionCount = 0
    /// Demand requests that reached this source.
    private(set) var requestCount = 0
    /// Cancel calls that reached this source.
    private(set) var cancelCount = 0
    /// Subscriptions neither cancelled nor completed.
    private(set) var liveCount = 0
    /// Upstream events in order, without payloads: subscribe, request, value, finished, failure, cancel.
    private(set) var events: [String] = []

    init() {}

    func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        subscriptionCount += 1
        liveCount += 1
        events.append("subscribe")
        subject.subscribe(SubjectLink(owner: self, downstream: subscriber))
    }

    /// Delivers a value to every live subscription, synchronously.
    func send(_ value: Output) {
        events.append("value")
        subject.send(value)
    }

    /// Completes normally.
    func finish() {
        events.append("finished")
        subject.send(completion: .finished)
    }

    /// Completes with an error.
    func fail(_ error: Failure) {
        events.append("failure")
        subject.send(completion: .failure(error))
    }

    fileprivate func noteRequest() {
        requestCount += 1
        events.append("request")
    }

    fileprivate func noteCancel(wasLive: Bool) {
        cancelCount += 1
        if wasLive { liveCount -= 1 }
        events.append("cancel")
    }

    fileprivate func noteCompletion() {
        liveCount -= 1
    }
}

/// Sits between the subject and one downstream subscriber; counts what passes upstream.
private final class SubjectLink<Input, Failure: Error, Downstream: Subscriber>: Subscriber, Subscription
where Downstream.Input == Input, Downstream.Failure == Failure {
    private weak var owner: ControllableSubject<Input, Failure>?
    private var downstream: Downstream?
    private var upstream: (any Subscription)?
    private var live = true

    init(owner: ControllableSubject<Input, Failure>, downstream: Downstream) {
        self.owner = owner
        self.downstream = downstream
    }

    func receive(subscription: any Subscription) {
        upstream = subscription
        downstream?.receive(subscription: self)
    }

    func receive(_ input: Input) -> Subscribers.Demand {
        guard let downstream else { return .none }
        return downstream.receive(input)
    }

    func receive(completion: Subscribers.Completion<Failure>) {
        if live {
            live = false
            owner?.noteCompletion()
        }
        let target = downstream
        downstream = nil
        upstream = nil
        target?.receive(completion: completion)
    }

    func request(_ demand: Subscribers.Demand) {
        owner?.noteRequest()
        upstream?.request(demand)
    }

    /// Counted on every call, on purpose: deduplicating cancels is the subscriber's job (K2).
    func cancel() {
        owner?.noteCancel(wasLive: live)
        live = false
        let target = upstream
        upstream = nil
        downstream = nil
        target?.cancel()
    }
}
#endif
