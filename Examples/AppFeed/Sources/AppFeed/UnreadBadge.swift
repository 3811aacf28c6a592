#if canImport(Combine)
import Combine

/// The unread counter on the feed tab: follows a stream of counts for as long as it lives. Its
/// sink holds it weakly, so dropping the badge ends its subscription.
public final class UnreadBadge {
    public private(set) var count = 0
    private var counts: AnyCancellable?

    public init<Counts: Publisher>(counts source: Counts) where Counts.Output == Int, Counts.Failure == Never {
        counts = source.sink { [weak self] latest in
            self?.count = latest
        }
    }

    /// Shows a count pushed from elsewhere (a notification, another screen).
    public func display(_ value: Int) {
        count = value
    }
}
#endif
