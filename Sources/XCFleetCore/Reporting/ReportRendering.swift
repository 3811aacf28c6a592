import Foundation
import XCFleetModel

/// Turns a collated `RunReport` into one artifact of the run directory. Pure: the same report
/// always gives byte-identical output (sorted keys, fixed number formatting, no clock).
public protocol ReportRendering: Sendable {
    /// The artifact's file name inside the run directory (`report.json`, `junit.xml`, …).
    var fileName: String { get }
    func render(_ report: RunReport) throws -> Data
}

/// The standard set of run artifacts.
public enum ReportBundle {
    /// The renderers xcfleet writes after every run, in this order.
    public static var standard: [any ReportRendering] {
        [JSONReportRenderer(), JUnitReportRenderer(), MarkdownSummaryRenderer(), HTMLReportRenderer()]
    }

    /// Renders every standard artifact: file name → bytes.
    public static func render(_ report: RunReport) throws -> [String: Data] {
        var files: [String: Data] = [:]
        for renderer in standard {
            files[renderer.fileName] = try renderer.render(report)
        }
        return files
    }
}
