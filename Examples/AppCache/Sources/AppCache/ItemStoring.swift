import Foundation

/// What the repository needs from a store of item bytes.
@MainActor
public protocol ItemStoring: AnyObject {
    func put(_ value: Data, at key: ItemKey)
    func value(at key: ItemKey) -> Data?
    func removeAll()
}
