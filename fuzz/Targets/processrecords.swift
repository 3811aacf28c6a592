import Foundation
@testable import XCFleetKit

// What the process-record reaper on a host says it did (`ProcessRecordReport`, read from the lease
// command's reply as `HostLeaseManager.perform` splits it): the input is the reply's text.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzProcessRecords(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let input = FuzzInput(data, size)
    let text = String(decoding: input.remaining, as: UTF8.self)
    let lines = text.split(separator: "\n").map { $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init) }
    for report in ProcessRecordReport.reports(in: lines) {
        let line = report.text
        invariant(!line.contains("\n") && !line.contains("\t"), "a report is one line")
        invariant(line.unicodeScalars.allSatisfy { (0x20...0x7E).contains($0.value) }, "a report is printable ASCII: \(line.debugDescription)")
        switch report {
        case .reaped(let token, let pgid, let status):
            invariant(!token.isEmpty && token.count <= 200, "a reaped record names its token")
            invariant(!pgid.isEmpty && pgid.allSatisfy(\.isASCII) && Int(pgid) != nil, "a reaped record's pgid is a number")
            invariant(ProcessRecordReport.statuses.contains(status), "a known status")
        case .ignored(let token, let why):
            invariant(!token.isEmpty && token.count <= 200, "an ignored record names its token")
            invariant(why.count <= 200, "the reason is short")
        }
        // A report read back from its own reply line is the same report.
        let fields: [String]
        switch report {
        case .reaped(let t, let g, let s): fields = ["reaped", t, g, s]
        case .ignored(let t, let w): fields = ["ignored", t, w]
        }
        if case .ignored(_, let w) = report, w.isEmpty { continue }
        invariant(ProcessRecordReport.parse(fields) == report, "a report survives its own line")
    }
    return 0
}
