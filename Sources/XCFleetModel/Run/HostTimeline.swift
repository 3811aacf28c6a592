import Foundation

/// A host's time in a run, from `hostProvisioned` and `hostAdmitted` events: when the
/// provisioner made it, when it was admitted (its slots leased), and what it is. Cost accounting
/// (`RunCost`) bills a host from the start of its provisioning (or its admission) to the run's end.
public struct HostTimeline: Equatable, Codable, Sendable {
    public var host: String
    /// Seconds since the run started when the host was first admitted (nil: never admitted).
    public var admittedAt: Double?
    /// Seconds since the run started when the provisioner's create command finished.
    public var provisionedAt: Double?
    /// How long the create command took.
    public var provisionSeconds: Double?
    public var hostClass: String?
    public var label: String?

    public init(host: String, admittedAt: Double? = nil, provisionedAt: Double? = nil, provisionSeconds: Double? = nil,
                hostClass: String? = nil, label: String? = nil) {
        self.host = host
        self.admittedAt = admittedAt
        self.provisionedAt = provisionedAt
        self.provisionSeconds = provisionSeconds
        self.hostClass = hostClass
        self.label = label
    }

    /// When the host started costing money: the start of its create command, else its admission.
    public var billedFrom: Double? {
        if let provisionedAt { return max(0, provisionedAt - (provisionSeconds ?? 0)) }
        return admittedAt
    }
}
