#if canImport(Combine)
import Combine
import XCTest

// The surface the Combine lifetime tests (K1–K11) call: a few protocols and one factory. The
// tests never name an implementation's types; an implementation plugs in through ONE adapter file
// that declares `enum ContractSubject: CombineContractSubject`. xcfleet's own reference types are
// plugged in the same way (`Templates/adapters/combine-lifetime/ReferenceAdapter.swift`).
// K1, K3, K7 and K9 (and half of K2) test Combine's own operators and need no part of a subject.
//
// The lifetime tests hold the returned objects through weak references (K4, K8): return the
// subject's OWN object, made to conform with an extension in the adapter, never a wrapper around
// it (a wrapper's release proves nothing about the object inside). docs/templates.md shows an adapter.

/// K4: a model that owns a subscription to `source` and shows its latest value.
protocol ContractScreenModel: AnyObject {
    /// The value the model shows (0 before the first).
    var value: Int { get }
    /// Writes a value the way an outer subscription held by the test does.
    func show(_ value: Int)
}

/// K5, K6, K8, K10, K11: a view model that starts requests with increasing ids (from 1) on the
/// caller's thread. Only the latest request writes `state`, only while the view is shown; cancel
/// stops delivery and never undoes a write. It reports its events to the `LifetimeProbe` the
/// factory was given (K10): started, delivered, dropped, wrote, completed, cancelled, note("leave").
protocol ContractRequestModel: AnyObject {
    /// The visible state ("idle" before the first write).
    var state: String { get }
    /// Requests started and neither completed nor cancelled.
    var inFlightCount: Int { get }
    /// Starts a request without cancelling earlier ones; returns its id.
    @discardableResult
    func start<Source: Publisher>(_ source: Source) -> Int where Source.Output == String, Source.Failure == RequestFailure
    /// Cancels every request in flight, then starts one (fast resubscribe, K8).
    @discardableResult
    func restart<Source: Publisher>(_ source: Source) -> Int where Source.Output == String, Source.Failure == RequestFailure
    /// The write-back path, as work already queued when a cancel happened calls it.
    func receive(_ value: String, for id: Int)
    /// Cancels one request; written state stays (K11).
    func cancel(_ id: Int)
    /// Leaving the view: callbacks stop, later responses leave the visible state unchanged (K6).
    func leave()
}

/// K6 (second half): long-lived work that continues after the view leaves.
protocol ContractBackgroundService: AnyObject {
    /// Starts the work; the service owns the subscription to `source`.
    func start<Source: Publisher>(_ source: Source) where Source.Output == String, Source.Failure == Never
    /// A view's observation (the current progress first); cancelling it stops the view's callbacks only.
    func observe(_ onProgress: @escaping (String) -> Void) -> AnyCancellable
    /// The latest progress, whoever is watching ("idle" before the first).
    var latestProgress: String { get }
}

/// The failure a request publisher may end with in these tests.
struct RequestFailure: Error, Equatable {
    let code: Int
}

/// The factory the tests call. Parts an implementation does not have return nil (the default);
/// their contract ids must then be left out of the suite's `claims`, and their tests skip.
protocol CombineContractSubject {
    /// K2: the subject's own subscriber for one request, subscribed to `source`; cancelling it
    /// twice must reach upstream once, and no value arrives after cancel.
    static func subscribeRequest<Source: Publisher>(_ source: Source, onValue: @escaping (Source.Output) -> Void) -> (any Cancellable)?
        where Source.Failure == Never
    /// K4: a fresh screen model subscribed to `source`.
    static func makeScreenModel<Source: Publisher>(source: Source) -> (any ContractScreenModel)?
        where Source.Output == Int, Source.Failure == Never
    /// K5, K6, K8, K10, K11: a fresh request view model reporting to `probe`.
    static func makeRequestModel(probe: LifetimeProbe) -> (any ContractRequestModel)?
    /// K6: a fresh background service.
    static func makeBackgroundService() -> (any ContractBackgroundService)?
}

extension CombineContractSubject {
    static func subscribeRequest<Source: Publisher>(_ source: Source, onValue: @escaping (Source.Output) -> Void) -> (any Cancellable)?
        where Source.Failure == Never { nil }
    static func makeScreenModel<Source: Publisher>(source: Source) -> (any ContractScreenModel)?
        where Source.Output == Int, Source.Failure == Never { nil }
    static func makeRequestModel(probe: LifetimeProbe) -> (any ContractRequestModel)? { nil }
    static func makeBackgroundService() -> (any ContractBackgroundService)? { nil }
}

/// The subject's request view model, or a failure naming the missing part.
func requestModel(_ probe: LifetimeProbe) throws -> any ContractRequestModel {
    try provided(ContractSubject.makeRequestModel(probe: probe), "request view model (makeRequestModel)")
}
#endif
