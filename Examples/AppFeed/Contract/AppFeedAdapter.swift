#if canImport(Combine)
import AppFeed
import Combine

// AppFeed's own types plugged into xcfleet's Combine lifetime contract (K1–K11). The harness
// compiles this file beside the contract tests (Tests/CombineLifetimeTests). Each type conforms
// through an extension, so the tests hold AppFeed's very objects when they check a release (K4, K8).

enum ContractSubject: CombineContractSubject {
    static func subscribeRequest<Source: Publisher>(_ source: Source, onValue: @escaping (Source.Output) -> Void) -> (any Cancellable)?
        where Source.Failure == Never {
        let subscription = FeedSubscription<Source.Output, Never>(deliver: onValue)
        source.subscribe(subscription)
        return subscription
    }

    static func makeScreenModel<Source: Publisher>(source: Source) -> (any ContractScreenModel)?
        where Source.Output == Int, Source.Failure == Never {
        UnreadBadge(counts: source)
    }

    /// AppFeed's diagnostics events, told to the contract's probe (K10: ids, order, cancels, final state).
    static func makeRequestModel(probe: LifetimeProbe) -> (any ContractRequestModel)? {
        let model = FeedViewModel()
        model.onEvent = { event in
            switch event {
            case .began(let n): probe.started(n)
            case .arrived(let n): probe.delivered(n)
            case .ignored(let n): probe.dropped(n)
            case .applied(let n): probe.wrote(n)
            case .ended(let n, let failed): probe.completed(n, failed: failed)
            case .stopped(let n): probe.cancelled(n)
            case .disappeared: probe.note("leave")
            }
        }
        return model
    }

    static func makeBackgroundService() -> (any ContractBackgroundService)? {
        FeedSync()
    }
}

extension UnreadBadge: ContractScreenModel {
    var value: Int { count }
    func show(_ value: Int) { display(value) }
}

extension FeedViewModel: ContractRequestModel {
    var state: String { headline }
    var inFlightCount: Int { pendingCount }

    func start<Source: Publisher>(_ source: Source) -> Int where Source.Output == String, Source.Failure == RequestFailure {
        load(source)
    }

    func restart<Source: Publisher>(_ source: Source) -> Int where Source.Output == String, Source.Failure == RequestFailure {
        refresh(source)
    }

    func receive(_ value: String, for id: Int) { apply(value, from: id) }
    func cancel(_ id: Int) { stop(id) }
    func leave() { disappear() }
}

extension FeedSync: ContractBackgroundService {
    func start<Source: Publisher>(_ source: Source) where Source.Output == String, Source.Failure == Never { run(source) }
    func observe(_ onProgress: @escaping (String) -> Void) -> AnyCancellable { watch(onProgress) }
    var latestProgress: String { status.value }
}
#endif
