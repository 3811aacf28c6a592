import Foundation
import XCFleetBasics
import XCFleetModel
import XCFleetCore

extension DurationHistory {
    /// Reads `path`, a `report.json` or a run directory holding one. Reads the file synchronously:
    /// call it before the run starts, not from the concurrency pool.
    public init(contentsOf path: String) throws {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw DurationHistoryError.missing(path: path)
        }
        let file = isDirectory.boolValue ? (path as NSString).appendingPathComponent("report.json") : path
        let data: Data
        do {
            data = try InputFile.read(file, limit: 256 << 20)
        } catch {
            throw DurationHistoryError.unreadable(path: file, reason: error.reason)
        }
        let report: RunReport
        do {
            report = try JSONDecoder().decode(RunReport.self, from: data)
        } catch {
            throw DurationHistoryError.notAReport(path: file, reason: DecodingErrorText.line(error))
        }
        self.init(report: report)
    }
}
