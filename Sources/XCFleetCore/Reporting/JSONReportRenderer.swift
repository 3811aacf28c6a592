import Foundation
import XCFleetBasics
import XCFleetModel

/// `report.json`: the `RunReport` as sorted, pretty-printed JSON. Non-finite numbers (a probe may
/// print `nan`) are written as the strings `"nan"`, `"inf"`, `"-inf"`; `decode` reads them back.
/// Written by `SortedJSONEncoder` (streamed, the same bytes as `encoder()` writes).
public struct JSONReportRenderer: ReportRendering {
    public let fileName = "report.json"

    public init() {}

    public func render(_ report: RunReport) throws -> Data {
        try SortedJSONEncoder().encode(report)
    }

    /// The encoder every xcfleet JSON artifact uses (sorted keys, pretty, `/` unescaped).
    public static func encoder() -> JSONEncoder { SortedJSONEncoder.foundation() }

    /// Reads a `report.json` written by `render` (e.g. the base run of `xcfleet compare`).
    public static func decode(_ data: Data) throws -> RunReport {
        let d = JSONDecoder()
        d.nonConformingFloatDecodingStrategy = .convertFromString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        return try d.decode(RunReport.self, from: data)
    }
}
