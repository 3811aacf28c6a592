import Foundation

/// What xcfleet knows about each template folder.
public struct TemplateInfo: Equatable, Sendable {
    public var name: String
    /// Test target name in the rendered package.
    public var testTarget: String
    /// Capabilities a host needs to run it, beyond what the plan asks.
    public var requires: [String]
    /// The contract whose ids the template's tests carry and that a subject can be put under
    /// (nil: no contract surface; `subject` is refused).
    public var contract: ContractInfo? = nil
    /// The template whose surface (`*Surface.swift`) and adapters this one's tests call; a subject
    /// can be put under it (nil: no surface).
    public var surface: String? = nil

    public static let all: [TemplateInfo] = [
        TemplateInfo(name: "cache-contract", testTarget: "CacheContractTests", requires: [], contract: .cache, surface: "cache-contract"),
        TemplateInfo(name: "pressure-probes", testTarget: "PressureProbeTests", requires: [], surface: "cache-contract"),
        TemplateInfo(name: "combine-lifetime", testTarget: "CombineLifetimeTests", requires: ["combine"], contract: .combine, surface: "combine-lifetime"),
    ]

    public static func named(_ name: String) -> TemplateInfo? { all.first { $0.name == name } }
    /// Folders of `Templates/` that are not templates.
    public static let reservedFolders: Set<String> = ["package", "subject-package", "mutants", "adapters", "contract-kit"]
    public static var names: Set<String> { Set(all.map(\.name)) }

    package init(name: String, testTarget: String, requires: [String], contract: ContractInfo? = nil, surface: String? = nil) {
        self.name = name
        self.testTarget = testTarget
        self.requires = requires
        self.contract = contract
        self.surface = surface
    }

    /// A team's own template (a folder of test files under `--templates DIR`): test target named
    /// after the folder (`my-tests` → `MyTests`), no contract surface.
    public static func user(_ name: String) -> TemplateInfo {
        var target = ""
        var upper = true
        for c in name {
            if c.isASCII && (c.isLetter || c.isNumber) { target.append(upper ? Character(c.uppercased()) : c); upper = false } else { upper = true }
        }
        if target.first?.isNumber ?? true { target = "T" + target }
        if !target.hasSuffix("Tests") { target += "Tests" }
        return TemplateInfo(name: name, testTarget: target, requires: [])
    }
}

/// A contract a template's tests check (CONTRACT.md): the version a certificate names and every id.
public struct ContractInfo: Equatable, Sendable {
    /// Changes when a test is added, removed or tightened.
    public var version: String
    public var ids: [String]

    /// C1–C13 and K5/K6 (the Combine-free request gate); C9 (pressure probes), C12 and C13 (report sections) have no gate tests.
    public static let cache = ContractInfo(version: "cache-contract/2", ids: (1...13).map { "C\($0)" } + ["K5", "K6"])
    /// K1–K11, the Combine lifetime contract; its tests compile and run only where Combine exists (macOS hosts).
    public static let combine = ContractInfo(version: "combine-lifetime/1", ids: (1...11).map { "K\($0)" })
}
