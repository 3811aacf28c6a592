import Foundation
import XCFleetModel
import XCFleetCore

/// Which simulator a job uses.
public enum SimulatorDecision: Equatable, Sendable {
    /// A simulator that already exists on the host; it is erased and booted, shut down afterwards, never deleted.
    case useExisting(udid: String, name: String)
    /// A simulator xcfleet creates for this job (`simctl create`), deleted afterwards.
    case create(name: String, deviceType: String, runtime: String)
}

/// Pure simulator logic: the simctl commands, picking or creating a device for a destination, and
/// recognising a wedged simulator. `XcodebuildJob` runs the commands over a `RemoteShell`.
///
/// Every command is `xcrun simctl …` with `DEVELOPER_DIR` set, so the simulator runtime set of the
/// pinned Xcode is used.
public struct SimulatorControl: Equatable, Sendable {
    /// `DEVELOPER_DIR` for every command (nil: the host's selected Xcode).
    public var developerDir: String?
    public var host: String

    public init(developerDir: String?, host: String) {
        self.developerDir = developerDir
        self.host = host
    }

    // MARK: Commands

    public var listDevicesCommand: ShellCommand { simctl(["list", "devices", "available", "-j"]) }
    public var listDeviceTypesCommand: ShellCommand { simctl(["list", "devicetypes", "-j"]) }
    public var listRuntimesCommand: ShellCommand { simctl(["list", "runtimes", "-j"]) }
    /// Prints the new device's UDID on stdout.
    public func createCommand(name: String, deviceType: String, runtime: String) -> ShellCommand { simctl(["create", name, deviceType, runtime]) }
    public func shutdownCommand(_ udid: String) -> ShellCommand { simctl(["shutdown", udid]) }
    public func eraseCommand(_ udid: String) -> ShellCommand { simctl(["erase", udid]) }
    public func bootCommand(_ udid: String) -> ShellCommand { simctl(["boot", udid]) }
    /// Waits until the device has finished booting (`-b`: boot it if it is not booting yet). Run under a deadline.
    public func bootStatusCommand(_ udid: String) -> ShellCommand { simctl(["bootstatus", udid, "-b"]) }
    public func deleteCommand(_ udid: String) -> ShellCommand { simctl(["delete", udid]) }
    /// The reset after a wedge.
    public var shutdownAllCommand: ShellCommand { simctl(["shutdown", "all"]) }

    private func simctl(_ args: [String]) -> ShellCommand {
        ShellCommand(["xcrun", "simctl"] + args, environment: developerDir.map { ["DEVELOPER_DIR": $0] } ?? [:])
    }

    /// The commands that prepare `udid` for a test run, in order. An existing device is shut down
    /// first (erase needs a shut-down device; that shutdown may fail harmlessly when it already is).
    public func prepareCommands(udid: String, existing: Bool) -> [(command: ShellCommand, mayFail: Bool)] {
        (existing ? [(shutdownCommand(udid), true)] : []) + [(eraseCommand(udid), false), (bootCommand(udid), false)]
    }

    /// The commands that undo what the job did: shut down, and delete only what it created.
    public func cleanupCommands(udid: String, created: Bool) -> [ShellCommand] {
        created ? [shutdownCommand(udid), deleteCommand(udid)] : [shutdownCommand(udid)]
    }

    // MARK: Picking a device

