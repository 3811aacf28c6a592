import XCTest
@testable import XCFleetBasics
@testable import XCFleetModel
@testable import XCFleetCore
import XCFleetTestSupport

/// Inputs the fuzzers (fuzz/, docs/fuzzing.md) found, minimised into tests over the same API.
final class FuzzRegressionTests: XCTestCase {
    /// `fuzz-reports` (compare mode, 150 s session): a probe metric whose unit came from test
    /// output (`XCFLEET-METRIC … unit=<b>@team`) reached compare.md raw, in the Base, Head and
    /// Change columns: HTML in a pull-request comment, a live mention, and `|` splitting the table.
    func testMetricUnitsFromTestOutputAreEscapedInCompareMarkdown() throws {
        let base = SampleReports.probe
        var head = base
        for j in head.suites[0].jobs.indices {
            for m in head.suites[0].jobs[j].attempts[0].metrics.indices {
                head.suites[0].jobs[j].attempts[0].metrics[m].unit = "<b>x</b>|@team"
                head.suites[0].jobs[j].attempts[0].metrics[m].value += 1
            }
        }
        var baseHostile = base
        for j in baseHostile.suites[0].jobs.indices {
            for m in baseHostile.suites[0].jobs[j].attempts[0].metrics.indices {
                baseHostile.suites[0].jobs[j].attempts[0].metrics[m].unit = "<b>x</b>|@team"
            }
        }
        let c = RunComparison.compare(base: baseHostile, head: head)
        XCTAssertFalse(c.metricChanges.isEmpty)
        let md = RunComparisonRenderer.markdown(c)
        XCTAssertFalse(md.contains("<"), md)
        XCTAssertFalse(md.contains("@team"), md)
        XCTAssertTrue(md.contains("&lt;b&gt;x&lt;/b&gt;\\|@\u{200B}team"), md)
        // Every row of the metrics table keeps its 7 columns.
        for row in md.split(separator: "\n") where row.hasPrefix("| ") && row.contains("team") {
            XCTAssertEqual(row.replacingOccurrences(of: "\\|", with: "").filter { $0 == "|" }.count, 8, String(row))
        }
    }
}
