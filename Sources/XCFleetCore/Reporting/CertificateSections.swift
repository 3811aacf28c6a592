import Foundation
import XCFleetModel

/// The certificate section of summary.md and report.html: per suite that runs a contract against
/// a team's implementation, the contract version, the ids claimed, each id's status with the
/// tests behind it, and the team's mutants. Everything from the plan or a host is escaped.
package enum CertificateSections {
    package static func markdown(_ r: RunReport) -> [String] {
        guard let certificates = r.certificates, !certificates.isEmpty else { return [] }
        let md = ReportText.markdown
        var out: [String] = []
        for c in certificates {
            let verdict = c.problems.isEmpty ? "holds" : "does not hold: " + c.problems.joined(separator: ", ")
            out.append("### Certificate: \(md(c.module)) under \(md(c.contract)) — \(md(verdict))")
            out.append("")
            out.append("Suite **\(md(c.suite))** · package \(md(c.package)) · claimed: \(md(c.claimed.joined(separator: ", ")))")
            out.append("")
            out.append("| Id | Status | Tests |")
            out.append("|---|---|---|")
            for id in c.ids {
                let tests = id.tests.isEmpty ? "—" : id.tests.map { "\($0.test) (\($0.status))" }.joined(separator: ", ")
                out.append("| \(md(id.id)) | \(md(id.status.rawValue)) | \(md(tests)) |")
            }
            if !c.mutants.isEmpty {
                out.append("")
                out.append("Mutants: " + c.mutants.map { "\($0.id)\($0.contract.map { " (\($0))" } ?? "") \($0.killed ? "killed" : "**\($0.outcome)**")" }.map(md).joined(separator: ", "))
            }
            out.append("")
        }
        return out
    }

    package static func html(_ r: RunReport) -> String {
        guard let certificates = r.certificates, !certificates.isEmpty else { return "" }
        let h = ReportText.html
        var b = "<section id=\"certificate\">\n<h2>Certificate</h2>\n"
        b += "<p class=\"note\">A contract run against a team's own implementation. A claimed id passes only when every test behind it passed; an unclaimed id is never counted as passed.</p>\n"
        for c in certificates {
            let verdict = c.problems.isEmpty ? "holds" : "does not hold: " + c.problems.joined(separator: ", ")
            b += "<h3>\(h(c.module)) under \(h(c.contract)) — \(h(verdict))</h3>\n"
            b += "<p>Suite <strong>\(h(c.suite))</strong> · package \(h(c.package)) · claimed: \(h(c.claimed.joined(separator: ", ")))</p>\n"
            b += "<div class=\"table-wrap\"><table class=\"certificate\"><thead><tr><th>Id</th><th>Status</th><th>Tests</th></tr></thead><tbody>\n"
            for id in c.ids {
                let tests = id.tests.isEmpty ? "—" : id.tests.map { "\(h($0.test)) (\(h($0.status)))" }.joined(separator: "<br>")
                b += "<tr><td><span class=\"chip \(id.id.hasPrefix("K") ? "k" : "c")\">\(h(id.id))</span></td><td>\(h(id.status.rawValue))</td><td>\(tests)</td></tr>\n"
            }
            b += "</tbody></table></div>\n"
            if !c.mutants.isEmpty {
                b += "<p>Mutants: " + c.mutants.map { "\(h($0.id))\($0.contract.map { " (\(h($0)))" } ?? "") \($0.killed ? "killed" : "<strong>\(h($0.outcome))</strong>")" }.joined(separator: ", ") + "</p>\n"
            }
        }
        return b + "</section>\n"
    }
}
