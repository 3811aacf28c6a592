#if canImport(Combine)
import Combine

/// K4 (code under test): a model that owns its subscription. The sink captures the model
/// weakly, so releasing the model releases (and so cancels) its inner subscription.
final class ScreenModel {
    private(set) var value = 0
    private var token: AnyCancellable?

    init<Source: Publisher>(source: Source) where Source.Output == Int, Source.Failure == Never {
        token = source.sink { [weak self] value in
            self?.value = value
        }
    }

    /// Writes a value the way the outer subscription in a test does.
    func show(_ value: Int) {
        self.value = value
    }
}
#endif
