import Foundation
import XCTest

/// The hand-written Apple samples in `Fixtures/xcode/` (see each file's `_comment`: written from
/// Apple's documented shapes, not recorded on a Mac).
package enum XcodeFixtures {
    package static let directory = TestPaths.fixtures.appendingPathComponent("xcode")

    package static func data(_ name: String) throws -> Data {
        try Data(contentsOf: directory.appendingPathComponent(name))
    }

    package static func text(_ name: String) throws -> String {
        String(decoding: try data(name), as: UTF8.self)
    }

    /// `xcodebuild -version` output of a given Xcode.
    package static func versionOutput(_ version: String, _ build: String) -> String {
        "Xcode \(version)\nBuild version \(build)\n"
    }
}
