import Foundation

/// Who owns a cached item: the signed-in account.
public struct AccountID: Hashable, Sendable {
    public let raw: String
    public init(_ raw: String) { self.raw = raw }
}

/// The key of one cached item: its owner, the item and the server's entity tag of its content.
public struct ItemKey: Hashable, Sendable {
    public let owner: AccountID
    public let item: String
    public let etag: String

    public init(owner: AccountID, item: String, etag: String) {
        self.owner = owner
        self.item = item
        self.etag = etag
    }

    public static func == (lhs: ItemKey, rhs: ItemKey) -> Bool {
        lhs.owner == rhs.owner && lhs.item == rhs.item && lhs.etag == rhs.etag
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(item)
        hasher.combine(etag)
    }
}