    /// Picks or creates the simulator for `destination`.
    ///
    /// - `id=`: that device (it must be listed as available).
    /// - `name=`/`OS=`: the runtime of the destination's platform whose version satisfies `OS`
    ///   (prefix match, `18` accepts 18.x; missing or `latest`: the newest available). With `reuse`,
    ///   an available device of that name on that runtime is used; otherwise (or when there is none)
    ///   a device named `createName` of the device type called `name` is created.
    ///
    /// Reuse is for hosts with one slot: two jobs on one host must not erase the same device.
    /// Throws `RemoteShellError(.toolchain, …)` when the host lacks the runtime or device type (the job
    /// may run on another host), `XcodeDestinationError` for a macOS destination.
    public func decide(destination: XcodeDestination, devices: [SimDevice], deviceTypes: [SimDeviceType],
                       runtimes: [SimRuntime], reuse: Bool, createName: String) throws -> SimulatorDecision {
        switch destination {
        case .macOS:
            throw XcodeDestinationError(destination: destination.xcodebuildValue(udid: nil), problem: "platform=macOS needs no simulator")
        case .simulatorID(_, let udid):
            guard let d = devices.first(where: { $0.udid.caseInsensitiveCompare(udid) == .orderedSame && $0.isAvailable }) else {
                throw RemoteShellError(.toolchain, host: host, "no available simulator with id \(udid) on this host (`xcrun simctl list devices available` does not list it)")
            }
            return .useExisting(udid: d.udid, name: d.name)
        case .simulator(let platform, let name, let os):
            let runtimePlatform = XcodeDestination.simulatorPlatforms[platform] ?? platform
            let candidates = runtimes.filter { $0.isAvailable && $0.platform.caseInsensitiveCompare(runtimePlatform) == .orderedSame }
            let wanted = os.flatMap { $0.caseInsensitiveCompare("latest") == .orderedSame ? nil : $0 }
            let matching = candidates.filter { r in wanted.map { XcodeVersion(version: r.version).satisfies($0) } ?? true }
            guard let runtime = matching.max(by: { XcodeVersion.components($0.version).lexicographicallyPrecedes(XcodeVersion.components($1.version)) }) else {
                let have = candidates.map(\.name).joined(separator: ", ")
                throw RemoteShellError(.toolchain, host: host,
                                       "no \(runtimePlatform) \(wanted ?? "") simulator runtime on this host (available: \(have.isEmpty ? "none" : have)): install it with `xcodebuild -downloadPlatform \(runtimePlatform)` or change OS= in the plan's destination")
            }
            if reuse, let d = devices.filter({ $0.isAvailable && $0.runtime == runtime.identifier && $0.name == name })
                .sorted(by: { ($0.state == "Shutdown" ? 0 : 1, $0.udid) < ($1.state == "Shutdown" ? 0 : 1, $1.udid) }).first {
                return .useExisting(udid: d.udid, name: d.name)
            }
            guard let type = deviceTypes.first(where: { $0.name == name }) ?? deviceTypes.first(where: { $0.name.caseInsensitiveCompare(name) == .orderedSame }) else {
                throw RemoteShellError(.toolchain, host: host, "no simulator device type named '\(name)' on this host (see `xcrun simctl list devicetypes`): fix name= in the plan's destination or update Xcode")
            }
            if let supported = runtime.supportedDeviceTypes, !supported.contains(type.identifier) {
                throw RemoteShellError(.toolchain, host: host, "runtime \(runtime.name) cannot run device type '\(name)': pick another name= or OS= in the plan's destination")
            }
            return .create(name: createName, deviceType: type.identifier, runtime: runtime.identifier)
        }
    }

    /// A device name for a job's own simulator: `xcfleet <jobID>` with only safe characters.
    public static func deviceName(jobID: String) -> String {
        "xcfleet " + String(jobID.prefix(80).map { $0.isASCII && ($0.isLetter || $0.isNumber || "-_#.".contains($0)) ? $0 : "_" })
    }

    /// The UDID `simctl create` printed (the last line that looks like one).
    public static func parseCreatedUDID(_ output: String) -> String? {
        output.split(whereSeparator: \.isNewline)
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .last { $0.count == 36 && $0.allSatisfy { $0.isASCII && ($0.isHexDigit || $0 == "-") } }
    }

    // MARK: Wedged simulators

    /// Output that means the simulator, not the tests, failed: the job is an infrastructure failure.
    public static let wedgeMarkers = [
        "Failed to install or launch the test runner",
        "Unable to boot",
        "The request to boot was denied",
        "CoreSimulatorService connection became invalid",
    ]

    /// The first wedge marker found in `text`, if any.
    public static func wedgeMarker(in text: String) -> String? {
        wedgeMarkers.first { text.contains($0) }
    }
}

/// Finds wedge markers in streamed output, across arbitrary chunk boundaries, in bounded memory.
public struct WedgeDetector: Sendable {
    private var tail: [UInt8] = []
    private let keep: Int
    public private(set) var found: String?

    public init() {
        keep = SimulatorControl.wedgeMarkers.map(\.utf8.count).max() ?? 64
    }

    public mutating func consume(_ bytes: [UInt8]) {
        guard found == nil, !bytes.isEmpty else { return }
        let window = tail + bytes
        found = SimulatorControl.wedgeMarker(in: String(decoding: window, as: UTF8.self))
        tail = Array(window.suffix(keep))
    }
}
