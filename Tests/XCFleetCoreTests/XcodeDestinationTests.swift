import Foundation
import XCTest
@testable import XCFleetBasics
@testable import XCFleetModel
@testable import XCFleetCore
import XCFleetTestSupport

final class XcodeDestinationTests: XCTestCase {
    func testParsesTheThreeForms() throws {
        XCTAssertEqual(try XcodeDestination.parse("platform=iOS Simulator,name=iPhone 16,OS=18.4"),
                       .simulator(platform: "iOS Simulator", name: "iPhone 16", os: "18.4"))
        XCTAssertEqual(try XcodeDestination.parse(" platform = ios simulator , name = iPad Air 11-inch (M2) "),
                       .simulator(platform: "iOS Simulator", name: "iPad Air 11-inch (M2)", os: nil))
        XCTAssertEqual(try XcodeDestination.parse("platform=iOS Simulator,name=iPhone 16,OS=latest"),
                       .simulator(platform: "iOS Simulator", name: "iPhone 16", os: "latest"))
        XCTAssertEqual(try XcodeDestination.parse("id=5b2e9c4d-8f17-4a63-b0d2-91c7e5a3f408"),
                       .simulatorID(platform: nil, udid: "5B2E9C4D-8F17-4A63-B0D2-91C7E5A3F408"))
        XCTAssertEqual(try XcodeDestination.parse("platform=tvOS Simulator,id=7E6D5C4B-3A29-4187-96F5-E4D3C2B1A098"),
                       .simulatorID(platform: "tvOS Simulator", udid: "7E6D5C4B-3A29-4187-96F5-E4D3C2B1A098"))
        XCTAssertEqual(try XcodeDestination.parse("platform=macOS"), .macOS(arch: nil, variant: nil))
        XCTAssertEqual(try XcodeDestination.parse("platform=macOS,arch=arm64"), .macOS(arch: "arm64", variant: nil))
    }

    func testXcodebuildValues() throws {
        XCTAssertEqual(try XcodeDestination.parse("platform=iOS Simulator,name=iPhone 16,OS=18.4").xcodebuildValue(udid: "U-1"), "platform=iOS Simulator,id=U-1")
        XCTAssertEqual(try XcodeDestination.parse("id=ABC-1").xcodebuildValue(udid: "ABC-1"), "id=ABC-1")
        XCTAssertEqual(try XcodeDestination.parse("platform=tvOS Simulator,id=ABC-1").xcodebuildValue(udid: "ABC-1"), "platform=tvOS Simulator,id=ABC-1")
        XCTAssertEqual(try XcodeDestination.parse("platform=macOS,arch=x86_64").xcodebuildValue(udid: nil), "platform=macOS,arch=x86_64")
        XCTAssertFalse(try XcodeDestination.parse("platform=macOS").needsSimulator)
        XCTAssertTrue(try XcodeDestination.parse("id=ABC").needsSimulator)
        XCTAssertEqual(try XcodeDestination.parse("platform=visionOS Simulator,name=Apple Vision Pro").runtimePlatform, "xrOS")
    }

    func testRefusesBadDestinationsWithWhatToFix() {
        let bad: [(String, String)] = [
            ("platform=iOS Simulator", "name= is missing"),
            ("name=iPhone 16", "platform= is missing"),
            ("platform=Android,name=Pixel", "platform 'Android' is not one xcfleet drives"),
            ("platform=iOS Simulator,name=iPhone 16,colour=red", "unknown key 'colour'"),
            ("platform=iOS Simulator,name=iPhone 16,name=iPhone 15", "'name' given twice"),
            ("platform=iOS Simulator,name=", "'name' has no value"),
            ("platform=iOS Simulator,iPhone 16", "'iPhone 16' is not key=value"),
            ("platform=macOS,name=My Mac", "'name' does not apply to platform=macOS"),
            ("id=ABC,name=iPhone 16", "either id= or name="),
            ("id=$(reboot)", "is not a simulator UDID"),
            ("", "'' is not key=value"),
        ]
        for (text, problem) in bad {
            XCTAssertThrowsError(try XcodeDestination.parse(text), text) { error in
                let e = error as? XcodeDestinationError
                XCTAssertNotNil(e, text)
                XCTAssertTrue(e?.problem.contains(problem) == true, "\(text): \(e?.problem ?? "")")
                XCTAssertTrue("\(error)".contains("write it like"), "\(error)")
            }
        }
    }
}
