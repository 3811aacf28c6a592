import Foundation
import XCFleetModel

/// Facts about a run's pushes for the reports (pure, from the collated report alone).
public struct PushSummary: Equatable, Sendable {
    public struct Row: Equatable, Sendable {
        public var jobID: String
        public var attempt: Int
        public var push: PushRecord
    }

    /// One row per attempt that recorded a push, in report order.
    public var rows: [Row]

    public init(_ report: RunReport) {
        rows = report.suites.flatMap { s in
            s.jobs.flatMap { j in j.attempts.compactMap { a in a.push.map { Row(jobID: j.planned.jobID, attempt: a.number, push: $0) } } }
        }
    }

    /// `3 pushes · 18.4 kB sent: 12 of 6,000 files (the hosts had the rest)`.
    public var line: String {
        let bytes = rows.reduce(0) { $0 + $1.push.bytesSent }
        let sent = rows.reduce(0) { $0 + $1.push.filesSent }
        let total = rows.reduce(0) { $0 + $1.push.totalFiles }
        let pushes = "\(rows.count) push\(rows.count == 1 ? "" : "es")"
        if sent == 0 { return "\(pushes) · nothing sent: the hosts had all \(PushRecord.count(total)) files" }
        let rest = sent < total ? " (the hosts had the rest)" : ""
        return "\(pushes) · \(PushRecord.bytes(bytes)) sent: \(PushRecord.count(sent)) of \(PushRecord.count(total)) files\(rest)"
    }

    /// summary.md: a folded table, one row per attempt (empty when nothing was pushed).
    package func markdown(limit: Int) -> [String] {
        guard !rows.isEmpty else { return [] }
        var out = ["<details><summary>Pushes: \(ReportText.markdown(line))</summary>", "", "| Job | Attempt | Host | Push |", "|---|--:|---|---|"]
        for r in rows.prefix(limit) {
            out.append("| \(ReportText.markdown(r.jobID)) | \(r.attempt) | \(ReportText.markdown(r.push.host)) | \(ReportText.markdown(r.push.summary)) |")
        }
        if rows.count > limit { out.append("| … and \(rows.count - limit) more | | | |") }
        return out + ["", "</details>", ""]
    }

    /// report.html: a folded table, one row per attempt (empty when nothing was pushed).
    package var html: String {
        guard !rows.isEmpty else { return "" }
        let h = ReportText.html
        var b = "<details><summary>Pushes: \(h(line))</summary><div class=\"table-wrap\"><table><thead><tr><th>Job</th><th class=\"num\">Attempt</th><th>Host</th><th>Push</th><th class=\"num\">Bytes</th><th class=\"num\">Files sent</th><th class=\"num\">Files</th></tr></thead><tbody>\n"
        for r in rows {
            let p = r.push
            b += "<tr><td>\(h(r.jobID))</td><td class=\"num\">\(r.attempt)</td><td>\(h(p.host))</td><td>\(h(p.summary))</td><td class=\"num\">\(p.bytesSent)</td><td class=\"num\">\(p.filesSent)</td><td class=\"num\">\(p.totalFiles)</td></tr>\n"
        }
        return b + "</tbody></table></div></details>\n"
    }
}
