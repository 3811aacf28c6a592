import Foundation
import XCFleetBasics
import XCFleetModel

/// A plan's Apple destination (`SuiteSpec.destination`), parsed from xcodebuild's
/// `key=value,key=value` form: `platform=iOS Simulator,name=iPhone 16,OS=18.4`, `platform=macOS`,
/// `id=<udid>` (optionally with `platform=`).
public enum XcodeDestination: Equatable, Sendable {
    /// A simulator found or created by device-type name and runtime version (`os` nil or `latest`: newest).
    case simulator(platform: String, name: String, os: String?)
    /// An existing simulator named by its UDID.
    case simulatorID(platform: String?, udid: String)
    /// The Mac itself (`arch` / `variant`, e.g. `arm64` / `Mac Catalyst`, passed through).
    case macOS(arch: String?, variant: String?)

    /// Simulator platforms xcodebuild knows, and their runtime platform names in simctl.
    package static let simulatorPlatforms = ["iOS Simulator": "iOS", "tvOS Simulator": "tvOS",
                                     "watchOS Simulator": "watchOS", "visionOS Simulator": "xrOS"]

    public static func parse(_ text: String) throws -> XcodeDestination {
        var fields: [String: String] = [:]
        var order: [String] = []
        for part in text.split(separator: ",", omittingEmptySubsequences: false) {
            let item = part.trimmingCharacters(in: .whitespaces)
            guard let eq = item.firstIndex(of: "="), eq != item.startIndex else {
                throw XcodeDestinationError(destination: text, problem: "'\(item)' is not key=value")
            }
            let key = item[..<eq].trimmingCharacters(in: .whitespaces)
            let value = item[item.index(after: eq)...].trimmingCharacters(in: .whitespaces)
            guard !value.isEmpty else { throw XcodeDestinationError(destination: text, problem: "'\(key)' has no value") }
            let canonical = ["platform", "name", "os", "id", "arch", "variant"].first { $0.caseInsensitiveCompare(key) == .orderedSame }
            guard let k = canonical else {
                throw XcodeDestinationError(destination: text, problem: "unknown key '\(key)' (known: platform, name, OS, id, arch, variant)")
            }
            guard fields[k] == nil else { throw XcodeDestinationError(destination: text, problem: "'\(key)' given twice") }
            fields[k] = value
            order.append(k)
        }
        let platform = fields["platform"]
        if let platform, platform.caseInsensitiveCompare("macOS") == .orderedSame {
            for k in ["name", "os", "id"] where fields[k] != nil {
                throw XcodeDestinationError(destination: text, problem: "'\(k)' does not apply to platform=macOS")
            }
            return .macOS(arch: fields["arch"], variant: fields["variant"])
        }
        let simPlatform = try platform.map { p -> String in
            guard let known = simulatorPlatforms.keys.first(where: { $0.caseInsensitiveCompare(p) == .orderedSame }) else {
                throw XcodeDestinationError(destination: text, problem: "platform '\(p)' is not one xcfleet drives (macOS, \(simulatorPlatforms.keys.sorted().joined(separator: ", ")))")
            }
            return known
        }
        if let id = fields["id"] {
            guard fields["name"] == nil, fields["os"] == nil else {
                throw XcodeDestinationError(destination: text, problem: "give either id= or name=/OS=, not both")
            }
            guard id.allSatisfy({ $0.isASCII && ($0.isHexDigit || $0 == "-") }) else {
                throw XcodeDestinationError(destination: text, problem: "id '\(id)' is not a simulator UDID")
            }
            return .simulatorID(platform: simPlatform, udid: id.uppercased())
        }
        guard let p = simPlatform else { throw XcodeDestinationError(destination: text, problem: "platform= is missing") }
        guard let name = fields["name"] else {
            throw XcodeDestinationError(destination: text, problem: "name= is missing (a device type such as 'iPhone 16')")
        }
        return .simulator(platform: p, name: name, os: fields["os"])
    }

    /// The simctl runtime platform (`iOS`) of a simulator destination; nil for macOS or an unqualified id.
    public var runtimePlatform: String? {
        switch self {
        case .simulator(let p, _, _): return XcodeDestination.simulatorPlatforms[p]
        case .simulatorID(let p, _): return p.flatMap { XcodeDestination.simulatorPlatforms[$0] }
        case .macOS: return nil
        }
    }

    /// Whether a simulator must be prepared (every destination but macOS).
    public var needsSimulator: Bool {
        if case .macOS = self { return false }
        return true
    }

    /// The `-destination` value for xcodebuild once the simulator is known (`udid`).
    public func xcodebuildValue(udid: String?) -> String {
        switch self {
        case .macOS(let arch, let variant):
            var s = "platform=macOS"
            if let arch { s += ",arch=\(arch)" }
            if let variant { s += ",variant=\(variant)" }
            return s
        case .simulator(let p, _, _):
            return "platform=\(p),id=\(udid ?? "")"
        case .simulatorID(let p, let id):
            // xcodebuild accepts a bare `id=`; the platform is only repeated when the plan gave it.
            return (p.map { "platform=\($0)," } ?? "") + "id=\(udid ?? id)"
        }
    }
}

extension XcodeDestination {
    /// The `-destination` for `build-for-testing`: generic for a simulator platform
    /// (`generic/platform=iOS Simulator`, so one build serves every simulator of the platform and no
    /// simulator needs to be booted to build), the Mac itself for macOS, and the device itself for a
    /// bare `id=` (its platform is unknown until simctl is asked).
    public var buildValue: String {
        switch self {
        case .macOS: return xcodebuildValue(udid: nil)
        case .simulator(let p, _, _), .simulatorID(let p?, _): return "generic/platform=\(p)"
        case .simulatorID(nil, let id): return "id=\(id)"
        }
    }
}

/// A destination string xcfleet cannot use: the plan must be fixed (not an infrastructure failure).
public struct XcodeDestinationError: Error, Equatable, Sendable, CustomStringConvertible {
    public var destination: String
    public var problem: String

    public var description: String {
        "destination \"\(destination)\": \(problem); write it like \"platform=iOS Simulator,name=iPhone 16,OS=18.4\", \"platform=iOS Simulator,id=<UDID>\" or \"platform=macOS\""
    }

    package init(destination: String, problem: String) {
        self.destination = destination
        self.problem = problem
    }
}

extension XcodeDestinationError: UserFacingError {
    public var userMessage: String { description }
    public var exitCode: Int32 { UserFacingErrors.ExitCode.usage }
}
