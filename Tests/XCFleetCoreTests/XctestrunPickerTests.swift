import Foundation
import XCTest
@testable import XCFleetBasics
@testable import XCFleetModel
@testable import XCFleetCore
import XCFleetTestSupport

/// Choosing the `.xctestrun` from a `Build/Products` listing (`ls -1t`: newest first). The names are
/// in the form Xcode 15/16 write them (`<scheme>[_<test plan>]_<sdk><version>[-<arch>…].xctestrun`),
/// typed by hand after that form; no Mac here.
final class XctestrunPickerTests: XCTestCase {
    let products = "/Users/ci/xcfleet/builds/k/DerivedData/Build/Products"

    func pick(_ listing: [String], _ destination: String, schemes: [String] = ["xcfleet-cache-contract-Package", "CacheContractTests"]) throws -> String {
        try XctestrunPicker.choose(listing: listing.joined(separator: "\n") + "\n", destination: try XcodeDestination.parse(destination),
                                   preferredSchemes: schemes, productsPath: products)
    }

    func testNamesSplitIntoSchemeSDKAndArchs() throws {
        let n = try XCTUnwrap(XctestrunPicker.Name("App_UnitTests_iphonesimulator18.4-arm64-x86_64.xctestrun"))
        XCTAssertEqual(n.schemePart, "App_UnitTests")
        XCTAssertEqual(n.sdk, "iphonesimulator")
        XCTAssertEqual(n.versionAndArchs, "18.4-arm64-x86_64")
        XCTAssertEqual(XctestrunPicker.Name("xcfleet-cache-contract-Package_macosx15.5-arm64.xctestrun")?.sdk, "macosx")
        XCTAssertNil(XctestrunPicker.Name("Debug"))
        XCTAssertNil(XctestrunPicker.Name("noscheme.xctestrun"))
        XCTAssertNil(XctestrunPicker.Name("_macosx15.5.xctestrun"))
        XCTAssertNil(XctestrunPicker.Name("a/b_macosx15.xctestrun"))
    }

    func testPicksByPlatformThenSchemeThenNewest() throws {
        let listing = [
            "Debug-iphonesimulator",
            "xcfleet-cache-contract-Package_iphonesimulator18.4-arm64-x86_64.xctestrun",  // newest
            "xcfleet-cache-contract-Package_macosx15.5-arm64.xctestrun",
            "CacheContract_macosx15.5-arm64.xctestrun",
            "xcfleet-cache-contract-Package_iphonesimulator18.2-arm64-x86_64.xctestrun",
            "xcfleet-cache-contract-Package_appletvsimulator18.4-arm64.xctestrun",
            "PackageFrameworks",
        ]
        XCTAssertEqual(try pick(listing, "platform=iOS Simulator,name=iPhone 16,OS=18.4"),
                       "xcfleet-cache-contract-Package_iphonesimulator18.4-arm64-x86_64.xctestrun")
        XCTAssertEqual(try pick(listing, "platform=macOS"), "xcfleet-cache-contract-Package_macosx15.5-arm64.xctestrun")
        XCTAssertEqual(try pick(listing, "platform=macOS", schemes: ["CacheContract"]), "CacheContract_macosx15.5-arm64.xctestrun")
        XCTAssertEqual(try pick(listing, "platform=tvOS Simulator,name=Apple TV"), "xcfleet-cache-contract-Package_appletvsimulator18.4-arm64.xctestrun")
        // A bare id= could be any simulator platform: the newest simulator one.
        XCTAssertEqual(try pick(listing, "id=5B2E9C4D-8F17-4A63-B0D2-91C7E5A3F408"),
                       "xcfleet-cache-contract-Package_iphonesimulator18.4-arm64-x86_64.xctestrun")
        // An unknown scheme falls back to the newest of the platform.
        XCTAssertEqual(try pick(listing, "platform=macOS", schemes: ["Other"]), "xcfleet-cache-contract-Package_macosx15.5-arm64.xctestrun")
    }

    func testTestPlanVariantsBelongToTheirScheme() throws {
        // A scheme with test plans gets one file per plan: `<scheme>_<plan>_<sdk>…`; newest first.
        let listing = ["App_Smoke_iphonesimulator18.4-arm64.xctestrun", "App_Full_iphonesimulator18.4-arm64.xctestrun",
                       "AppKit-Helpers_iphonesimulator18.4-arm64.xctestrun"]
        XCTAssertEqual(try pick(listing, "platform=iOS Simulator,name=iPhone 16", schemes: ["App"]), "App_Smoke_iphonesimulator18.4-arm64.xctestrun")
        XCTAssertEqual(try pick(Array(listing.reversed()), "platform=iOS Simulator,name=iPhone 16", schemes: ["App"]), "App_Full_iphonesimulator18.4-arm64.xctestrun")
        XCTAssertEqual(try pick(listing, "platform=iOS Simulator,name=iPhone 16", schemes: ["AppKit-Helpers"]), "AppKit-Helpers_iphonesimulator18.4-arm64.xctestrun")
    }

    func testNoFittingFileNamesEveryCandidate() throws {
        XCTAssertThrowsError(try pick(["S_macosx15.5-arm64.xctestrun", "S_watchsimulator11.4-arm64.xctestrun", "Debug"],
                                      "platform=iOS Simulator,name=iPhone 16")) { error in
            XCTAssertEqual("\(error)", "no .xctestrun for iphonesimulator in \(products) (found only: S_macosx15.5-arm64.xctestrun, S_watchsimulator11.4-arm64.xctestrun); build-for-testing did not produce one for this destination")
        }
        XCTAssertThrowsError(try pick([], "platform=macOS")) { error in
            XCTAssertEqual("\(error)", "no .xctestrun for macosx in \(products) (none there); build-for-testing did not produce one for this destination")
        }
        // Host-supplied names never put control characters on a terminal.
        XCTAssertThrowsError(try pick(["bad\u{1B}[2J_x.xctestrun"], "platform=macOS")) { error in
            XCTAssertFalse("\(error)".unicodeScalars.contains { $0.value < 0x20 }, "\(error)")
        }
    }

    func testBuildDestinationsAreGenericForSimulators() throws {
        XCTAssertEqual(try XcodeDestination.parse("platform=iOS Simulator,name=iPhone 16,OS=18.4").buildValue, "generic/platform=iOS Simulator")
        XCTAssertEqual(try XcodeDestination.parse("platform=visionOS Simulator,id=ABC").buildValue, "generic/platform=visionOS Simulator")
        XCTAssertEqual(try XcodeDestination.parse("platform=macOS,arch=arm64").buildValue, "platform=macOS,arch=arm64")
        XCTAssertEqual(try XcodeDestination.parse("id=abc").buildValue, "id=ABC")
    }
}
