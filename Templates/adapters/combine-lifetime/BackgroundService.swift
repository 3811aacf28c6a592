#if canImport(Combine)
import Combine

/// K6 (second half): long-lived work that must continue after the view leaves. The service owns
/// the upstream subscription and its state; a view only observes progress and may stop observing.
final class BackgroundService {
    /// Latest progress; keeps updating while the work runs, whoever is watching.
    let progress = CurrentValueSubject<String, Never>("idle")
    private var work: AnyCancellable?

    init() {}

    func start<Source: Publisher>(_ source: Source) where Source.Output == String, Source.Failure == Never {
        work = source.sink { [weak self] value in
            self?.progress.send(value)
        }
    }

    /// A view's observation; cancelling it stops the view's callbacks, not the work.
    func observe(_ onProgress: @escaping (String) -> Void) -> AnyCancellable {
        progress.sink(receiveValue: onProgress)
    }
}
#endif
