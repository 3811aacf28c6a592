import Foundation
import XCFleetModel

extension Collator {
    /// Gives each attachment to the test it names (its last execution in the attempt); what names
    /// no test of the attempt, and what was left out, stays on the attempt.
    static func attach(_ collected: AttachmentsCollected, to report: inout AttemptReport) {
        guard !collected.isEmpty else { return }
        var last: [String: Int] = [:]
        for (i, t) in report.tests.enumerated() { last[t.id.shortDescription] = i }
        var rest = AttachmentsCollected(leftOut: collected.leftOut)
        for file in collected.files {
            if let test = file.test, let i = last[test] {
                report.tests[i].attachments = (report.tests[i].attachments ?? []) + [file]
            } else {
                rest.files.append(file)
            }
        }
        report.attachments = rest.isEmpty ? nil : rest
    }
}
