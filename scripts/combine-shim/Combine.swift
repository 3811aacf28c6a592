// A small, self-written stand-in for Apple's Combine, used ONLY on Linux by
// scripts/check-combine-linux.sh to type-check and exercise Templates/combine-lifetime and its
// mutants. It follows Combine's documented behaviour for the parts the template uses
// (sink, handleEvents, map, receive(on:), PassthroughSubject, CurrentValueSubject,
// AnyCancellable); it is not Combine, and macOS hosts remain the authority for K1–K11.
// Single-threaded except for receive(on:) deliveries; never shipped to hosts.
import Dispatch

public protocol Cancellable {
    func cancel()
}

public struct CombineIdentifier: Hashable, CustomStringConvertible {
    private let value: ObjectIdentifier
    public init(_ object: AnyObject) { value = ObjectIdentifier(object) }
    public var description: String { "\(value)" }
}

public protocol CustomCombineIdentifierConvertible {
    var combineIdentifier: CombineIdentifier { get }
}

extension CustomCombineIdentifierConvertible where Self: AnyObject {
    public var combineIdentifier: CombineIdentifier { CombineIdentifier(self) }
}

public protocol Subscription: Cancellable, CustomCombineIdentifierConvertible {
    func request(_ demand: Subscribers.Demand)
}

public protocol Subscriber<Input, Failure>: CustomCombineIdentifierConvertible {
    associatedtype Input
    associatedtype Failure: Error
    func receive(subscription: any Subscription)
    func receive(_ input: Input) -> Subscribers.Demand
    func receive(completion: Subscribers.Completion<Failure>)
}

public protocol Publisher<Output, Failure> {
    associatedtype Output
    associatedtype Failure: Error
    func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure
}

public enum Subscribers {
    public struct Demand: Equatable, Hashable {
        let max: Int?
        public static let unlimited = Demand(max: nil)
        public static let none = Demand(max: 0)
        public static func max(_ value: Int) -> Demand { Demand(max: Swift.max(0, value)) }
        public static func + (lhs: Demand, rhs: Demand) -> Demand {
            guard let l = lhs.max, let r = rhs.max else { return .unlimited }
            return Demand(max: l + r)
        }
        var isPositive: Bool { max.map { $0 > 0 } ?? true }
        func decremented() -> Demand { max.map { Demand(max: $0 - 1) } ?? .unlimited }
    }

    public enum Completion<Failure: Error> {
        case finished
        case failure(Failure)
    }

    public final class Sink<Input, Failure: Error>: Subscriber, Cancellable {
        private var subscription: (any Subscription)?
        private var receiveValue: ((Input) -> Void)?
        private var receiveCompletion: ((Completion<Failure>) -> Void)?

        public init(receiveCompletion: @escaping (Completion<Failure>) -> Void, receiveValue: @escaping (Input) -> Void) {
            self.receiveCompletion = receiveCompletion
            self.receiveValue = receiveValue
        }

        public func receive(subscription: any Subscription) {
            guard self.subscription == nil, receiveValue != nil else { subscription.cancel(); return }
            self.subscription = subscription
            subscription.request(.unlimited)
        }

        public func receive(_ input: Input) -> Demand {
            receiveValue?(input)
            return .none
        }

        public func receive(completion: Completion<Failure>) {
            let callback = receiveCompletion
            subscription = nil
            receiveValue = nil
            receiveCompletion = nil
            callback?(completion)
        }

        public func cancel() {
            guard let upstream = subscription else { return }
            subscription = nil
            receiveValue = nil
            receiveCompletion = nil
            upstream.cancel()
        }
    }
}

public final class AnyCancellable: Cancellable, Hashable {
    private var action: (() -> Void)?

    public init(_ cancel: @escaping () -> Void) { action = cancel }
    public init<C: Cancellable>(_ canceller: C) { action = { canceller.cancel() } }
    deinit { action?() }

    public func cancel() {
        let run = action
        action = nil
        run?()
    }

    public static func == (lhs: AnyCancellable, rhs: AnyCancellable) -> Bool { lhs === rhs }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}

public struct AnyPublisher<Output, Failure: Error>: Publisher {
    private let subscribeBody: (AnySubscriber<Output, Failure>) -> Void
    public init<P: Publisher>(_ publisher: P) where P.Output == Output, P.Failure == Failure {
        subscribeBody = { publisher.receive(subscriber: $0) }
    }
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        subscribeBody(AnySubscriber(subscriber))
    }
}

