#if canImport(Combine)
import Combine

/// Background sync of the feed: keeps going after the feed screen closes. The sync owns the
/// upstream subscription; screens only watch its status and may stop watching.
public final class FeedSync {
    public let status = CurrentValueSubject<String, Never>("idle")
    private var job: AnyCancellable?

    public init() {}

    public func run<Steps: Publisher>(_ steps: Steps) where Steps.Output == String, Steps.Failure == Never {
        job = steps.sink { [weak self] step in
            self?.status.send(step)
        }
    }

    /// A screen's view of the status (the current one first); cancelling it stops only the screen's callbacks.
    public func watch(_ onStatus: @escaping (String) -> Void) -> AnyCancellable {
        status.sink(receiveValue: onStatus)
    }
}
#endif
