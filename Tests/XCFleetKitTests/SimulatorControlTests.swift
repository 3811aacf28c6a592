import Foundation
import XCTest
@testable import XCFleetKit
import XCFleetTestSupport

/// simctl commands, JSON parsing (hand-written samples in Fixtures/xcode), device choice, wedges.
final class SimulatorControlTests: XCTestCase {
    let control = SimulatorControl(developerDir: "/Applications/Xcode-16.4.app/Contents/Developer", host: "mac-1")

    func lists() throws -> ([SimDevice], [SimDeviceType], [SimRuntime]) {
        (try SimctlJSON.devices(XcodeFixtures.data("simctl-devices.json")),
         try SimctlJSON.deviceTypes(XcodeFixtures.data("simctl-devicetypes.json")),
         try SimctlJSON.runtimes(XcodeFixtures.data("simctl-runtimes.json")))
    }

    func testGoldenCommands() {
        let u = "5B2E9C4D-8F17-4A63-B0D2-91C7E5A3F408"
        let env = "DEVELOPER_DIR=/Applications/Xcode-16.4.app/Contents/Developer "
        XCTAssertEqual(XcodeCommandLine.render(control.listDevicesCommand), env + "xcrun simctl list devices available -j")
        XCTAssertEqual(XcodeCommandLine.render(control.listDeviceTypesCommand), env + "xcrun simctl list devicetypes -j")
        XCTAssertEqual(XcodeCommandLine.render(control.listRuntimesCommand), env + "xcrun simctl list runtimes -j")
        XCTAssertEqual(XcodeCommandLine.render(control.createCommand(name: "xcfleet cache-contract#s1of2", deviceType: "com.apple.CoreSimulator.SimDeviceType.iPhone-16", runtime: "com.apple.CoreSimulator.SimRuntime.iOS-18-4")),
                       env + "xcrun simctl create 'xcfleet cache-contract#s1of2' com.apple.CoreSimulator.SimDeviceType.iPhone-16 com.apple.CoreSimulator.SimRuntime.iOS-18-4")
        XCTAssertEqual(XcodeCommandLine.render(control.createCommand(name: "Bob's \"iPhone\"", deviceType: "t", runtime: "r")),
                       env + "xcrun simctl create 'Bob'\\''s \"iPhone\"' t r")
        XCTAssertEqual(control.prepareCommands(udid: u, existing: false).map { XcodeCommandLine.render($0.command) },
                       [env + "xcrun simctl erase \(u)", env + "xcrun simctl boot \(u)"])
        XCTAssertEqual(control.prepareCommands(udid: u, existing: true).map { XcodeCommandLine.render($0.command) },
                       [env + "xcrun simctl shutdown \(u)", env + "xcrun simctl erase \(u)", env + "xcrun simctl boot \(u)"])
        XCTAssertEqual(control.prepareCommands(udid: u, existing: true).map(\.mayFail), [true, false, false])
        XCTAssertEqual(XcodeCommandLine.render(control.bootStatusCommand(u)), env + "xcrun simctl bootstatus \(u) -b")
        XCTAssertEqual(control.cleanupCommands(udid: u, created: true).map(XcodeCommandLine.render),
                       [env + "xcrun simctl shutdown \(u)", env + "xcrun simctl delete \(u)"])
        XCTAssertEqual(control.cleanupCommands(udid: u, created: false).map(XcodeCommandLine.render), [env + "xcrun simctl shutdown \(u)"])
        XCTAssertEqual(XcodeCommandLine.render(control.shutdownAllCommand), env + "xcrun simctl shutdown all")
        XCTAssertEqual(XcodeCommandLine.render(SimulatorControl(developerDir: nil, host: "h").bootCommand("X")), "xcrun simctl boot X")
    }