public struct AnySubscriber<Input, Failure: Error>: Subscriber {
    public let combineIdentifier: CombineIdentifier
    private let onSubscription: (any Subscription) -> Void
    private let onInput: (Input) -> Subscribers.Demand
    private let onCompletion: (Subscribers.Completion<Failure>) -> Void

    public init<S: Subscriber>(_ subscriber: S) where S.Input == Input, S.Failure == Failure {
        combineIdentifier = subscriber.combineIdentifier
        onSubscription = subscriber.receive(subscription:)
        onInput = subscriber.receive(_:)
        onCompletion = subscriber.receive(completion:)
    }
    public func receive(subscription: any Subscription) { onSubscription(subscription) }
    public func receive(_ input: Input) -> Subscribers.Demand { onInput(input) }
    public func receive(completion: Subscribers.Completion<Failure>) { onCompletion(completion) }
}

/// A forwarding subscription used by the operators below.
private final class Relay<Upstream: Publisher, Output, Downstream: Subscriber>: Subscriber, Subscription
where Downstream.Input == Output, Downstream.Failure == Upstream.Failure {
    typealias Input = Upstream.Output
    typealias Failure = Upstream.Failure
    var downstream: Downstream?
    var upstream: (any Subscription)?
    let transform: (Upstream.Output) -> Output
    var onCancel: (() -> Void)?
    var onRequest: ((Subscribers.Demand) -> Void)?
    var onOutput: ((Upstream.Output) -> Void)?
    var onCompletion: ((Subscribers.Completion<Upstream.Failure>) -> Void)?
    var deliver: (@escaping () -> Void) -> Void = { $0() }
    var cancelled = false

    init(downstream: Downstream, transform: @escaping (Upstream.Output) -> Output) {
        self.downstream = downstream
        self.transform = transform
    }

    func receive(subscription: any Subscription) {
        upstream = subscription
        downstream?.receive(subscription: self)
    }

    func receive(_ input: Upstream.Output) -> Subscribers.Demand {
        onOutput?(input)
        let value = transform(input)
        var demand = Subscribers.Demand.none
        deliver { [self] in
            guard !cancelled, let downstream else { return }
            demand = downstream.receive(value)
        }
        return demand
    }

    func receive(completion: Subscribers.Completion<Upstream.Failure>) {
        onCompletion?(completion)
        upstream = nil
        deliver { [self] in
            guard !cancelled, let target = downstream else { return }
            downstream = nil
            target.receive(completion: completion)
        }
    }

    func request(_ demand: Subscribers.Demand) {
        onRequest?(demand)
        upstream?.request(demand)
    }

    func cancel() {
        guard !cancelled else { return }
        cancelled = true
        onCancel?()
        let target = upstream
        upstream = nil
        downstream = nil
        target?.cancel()
    }
}

public struct OperatorPublisher<Upstream: Publisher, Output>: Publisher {
    public typealias Failure = Upstream.Failure
    let upstream: Upstream
    let transform: (Upstream.Output) -> Output
    let configure: (_ hooks: OperatorHooks<Upstream.Output, Upstream.Failure>) -> Void
    let queue: DispatchQueue?

    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        let relay = Relay<Upstream, Output, S>(downstream: subscriber, transform: transform)
        let hooks = OperatorHooks<Upstream.Output, Upstream.Failure>()
        configure(hooks)
        relay.onCancel = hooks.cancel
        relay.onRequest = hooks.request
        relay.onOutput = hooks.output
        relay.onCompletion = hooks.completion
        if let queue { relay.deliver = { work in queue.async(execute: work) } }
        hooks.subscription?()
        upstream.receive(subscriber: relay)
    }
}

public final class OperatorHooks<Input, Failure: Error> {
    var subscription: (() -> Void)?
    var output: ((Input) -> Void)?
    var completion: ((Subscribers.Completion<Failure>) -> Void)?
    var cancel: (() -> Void)?
    var request: ((Subscribers.Demand) -> Void)?
}

extension Publisher {
    public func subscribe<S: Subscriber>(_ subscriber: S) where S.Input == Output, S.Failure == Failure {
        receive(subscriber: subscriber)
    }

    public func sink(receiveCompletion: @escaping (Subscribers.Completion<Failure>) -> Void,
                     receiveValue: @escaping (Output) -> Void) -> AnyCancellable {
        let sink = Subscribers.Sink<Output, Failure>(receiveCompletion: receiveCompletion, receiveValue: receiveValue)
        subscribe(sink)
        return AnyCancellable(sink)
    }

