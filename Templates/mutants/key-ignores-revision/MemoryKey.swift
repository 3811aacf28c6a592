// MUTANT key-ignores-revision (C1): key ignoring the revision. Deliberately broken; the cache contract suite must fail against it.
import Foundation

/// C1: cache key identity (account, resource, revision), compared field by field.
///
/// Fields are immutable because `NSCache` does not copy its keys. The fields are never joined
/// with a separator: `("a-b", "c")` and `("a", "b-c")` are different keys. Hashes may collide;
/// equality may not.
public final class MemoryKey: NSObject, Sendable {
    /// The account of the trusted session that owns the value.
    public let account: String
    /// The resource id, unique within one account.
    public let resource: String
    /// The content revision; it changes whenever the content changes.
    public let revision: String

    public init(_ account: String, _ resource: String, _ revision: String) {
        self.account = account
        self.resource = resource
        self.revision = revision
    }

    public convenience init(account: String, resource: String, revision: String) {
        self.init(account, resource, revision)
    }

    public override var hash: Int {
        var hasher = Hasher()
        hasher.combine(account)
        hasher.combine(resource)
        return hasher.finalize()
    }

    public override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? MemoryKey else { return false }
        return account == other.account
            && resource == other.resource
    }
}
