import Foundation
import XCFleetModel

/// The quarantined tests' own sections in summary.md and report.html: every entry of the
/// quarantine with its reason, owner, expiry and what the test did in this run (an entry whose
/// test never ran says "not seen"). Everything from the file or a host is escaped.
package enum QuarantineSections {
    package static func markdown(_ r: RunReport, maxMessageLength: Int) -> [String] {
        guard let q = r.quarantine, !q.tests.isEmpty else { return [] }
        let md = ReportText.markdown
        var out = ["### Quarantined (\(q.tests.count)) — their failures do not make a gate red", ""]
        out.append("| Suite | Test | Outcome | Reason | Owner | Expires |")
        out.append("|---|---|---|---|---|---|")
        for t in q.tests {
            var outcome = outcomeText(t)
            if let f = t.firstFailure { outcome += ": " + ReportText.clip(f, maxMessageLength) }
            out.append("| \(md(t.entry.suite)) | \(md(t.entry.test)) | \(md(outcome)) | \(md(t.entry.reason)) | \(md(t.entry.owner)) | \(md(t.entry.expires)) |")
        }
        out.append("")
        return out
    }

    package static func html(_ r: RunReport) -> String {
        guard let q = r.quarantine else { return "" }
        let h = ReportText.html
        var b = "<section id=\"quarantine\" class=\"quarantine\">\n<h2>Quarantine</h2>\n"
        b += "<p class=\"note\">\(h(q.summaryLine)). Quarantined tests run and are reported; their own failures do not make a gate red.</p>\n"
        guard !q.tests.isEmpty else { return b + "</section>\n" }
        b += "<div class=\"table-wrap\"><table class=\"quarantine\"><thead><tr><th>Outcome</th><th>Test</th><th>Reason</th><th>Owner</th><th class=\"num\">Expires</th></tr></thead><tbody>\n"
        for t in q.tests {
            let pill: String
            switch t.outcome {
            case .passed: pill = "passed"
            case .failed: pill = "failed"
            case .flaky: pill = "flaky"
            case .skipped: pill = "skipped"
            case .notSeen: pill = "notrun"
            }
            b += "<tr class=\"quarantined\"><td><span class=\"pill \(pill)\">\(h(outcomeText(t)))</span></td>"
            b += "<td class=\"test\"><span class=\"cls\">\(h(t.entry.suite)) / </span><span class=\"mono\">\(h(t.entry.test))</span>"
            if let f = t.firstFailure { b += "<div class=\"fail\">\(h(f))</div>" }
            b += "</td><td class=\"test\">\(h(t.entry.reason))</td><td>\(h(t.entry.owner))</td><td class=\"num\">\(h(t.entry.expires))</td></tr>\n"
        }
        b += "</tbody></table></div>\n</section>\n"
        return b
    }

    /// `failed 2 of 3`, `passed`, `not seen`.
    package static func outcomeText(_ t: QuarantineReport.Test) -> String {
        switch t.outcome {
        case .failed, .flaky: return "\(t.outcome.rawValue) (\(t.failed) of \(t.executions) executions)"
        case .passed, .skipped, .notSeen: return t.outcome.rawValue
        }
    }
}
