import Foundation

/// A fleet: the hosts a run may lease. Produced by `FleetLoader`; `Fleet.local` is the embedded default.
public struct Fleet: Equatable, Codable, Sendable {
    public var hosts: [HostSpec]
    /// A command provisioner (creates hosts on demand), if the fleet file names one.
    public var provisioner: ProvisionerSpec?
    public var sourcePath: String?
    /// Fleet key `maxInfraFailureRate` (0…1): a host whose recent infra-failure rate in the history
    /// is above it is set aside at admission (nil: never).
    public var maxInfraFailureRate: Double?
    /// Fleet key `minFreeDiskBytes`: a host with less free disk under its work root is set aside
    /// at admission and shown ✘ by `hosts check` (nil: `HostProbe.defaultMinimumFreeBytes`, 2 GiB).
    public var minFreeDiskBytes: Int64?
    /// Fleet keys `attachmentFileBytes`, `attachmentRunBytes`, `attachmentFilesPerAttempt`: the caps
    /// on what a run fetches from the attachments folders (nil: `AttachmentLimits.defaults`).
    public var attachmentLimits: AttachmentLimits? = nil

    public init(hosts: [HostSpec], provisioner: ProvisionerSpec? = nil, sourcePath: String? = nil, maxInfraFailureRate: Double? = nil,
                minFreeDiskBytes: Int64? = nil) {
        self.hosts = hosts
        self.provisioner = provisioner
        self.sourcePath = sourcePath
        self.maxInfraFailureRate = maxInfraFailureRate
        self.minFreeDiskBytes = minFreeDiskBytes
    }

    /// Prices per hour by host name (fleet key `pricePerHour`), and the provisioner template's for created hosts.
    public var pricing: HistoryPricing {
        HistoryPricing(perHost: Dictionary(hosts.compactMap { h in h.pricePerHour.map { (h.name, $0) } }, uniquingKeysWith: { a, _ in a }),
                       defaultPrice: provisioner?.template.pricePerHour)
    }

    /// The built-in `local` host: this machine, through `LocalShell`.
    public static var local: Fleet { Fleet(hosts: [.local]) }
}

public struct ProvisionerSpec: Equatable, Codable, Sendable {
    /// Prints one host as JSON (`{"address":…,"port":…,"user":…,"hostKey":"ssh-ed25519 AAAA…"}`).
    public var create: [String]
    /// Given the created host's JSON on stdin, releases it.
    public var release: [String]
    public var count: Int
    /// Template for created hosts (user, identity, labels, slots, toolchain, …).
    public var template: HostSpec

    public init(create: [String], release: [String], count: Int, template: HostSpec) {
        self.create = create
        self.release = release
        self.count = count
        self.template = template
    }
}

public enum HostTransport: String, Codable, Sendable {
    case local, ssh
}

public enum HostKeyPolicy: String, Codable, Sendable {
    /// Unknown or changed key: refuse before authenticating.
    case strict
    /// Unknown key: accept and append a hashed line; changed key: refuse.
    case acceptNew = "accept-new"
}

/// An environment variable set for commands on a host. Secret values are redacted from every artifact.
public struct EnvironmentValue: Equatable, Codable, Sendable {
    public var value: String
    public var secret: Bool

    public init(_ value: String, secret: Bool = false) {
        self.value = value
        self.secret = secret
    }
}

/// Which toolchain runs the tests on a host.
public struct ToolchainSpec: Equatable, Codable, Sendable {
    /// Absolute path of `swift` (nil: `swift` from the session's PATH).
    public var swiftPath: String?
    /// `DEVELOPER_DIR` for Xcode hosts.
    public var developerDir: String?
    /// Xcode version the host is expected to have (`16.4`).
    public var xcode: String?

    public init(swiftPath: String? = nil, developerDir: String? = nil, xcode: String? = nil) {
        self.swiftPath = swiftPath
        self.developerDir = developerDir
        self.xcode = xcode
    }
}

/// One host of a fleet.
public struct HostSpec: Equatable, Codable, Sendable {
    public var name: String
    public var transport: HostTransport
    public var address: String
    public var port: Int
    public var user: String
    /// ed25519 private key file; nil with `useAgent` uses ssh-agent (`SSH_AUTH_SOCK`).
    public var identityFile: String?
    public var useAgent: Bool
    /// Name of the environment variable holding the key's passphrase (never the passphrase).
    public var passphraseEnv: String?
    public var knownHostsFile: String?
    public var hostKeyPolicy: HostKeyPolicy
    /// Capabilities: `platform:linux`, `platform:macos`, `combine`, `xcode:16.4`, free-form labels.
    public var labels: [String]
    public var slots: Int
    /// Parent of per-job directories on the host.
    public var workRoot: String
    public var toolchain: ToolchainSpec
    public var environment: [String: EnvironmentValue]
    /// SSH hosts: a connection from which nothing at all (not even a keepalive reply) arrives for
    /// this many seconds is declared lost and its job rerun elsewhere (fleet key `deadPeerSeconds`;
    /// nil: `SSHShell.defaultDeadPeerSeconds`, 30 s). Keepalives go out every `min(5, this / 3)` s.
    public var deadPeerSeconds: Double?
    /// Bounds of the host's build and push caches (fleet key `cache`; nil: `CacheLimits()` defaults).
    public var cache: CacheLimits?
    /// What one hour of this host costs (fleet key `pricePerHour`, any currency; shown as `$`).
    public var pricePerHour: Double?

    public init(name: String, transport: HostTransport = .ssh, address: String = "", port: Int = 22, user: String = "",
                identityFile: String? = nil, useAgent: Bool = false, passphraseEnv: String? = nil,
                knownHostsFile: String? = nil, hostKeyPolicy: HostKeyPolicy = .strict, labels: [String] = [],
                slots: Int = 1, workRoot: String = WorkRootDefaults.remote, toolchain: ToolchainSpec = ToolchainSpec(),
                environment: [String: EnvironmentValue] = [:], deadPeerSeconds: Double? = nil) {
        self.name = name
        self.transport = transport
        self.address = address
        self.port = port
        self.user = user
        self.identityFile = identityFile
        self.useAgent = useAgent
        self.passphraseEnv = passphraseEnv
        self.knownHostsFile = knownHostsFile
        self.hostKeyPolicy = hostKeyPolicy
        self.labels = labels
        self.slots = slots
        self.workRoot = workRoot
        self.toolchain = toolchain
        self.environment = environment
        self.deadPeerSeconds = deadPeerSeconds
    }

    /// The built-in local host: this Linux machine, `localSlots` slots, work under the user's cache
    /// folder (private: `$XDG_CACHE_HOME/xcfleet` or `~/.cache/xcfleet`).
    public static var local: HostSpec {
        HostSpec(name: "local", transport: .local, address: "localhost", port: 0, user: "",
                 labels: ["platform:linux", "swift"], slots: localSlots,
                 workRoot: WorkRootDefaults.local())
    }

    /// Slots of the built-in local host: the host's build lock keeps compiles one at a time, so one
    /// slot compiles, one holds the next job ready at the lock, and one tests (a probe repetition,
    /// a mutant's test, push and cleanup): the compiles follow each other without a gap and a test
    /// never waits for a compile it does not need. Measured on 2 cores (docs/builds.md): the nightly
    /// plan on an empty cache takes 36–39 s with three slots, 41–44 s with two.
    public static let localSlots = 3

    /// Values to scrub from every log and report.
    public var secrets: [String] { environment.values.filter(\.secret).map(\.value).filter { !$0.isEmpty } }
}