    public func map<T>(_ transform: @escaping (Output) -> T) -> OperatorPublisher<Self, T> {
        OperatorPublisher(upstream: self, transform: transform, configure: { _ in }, queue: nil)
    }

    public func handleEvents(receiveSubscription: ((any Subscription) -> Void)? = nil,
                             receiveOutput: ((Output) -> Void)? = nil,
                             receiveCompletion: ((Subscribers.Completion<Failure>) -> Void)? = nil,
                             receiveCancel: (() -> Void)? = nil,
                             receiveRequest: ((Subscribers.Demand) -> Void)? = nil) -> OperatorPublisher<Self, Output> {
        OperatorPublisher(upstream: self, transform: { $0 }, configure: { hooks in
            hooks.output = receiveOutput
            hooks.completion = receiveCompletion
            hooks.cancel = receiveCancel
            hooks.request = receiveRequest
        }, queue: nil)
    }

    public func receive(on queue: DispatchQueue) -> OperatorPublisher<Self, Output> {
        OperatorPublisher(upstream: self, transform: { $0 }, configure: { _ in }, queue: queue)
    }

    public func eraseToAnyPublisher() -> AnyPublisher<Output, Failure> { AnyPublisher(self) }
}

extension Publisher where Failure == Never {
    public func sink(receiveValue: @escaping (Output) -> Void) -> AnyCancellable {
        sink(receiveCompletion: { _ in }, receiveValue: receiveValue)
    }
}

/// Shared machinery of the two subjects: one conduit per subscriber, demand-aware.
public class SubjectBase<Output, Failure: Error> {
    final class Conduit: Subscription {
        weak var owner: SubjectBase<Output, Failure>?
        var downstream: AnySubscriber<Output, Failure>?
        var demand = Subscribers.Demand.none
        init(owner: SubjectBase<Output, Failure>, downstream: AnySubscriber<Output, Failure>) {
            self.owner = owner
            self.downstream = downstream
        }
        func request(_ more: Subscribers.Demand) {
            demand = demand + more
            owner?.demandArrived(self)
        }
        func cancel() {
            downstream = nil
            owner?.remove(self)
        }
        func offer(_ value: Output) {
            guard demand.isPositive, let downstream else { return }
            demand = demand.decremented()
            demand = demand + downstream.receive(value)
        }
    }

    var conduits: [Conduit] = []
    var completion: Subscribers.Completion<Failure>?

    init() {}

    func demandArrived(_ conduit: Conduit) {}

    func remove(_ conduit: Conduit) { conduits.removeAll { $0 === conduit } }

    func attach<S: Subscriber>(_ subscriber: S) where S.Input == Output, S.Failure == Failure {
        let conduit = Conduit(owner: self, downstream: AnySubscriber(subscriber))
        if let completion {
            subscriber.receive(subscription: conduit)
            subscriber.receive(completion: completion)
            return
        }
        conduits.append(conduit)
        subscriber.receive(subscription: conduit)
    }

    func broadcast(_ value: Output) {
        for conduit in conduits { conduit.offer(value) }
    }

    public func send(completion: Subscribers.Completion<Failure>) {
        guard self.completion == nil else { return }
        self.completion = completion
        let current = conduits
        conduits = []
        for conduit in current {
            let target = conduit.downstream
            conduit.downstream = nil
            target?.receive(completion: completion)
        }
    }
}

public final class PassthroughSubject<Output, Failure: Error>: SubjectBase<Output, Failure>, Publisher {
    public override init() {}
    public func send(_ value: Output) { guard completion == nil else { return }; broadcast(value) }
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure { attach(subscriber) }
}

public final class CurrentValueSubject<Output, Failure: Error>: SubjectBase<Output, Failure>, Publisher {
    public private(set) var value: Output
    private var primed: Set<ObjectIdentifier> = []

    public init(_ value: Output) { self.value = value }

    public func send(_ value: Output) {
        guard completion == nil else { return }
        self.value = value
        broadcast(value)
    }

    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure { attach(subscriber) }

    override func demandArrived(_ conduit: Conduit) {
        guard !primed.contains(ObjectIdentifier(conduit)) else { return }
        primed.insert(ObjectIdentifier(conduit))
        conduit.offer(value)
    }
}