    func testParsesSimctlListings() throws {
        let (devices, types, runtimes) = try lists()
        XCTAssertEqual(devices.count, 4)
        XCTAssertEqual(devices.first { $0.name == "iPhone 16" },
                       SimDevice(udid: "5B2E9C4D-8F17-4A63-B0D2-91C7E5A3F408", name: "iPhone 16", state: "Shutdown", isAvailable: true,
                                 deviceTypeIdentifier: "com.apple.CoreSimulator.SimDeviceType.iPhone-16", runtime: "com.apple.CoreSimulator.SimRuntime.iOS-18-4"))
        XCTAssertEqual(devices.first { $0.name == "iPhone 16 Pro" }?.state, "Booted")
        XCTAssertEqual(types.map(\.name), ["iPhone 15", "iPhone 16", "iPhone 16 Pro", "iPad Air 11-inch (M2)"])
        XCTAssertEqual(types.first?.productFamily, "iPhone")
        XCTAssertEqual(runtimes.map(\.identifier), ["com.apple.CoreSimulator.SimRuntime.iOS-17-5", "com.apple.CoreSimulator.SimRuntime.iOS-18-4",
                                                   "com.apple.CoreSimulator.SimRuntime.tvOS-18-4", "com.apple.CoreSimulator.SimRuntime.iOS-18-5"])
        XCTAssertEqual(runtimes.map(\.isAvailable), [true, true, true, false])
        XCTAssertEqual(runtimes[1].buildVersion, "22E238")
        XCTAssertEqual(runtimes[1].supportedDeviceTypes?.count, 4)
        // Old simctl: no `platform`, no `isAvailable`, `availability` strings.
        let old = #"{"runtimes":[{"identifier":"com.apple.CoreSimulator.SimRuntime.iOS-12-1","name":"iOS 12.1","version":"12.1"}]}"#
        XCTAssertEqual(try SimctlJSON.runtimes(Data(old.utf8)).first?.platform, "iOS")
        let oldDevices = #"{"devices":{"iOS 12.1":[{"udid":"U","name":"iPhone X","state":"Shutdown","availability":"(unavailable, runtime profile not found)"}]}}"#
        XCTAssertEqual(try SimctlJSON.devices(Data(oldDevices.utf8)).first?.isAvailable, false)
    }

    func testMalformedListingsThrowNotTrap() {
        for text in ["", "not json", "{}", #"{"devices":[]}"#, #"{"devices":{"r":[{"name":"x"}]}}"#, #"{"runtimes":[{"identifier":1}]}"#] {
            XCTAssertThrowsError(try SimctlJSON.devices(Data(text.utf8)), text) { XCTAssertTrue($0 is SimctlJSONError) }
            XCTAssertThrowsError(try SimctlJSON.runtimes(Data(text.utf8)), text)
            XCTAssertThrowsError(try SimctlJSON.deviceTypes(Data(text.utf8)), text)
        }
    }

    func testPicksAnExistingDeviceWhenReusing() throws {
        let (devices, types, runtimes) = try lists()
        let d = try XcodeDestination.parse("platform=iOS Simulator,name=iPhone 16,OS=18.4")
        XCTAssertEqual(try control.decide(destination: d, devices: devices, deviceTypes: types, runtimes: runtimes, reuse: true, createName: "xcfleet j"),
                       .useExisting(udid: "5B2E9C4D-8F17-4A63-B0D2-91C7E5A3F408", name: "iPhone 16"))
        // OS 17 (prefix) finds the iPhone 15 on iOS 17.5.
        let d17 = try XcodeDestination.parse("platform=iOS Simulator,name=iPhone 15,OS=17")
        XCTAssertEqual(try control.decide(destination: d17, devices: devices, deviceTypes: types, runtimes: runtimes, reuse: true, createName: "x"),
                       .useExisting(udid: "0C4A8F61-2B7E-4D1A-9E58-7F0A3C6B1D20", name: "iPhone 15"))
        let byID = try XcodeDestination.parse("platform=iOS Simulator,id=a1f3d7e2-6c59-4b80-8e14-2d9b0c7f5e63")
        XCTAssertEqual(try control.decide(destination: byID, devices: devices, deviceTypes: types, runtimes: runtimes, reuse: false, createName: "x"),
                       .useExisting(udid: "A1F3D7E2-6C59-4B80-8E14-2D9B0C7F5E63", name: "iPhone 16 Pro"))
    }

    func testCreatesWhenNotReusingOrNoneExists() throws {
        let (devices, types, runtimes) = try lists()
        let d = try XcodeDestination.parse("platform=iOS Simulator,name=iPhone 16,OS=18.4")
        XCTAssertEqual(try control.decide(destination: d, devices: devices, deviceTypes: types, runtimes: runtimes, reuse: false, createName: "xcfleet j"),
                       .create(name: "xcfleet j", deviceType: "com.apple.CoreSimulator.SimDeviceType.iPhone-16", runtime: "com.apple.CoreSimulator.SimRuntime.iOS-18-4"))
        // No iPad exists: created even when reusing; no OS means the newest available runtime (18.5 is unavailable).
        let ipad = try XcodeDestination.parse("platform=iOS Simulator,name=iPad Air 11-inch (M2)")
        XCTAssertEqual(try control.decide(destination: ipad, devices: devices, deviceTypes: types, runtimes: runtimes, reuse: true, createName: "n"),
                       .create(name: "n", deviceType: "com.apple.CoreSimulator.SimDeviceType.iPad-Air-11-inch-M2", runtime: "com.apple.CoreSimulator.SimRuntime.iOS-18-4"))
    }

