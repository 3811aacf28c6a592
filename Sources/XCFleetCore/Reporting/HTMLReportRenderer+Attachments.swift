import Foundation
import XCFleetModel

extension HTMLReportRenderer {
    /// A test's (or a job's) attachments beside its failure: images inline (`<img src>` of the run
    /// directory's copy, which the page's policy allows: `img-src 'self'`), videos and the rest as
    /// relative links; what was left out, with why. Names are escaped; unsafe paths are not linked.
    func attachmentsBlock(_ files: [AttachmentFile], leftOut: [AttachmentLeftOut] = []) -> String {
        guard !files.isEmpty || !leftOut.isEmpty else { return "" }
        var b = "<div class=\"note\">attachments:"
        for f in files {
            let label = h(ReportAttachments.label(f))
            guard let path = ReportAttachments.linkablePath(f.path) else { b += " <span class=\"mono\">\(label)</span>"; continue }
            let href = h(path)
            switch f.kind {
            case .image:
                b += "<div><a href=\"\(href)\"><img src=\"\(href)\" alt=\"\(h(f.name))\" loading=\"lazy\" style=\"max-width:100%;max-height:240px;border:1px solid #ccc\"></a>"
                    + "<br><span class=\"mono\">\(label)</span></div>"
            case .video, .text, .other:
                b += " <a class=\"mono\" href=\"\(href)\">\(label)</a>" + (f.kind == .video ? " (video)" : "")
            }
        }
        for l in leftOut {
            b += "<div class=\"cls\">not fetched: \(h(ReportAttachments.label(l)))</div>"
        }
        return b + "</div>"
    }

    /// A row for the attachments of a job's decisive attempt that no test claimed, and what was left out.
    func attachmentsRow(_ job: JobReport, label: String) -> String? {
        let files = ReportAttachments.unclaimed(job), leftOut = ReportAttachments.leftOut(job)
        guard !files.isEmpty || !leftOut.isEmpty else { return nil }
        var row = "<tr><td><span class=\"pill skipped\">files</span></td><td class=\"test\">job \(h(job.planned.jobID))"
        if !label.isEmpty { row += " <span class=\"cls\">\(h(label))</span>" }
        row += attachmentsBlock(files, leftOut: leftOut)
        return row + "</td><td class=\"num\"></td><td class=\"num hide-sm\">\(job.attempts.count)</td></tr>\n"
    }
}
