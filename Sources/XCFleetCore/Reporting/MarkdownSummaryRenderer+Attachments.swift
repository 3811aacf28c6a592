import Foundation
import XCFleetModel

extension MarkdownSummaryRenderer {
    /// ` · attachments: [shot.png (12 KiB)](attachments/…)`: relative links into the run directory
    /// (names escaped; an unsafe path is shown, not linked); empty when there are none.
    static func attachmentLinks(_ files: [AttachmentFile]) -> String {
        guard !files.isEmpty else { return "" }
        let links = files.map { f -> String in
            let label = ReportText.markdown(ReportAttachments.label(f))
            guard let path = ReportAttachments.linkablePath(f.path) else { return label }
            return "[\(label)](\(path))"
        }
        return " · attachments: " + links.joined(separator: ", ")
    }

    /// The failure lines of a job's attachments that no test claimed and of what was left out.
    static func attachmentLines(_ job: JobReport) -> [String] {
        var lines: [String] = []
        let unclaimed = ReportAttachments.unclaimed(job)
        if !unclaimed.isEmpty {
            lines.append("job \(ReportText.markdown(job.planned.jobID))" + attachmentLinks(unclaimed))
        }
        let leftOut = ReportAttachments.leftOut(job)
        if !leftOut.isEmpty {
            let shown = leftOut.prefix(5).map { ReportText.markdown(ReportAttachments.label($0)) }.joined(separator: "; ")
            lines.append("job \(ReportText.markdown(job.planned.jobID)) — attachments not fetched: \(shown)" + (leftOut.count > 5 ? "; …" : ""))
        }
        return lines
    }
}