    func testMissingRuntimeDeviceTypeOrDeviceIsAToolchainInfraError() throws {
        let (devices, types, runtimes) = try lists()
        let cases: [(String, String)] = [
            ("platform=iOS Simulator,name=iPhone 16,OS=19.0", "no iOS 19.0 simulator runtime on this host (available: iOS 17.5, iOS 18.4)"),
            ("platform=iOS Simulator,name=iPhone 16,OS=18.5", "no iOS 18.5 simulator runtime"),
            ("platform=iOS Simulator,name=iPhone 99,OS=18.4", "no simulator device type named 'iPhone 99'"),
            ("platform=iOS Simulator,name=iPhone 16,OS=17.5", "runtime iOS 17.5 cannot run device type 'iPhone 16'"),
            ("platform=watchOS Simulator,name=Apple Watch Ultra 2 (49mm)", "no watchOS  simulator runtime on this host (available: none)"),
            ("id=00000000-0000-0000-0000-000000000000", "no available simulator with id 00000000-0000-0000-0000-000000000000"),
        ]
        for (text, message) in cases {
            let d = try XcodeDestination.parse(text)
            XCTAssertThrowsError(try control.decide(destination: d, devices: devices, deviceTypes: types, runtimes: runtimes, reuse: false, createName: "n"), text) { error in
                let e = error as? RemoteShellError
                XCTAssertEqual(e?.kind, .toolchain, text)
                XCTAssertTrue(e?.message.contains(message) == true, "\(text): \(e?.message ?? "\(error)")")
            }
        }
        XCTAssertThrowsError(try control.decide(destination: .macOS(arch: nil, variant: nil), devices: devices, deviceTypes: types, runtimes: runtimes, reuse: false, createName: "n")) {
            XCTAssertTrue($0 is XcodeDestinationError)
        }
    }

    func testDeviceNamesAndCreatedUDID() {
        XCTAssertEqual(SimulatorControl.deviceName(jobID: "cache-contract#s1of2"), "xcfleet cache-contract#s1of2")
        XCTAssertEqual(SimulatorControl.deviceName(jobID: "a'b c;$(x)"), "xcfleet a_b_c___x_")
        XCTAssertEqual(SimulatorControl.parseCreatedUDID("9F1C2B3A-4D5E-6F70-8192-A3B4C5D6E7F8\n"), "9F1C2B3A-4D5E-6F70-8192-A3B4C5D6E7F8")
        XCTAssertEqual(SimulatorControl.parseCreatedUDID("warning: something\r\n9F1C2B3A-4D5E-6F70-8192-A3B4C5D6E7F8\r\n"), "9F1C2B3A-4D5E-6F70-8192-A3B4C5D6E7F8")
        XCTAssertNil(SimulatorControl.parseCreatedUDID("An error was encountered processing the command (domain=com.apple.CoreSimulator.SimError, code=403)"))
        XCTAssertNil(SimulatorControl.parseCreatedUDID(""))
    }

    func testWedgeMarkersFoundAcrossChunkBoundaries() {
        XCTAssertEqual(SimulatorControl.wedgeMarker(in: "xcodebuild: error: Failed to install or launch the test runner. (Underlying Error: …)"),
                       "Failed to install or launch the test runner")
        XCTAssertEqual(SimulatorControl.wedgeMarker(in: "An error was encountered processing the command (domain=com.apple.CoreSimulator.SimError, code=405):\nUnable to boot the Simulator."), "Unable to boot")
        XCTAssertEqual(SimulatorControl.wedgeMarker(in: "The request to boot was denied"), "The request to boot was denied")
        XCTAssertNil(SimulatorControl.wedgeMarker(in: "Test Case '-[A.B testC]' failed (0.1 seconds)."))

        let text = Array("Testing started\n2025-06-01 12:00:00.000 xcodebuild[1:2] Failed to install or launch the test runner\n".utf8)
        for size in [1, 3, 7, 64, text.count] {
            var detector = WedgeDetector()
            var i = 0
            while i < text.count { detector.consume(Array(text[i..<min(text.count, i + size)])); i += size }
            XCTAssertEqual(detector.found, "Failed to install or launch the test runner", "chunk size \(size)")
        }
        var clean = WedgeDetector()
        clean.consume(Array("Test Suite 'All tests' passed\n".utf8))
        XCTAssertNil(clean.found)
    }
}
