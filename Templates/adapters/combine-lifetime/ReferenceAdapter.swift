#if canImport(Combine)
import Combine

// xcfleet's own reference types (RequestSubscriber, ScreenModel, RequestViewModel,
// BackgroundService, beside this file) plugged into the Combine contract's surface, exactly as a
// team's adapter plugs in its code (docs/templates.md, "A contract against your implementation").
// Rendered into the test target of every combine-lifetime suite that names no subject. The types
// conform through extensions, so the tests hold the very objects (K4, K8 check their release).

enum ContractSubject: CombineContractSubject {
    static func subscribeRequest<Source: Publisher>(_ source: Source, onValue: @escaping (Source.Output) -> Void) -> (any Cancellable)?
        where Source.Failure == Never {
        let subscriber = RequestSubscriber<Source.Output, Never>(onValue: onValue)
        source.subscribe(subscriber)
        return subscriber
    }

    static func makeScreenModel<Source: Publisher>(source: Source) -> (any ContractScreenModel)?
        where Source.Output == Int, Source.Failure == Never {
        ScreenModel(source: source)
    }

    static func makeRequestModel(probe: LifetimeProbe) -> (any ContractRequestModel)? {
        RequestViewModel(probe: probe)
    }

    static func makeBackgroundService() -> (any ContractBackgroundService)? {
        BackgroundService()
    }
}

extension ScreenModel: ContractScreenModel {}

extension RequestViewModel: ContractRequestModel {}

extension BackgroundService: ContractBackgroundService {
    var latestProgress: String { progress.value }
}
#endif
