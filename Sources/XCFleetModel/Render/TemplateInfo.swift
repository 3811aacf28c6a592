import Foundation

/// What xcfleet knows about each template folder.
public struct TemplateInfo: Equatable, Sendable {
    public var name: String
    /// Test target name in the rendered package.
    public var testTarget: String
    /// Capabilities a host needs to run it, beyond what the plan asks.
    public var requires: [String]

    public static let all: [TemplateInfo] = [
        TemplateInfo(name: "cache-contract", testTarget: "CacheContractTests", requires: []),
        TemplateInfo(name: "pressure-probes", testTarget: "PressureProbeTests", requires: []),
        TemplateInfo(name: "combine-lifetime", testTarget: "CombineLifetimeTests", requires: ["combine"]),
    ]

    public static func named(_ name: String) -> TemplateInfo? { all.first { $0.name == name } }
    public static var names: Set<String> { Set(all.map(\.name)) }

    package init(name: String, testTarget: String, requires: [String]) {
        self.name = name
        self.testTarget = testTarget
        self.requires = requires
    }
}
