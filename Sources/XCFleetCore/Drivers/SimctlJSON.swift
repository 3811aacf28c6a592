import Foundation
import XCFleetBasics

/// One simulator from `xcrun simctl list devices available -j`.
public struct SimDevice: Equatable, Sendable {
    public var udid: String
    public var name: String
    /// `Shutdown`, `Booted`, `Creating`, `Shutting Down`, …
    public var state: String
    public var isAvailable: Bool
    public var deviceTypeIdentifier: String?
    /// The runtime identifier it was listed under (`com.apple.CoreSimulator.SimRuntime.iOS-18-4`).
    public var runtime: String

    public init(udid: String, name: String, state: String, isAvailable: Bool = true, deviceTypeIdentifier: String? = nil, runtime: String) {
        self.udid = udid
        self.name = name
        self.state = state
        self.isAvailable = isAvailable
        self.deviceTypeIdentifier = deviceTypeIdentifier
        self.runtime = runtime
    }
}

/// One entry of `xcrun simctl list devicetypes -j`.
public struct SimDeviceType: Equatable, Sendable {
    public var identifier: String
    public var name: String
    public var productFamily: String?

    package init(identifier: String, name: String, productFamily: String? = nil) {
        self.identifier = identifier
        self.name = name
        self.productFamily = productFamily
    }
}

/// One entry of `xcrun simctl list runtimes -j`.
public struct SimRuntime: Equatable, Sendable {
    public var identifier: String
    public var name: String
    public var version: String
    /// `iOS`, `tvOS`, `watchOS`, `xrOS` (older simctl omit it: derived from the identifier).
    public var platform: String
    public var buildVersion: String?
    public var isAvailable: Bool
    /// Device type identifiers this runtime runs (nil when simctl does not list them).
    public var supportedDeviceTypes: [String]?

    package init(identifier: String, name: String, version: String, platform: String, buildVersion: String? = nil, isAvailable: Bool, supportedDeviceTypes: [String]? = nil) {
        self.identifier = identifier
        self.name = name
        self.version = version
        self.platform = platform
        self.buildVersion = buildVersion
        self.isAvailable = isAvailable
        self.supportedDeviceTypes = supportedDeviceTypes
    }
}

/// Parsing of simctl's JSON listings. Unknown fields are ignored; missing optional fields get
/// defaults; a malformed document throws `SimctlJSONError` (never traps).
public enum SimctlJSON {
    public static func devices(_ data: Data) throws -> [SimDevice] {
        let doc = try decode(DevicesDoc.self, data, what: "simctl list devices")
        var out: [SimDevice] = []
        for (key, list) in doc.devices.sorted(by: { $0.key < $1.key }) {
            let runtime = runtimeIdentifier(key)
            for d in list {
                out.append(SimDevice(udid: d.udid, name: d.name, state: d.state ?? "Unknown",
                                     isAvailable: d.isAvailable ?? (d.availability.map { $0 == "(available)" } ?? true),
                                     deviceTypeIdentifier: d.deviceTypeIdentifier, runtime: runtime))
            }
        }
        return out
    }

    public static func deviceTypes(_ data: Data) throws -> [SimDeviceType] {
        try decode(DeviceTypesDoc.self, data, what: "simctl list devicetypes").devicetypes.map {
            SimDeviceType(identifier: $0.identifier, name: $0.name, productFamily: $0.productFamily)
        }
    }

    public static func runtimes(_ data: Data) throws -> [SimRuntime] {
        try decode(RuntimesDoc.self, data, what: "simctl list runtimes").runtimes.map { r in
            SimRuntime(identifier: r.identifier, name: r.name, version: r.version,
                       platform: r.platform ?? platform(fromRuntimeIdentifier: r.identifier),
                       buildVersion: r.buildversion, isAvailable: r.isAvailable ?? true,
                       supportedDeviceTypes: r.supportedDeviceTypes?.map(\.identifier))
        }
    }

    /// A `devices` key as a runtime identifier. Xcode 10.3 and older key devices by runtime *name*
    /// (`"iOS 11.2"`, `"watchOS 4.2"`); newer ones by identifier. Names become the identifier simctl
    /// lists for that runtime (`com.apple.CoreSimulator.SimRuntime.iOS-11-2`), so a device matches
    /// its runtime on any Xcode. Identifiers pass through unchanged.
    public static func runtimeIdentifier(_ key: String) -> String {
        guard !key.hasPrefix("com.apple."), let space = key.firstIndex(of: " ") else { return key }
        let platform = key[..<space]
        var version = key[key.index(after: space)...]
        if let paren = version.firstIndex(of: " ") { version = version[..<paren] }   // `iOS 11.2 (15C107)`
        guard !platform.isEmpty, !version.isEmpty, version.allSatisfy({ $0.isNumber || $0 == "." }) else { return key }
        return "com.apple.CoreSimulator.SimRuntime.\(platform)-\(version.replacingOccurrences(of: ".", with: "-"))"
    }

    /// `com.apple.CoreSimulator.SimRuntime.iOS-18-4` → `iOS`.
    package static func platform(fromRuntimeIdentifier id: String) -> String {
        let last = id.split(separator: ".").last.map(String.init) ?? id
        return String(last.prefix { $0 != "-" })
    }

    private static func decode<T: Decodable>(_ type: T.Type, _ data: Data, what: String) throws -> T {
        do {
            return try JSONDecoder().decode(T.self, from: data)
        } catch {
            let head = String(decoding: data.prefix(120), as: UTF8.self).replacingOccurrences(of: "\n", with: " ")
            throw SimctlJSONError(what: what, detail: "\(error)", head: head)
        }
    }

    private struct DevicesDoc: Decodable {
        var devices: [String: [Device]]
        struct Device: Decodable {
            package var udid: String
            package var name: String
            package var state: String?
            package var isAvailable: Bool?
            package var availability: String?   // Xcode 10 and older: "(available)"
            package var deviceTypeIdentifier: String?
        }
    }

    private struct DeviceTypesDoc: Decodable {
        var devicetypes: [Entry]
        struct Entry: Decodable {
            package var identifier: String
            package var name: String
            package var productFamily: String?
        }
    }

    private struct RuntimesDoc: Decodable {
        var runtimes: [Entry]
        struct Entry: Decodable {
            package var identifier: String
            package var name: String
            package var version: String
            package var platform: String?
            package var buildversion: String?
            package var isAvailable: Bool?
            package var supportedDeviceTypes: [Supported]?
        }

        struct Supported: Decodable { var identifier: String }
    }
}

/// simctl printed something that is not the JSON expected (an infrastructure problem on the host).
public struct SimctlJSONError: Error, Equatable, Sendable, CustomStringConvertible {
    public var what: String
    public var detail: String
    public var head: String

    public var description: String { "\(what) -j did not print the expected JSON (\(detail)); output began: \(head)" }
}

extension SimctlJSONError: UserFacingError {
    public var userMessage: String { description }
    public var exitCode: Int32 { UserFacingErrors.ExitCode.infrastructure }
}
