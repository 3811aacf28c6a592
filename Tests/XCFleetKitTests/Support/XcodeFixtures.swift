import Foundation
import XCTest

/// The hand-written Apple samples in `Fixtures/xcode/` (see each file's `_comment`: written from
/// Apple's documented shapes, not recorded on a Mac).
enum XcodeFixtures {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/xcode")

    static func data(_ name: String) throws -> Data {
        try Data(contentsOf: directory.appendingPathComponent(name))
    }

    static func text(_ name: String) throws -> String {
        String(decoding: try data(name), as: UTF8.self)
    }

    /// `xcodebuild -version` output of a given Xcode.
    static func versionOutput(_ version: String, _ build: String) -> String {
        "Xcode \(version)\nBuild version \(build)\n"
    }
}
