import Foundation
import XCFleetBasics
import XCFleetModel

/// The failures of a report as a reader of a terminal needs them (`xcfleet parse`): each failed
/// test once, with every failure's location — mapped into the repository when it could be, else
/// as the log printed it — and message; then crashes not already told on a test, build errors,
/// and failures no test claimed. Lines are plain text: the caller sanitizes and styles them.
public enum FailureListing {
    /// Lines of one failure's message shown (the rest is in the reports).
    public static let messageLines = 4

    public static func lines(_ report: RunReport) -> [ConsoleLine] {
        var out: [ConsoleLine] = []
        for suite in report.suites {
            for job in suite.jobs where job.planned.mutant == nil {
                let where_ = "\(suite.spec.name)@\(job.decisive?.host ?? "unscheduled")"
                var told: [String] = []
                for o in ReportFacts.outcomes(job) where o.status == .failed {
                    let note = o.quarantined ? " (quarantined)" : ""
                    out.append(ConsoleLine("✘ \(o.id.shortDescription)\(note)  [\(where_)]", o.quarantined ? .warning : .failure))
                    let failures = o.failures.isEmpty ? [FailureDetail(message: "failed")] : o.failures
                    for f in failures {
                        out += detail(f)
                        told.append(f.message)
                    }
                }
                guard let d = job.decisive else { continue }
                for c in d.crashes where !told.contains(where: { $0.contains(c) }) {
                    out.append(ConsoleLine("✘ crash  [\(where_)]", .failure))
                    out += message(c)
                }
                for b in d.buildErrors {
                    out.append(ConsoleLine("✘ build error  [\(where_)]", .failure))
                    out += detail(b)
                }
                for u in d.unattributedFailures {
                    out.append(ConsoleLine("✘ failure outside any test  [\(where_)]", .failure))
                    out += detail(u)
                }
            }
        }
        if !out.isEmpty { out.append(ConsoleLine("")) }
        return out
    }

    /// `    at PLACE` then the message, indented.
    static func detail(_ f: FailureDetail) -> [ConsoleLine] {
        var out: [ConsoleLine] = []
        if let place = place(f) { out.append(ConsoleLine("    at \(place)", .dim)) }
        return out + message(f.message)
    }

    static func message(_ text: String) -> [ConsoleLine] {
        let all = text.split(whereSeparator: \.isNewline).map(String.init).filter { !$0.allSatisfy(\.isWhitespace) }
        var out = all.prefix(messageLines).map { ConsoleLine("    " + $0) }
        if all.count > messageLines { out.append(ConsoleLine("    … \(all.count - messageLines) more lines in the report", .dim)) }
        return out
    }

    /// The mapped repository location, else the file and line as printed (never `<unknown>` or line 0).
    static func place(_ f: FailureDetail) -> String? {
        ReportText.location(f)
    }
}
