import Foundation
import XCTest

/// Golden files under `Tests/Fixtures/golden`: the output must match the checked-in bytes.
/// `XCFLEET_UPDATE_GOLDEN=1` rewrites the file from the output instead (then review the diff
/// with `git diff Tests/Fixtures/golden` before committing it).
package enum GoldenFile {
    package static var updating: Bool { ProcessInfo.processInfo.environment["XCFLEET_UPDATE_GOLDEN"] == "1" }

    package static func url(_ name: String) -> URL {
        TestPaths.fixtures.appendingPathComponent("golden").appendingPathComponent(name)
    }

    /// Fails when `actual` differs from `golden/<name>`, naming the first differing line rather
    /// than printing both texts whole (a report.html is long).
    package static func assertMatches(_ actual: String, _ name: String, what: String,
                                      file: StaticString = #filePath, line: UInt = #line) throws {
        let url = url(name)
        if updating {
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(actual.utf8).write(to: url)
        }
        let hint = "if intended, rerun with XCFLEET_UPDATE_GOLDEN=1 and review the diff (git diff \(relative(url)))"
        guard let golden = try? String(contentsOf: url, encoding: .utf8) else {
            XCTFail("\(what): no golden file \(relative(url)); \(hint)", file: file, line: line)
            return
        }
        guard actual != golden else { return }
        XCTFail("\(what) changed (\(firstDifference(golden, actual))); \(hint)", file: file, line: line)
    }

    /// `line N: expected «…», got «…»` for the first line that differs (or the length difference).
    package static func firstDifference(_ expected: String, _ actual: String) -> String {
        let e = expected.split(separator: "\n", omittingEmptySubsequences: false)
        let a = actual.split(separator: "\n", omittingEmptySubsequences: false)
        for i in 0..<max(e.count, a.count) {
            let el = i < e.count ? "«\(e[i])»" : "end of file"
            let al = i < a.count ? "«\(a[i])»" : "end of output"
            if el != al { return "line \(i + 1): expected \(clip(el)), got \(clip(al))" }
        }
        return "same lines, different bytes"
    }

    private static func clip(_ s: String) -> String { s.count > 300 ? String(s.prefix(300)) + "…" : s }

    private static func relative(_ url: URL) -> String {
        let root = TestPaths.packageRoot.standardizedFileURL.path + "/"
        let path = url.standardizedFileURL.path
        return path.hasPrefix(root) ? String(path.dropFirst(root.count)) : path
    }
}
