import Foundation
@testable import XCFleetKit

// History URLs (`--history-url`, `XCFLEET_HISTORY_URL`) on arbitrary text. A password marker is
// put into the input at a place the first byte picks: whatever the text, a URL that is refused
// is refused with one line that never shows the marker, and is never taken for a file; one that
// is accepted is a postgresql:// URL; redaction and the password check never trap.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHistoryURL(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    var input = FuzzInput(data, size)
    let at = Int(input.byte())
    let text = String(decoding: input.remaining, as: UTF8.self)
    let marker = "pw_not_secret_marker"
    let cut = text.index(text.startIndex, offsetBy: min(at, text.count))
    let url = String(text[..<cut]) + marker + String(text[cut...])
    let runs = URL(fileURLWithPath: "/nonexistent/fuzz/.xcfleet/runs")
    for fromEnvironment in [false, true] {
        do {
            let location = try HistoryLocation.resolve(noHistory: false, url: fromEnvironment ? nil : url, database: "/nonexistent/db.sqlite",
                                                       runsDirectory: runs, environment: fromEnvironment ? ["XCFLEET_HISTORY_URL": url] : [:])
            guard case .postgres(let accepted)? = location else { invariant(false, "a URL became \(String(describing: location))"); return 0 }
            invariant(accepted == url && HistoryLocation.isPostgres(url), "an accepted URL is a postgresql:// URL")
        } catch let error as HistoryLocationError {
            invariant(!HistoryLocation.isPostgres(url), "a postgresql:// URL was refused: \(error)")
            invariant(!error.message.contains(marker), "the refusal shows the password marker")
            invariant(!error.message.contains("\n") && !error.message.contains("\r"), "the refusal spans lines")
            invariant(error.message.hasPrefix(fromEnvironment ? "XCFLEET_HISTORY_URL " : "--history-url "), "the refusal names its source")
            invariant(error.message.contains("--history-db FILE"), "the refusal names the fix")
        } catch {
            invariant(false, "only HistoryLocationError is thrown: \(error)")
        }
    }
    _ = HistoryLocation.redact(url)
    _ = HistoryLocation.secrets(in: url)
    if HistoryLocation.hasPassword(url) { invariant(url.contains(":") || url.lowercased().contains("password="), "a password needs a place") }
    return 0
}
