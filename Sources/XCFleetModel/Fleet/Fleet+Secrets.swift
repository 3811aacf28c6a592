import Foundation

extension Fleet {
    /// Every secret value of the fleet (hosts and the provisioner's host template), without
    /// duplicates, longest first so that redacting in this order never leaves part of a secret.
    public var secrets: [String] {
        let all = Set(hosts.flatMap(\.secrets) + (provisioner?.template.secrets ?? []))
        return all.sorted { $0.count != $1.count ? $0.count > $1.count : $0 < $1 }
    }
}
