import Foundation
import XCFleetModel
import XCFleetCore

/// Writes every report of a run directory from a collated `RunReport`, and rebuilds it from
/// `events.jsonl` alone (`xcfleet report RUN_DIR`).
public enum ReportWriter {
    /// report.json, junit.xml, summary.md, report.html.
    public static func writeAll(_ report: RunReport, to directory: URL) throws {
        for (name, data) in try ReportBundle.render(report) {
            try data.write(to: directory.appendingPathComponent(name), options: .atomic)
        }
    }

    public static func json(_ report: RunReport) throws -> Data {
        try JSONReportRenderer().render(report)
    }

    public static func junit(_ report: RunReport) throws -> Data {
        try JUnitReportRenderer().render(report)
    }

    /// Collates the run directory's `events.jsonl`. Mutant jobs carry their fault text in the log;
    /// only a log recorded before they did falls back to the templates' mutant descriptions.
    public static func rebuild(runDirectory: URL, root: TemplateRoot? = nil) throws -> RunReport {
        let url = runDirectory.appendingPathComponent("events.jsonl")
        guard FileManager.default.fileExists(atPath: url.path) else { throw EventLogError.missing(url.path) }
        let events = try EventLog.read(url)
        let faultless = events.contains { event in
            if case .jobPlanned(let planned) = event.body { return planned.mutant != nil && planned.mutantFault == nil }
            return false
        }
        var faults: [String: String] = [:]
        if faultless, let root = root ?? (try? TemplateRoot.locate()), let mutants = try? MutantSpec.all(in: root) {
            for m in mutants { faults[m.id] = m.fault }
        }
        return Collator(mutantFaults: faults).collate(events)
    }

    /// Writes `compare.json`, `compare.md` and `compare.html` next to the head run's reports; returns the Markdown.
    public static func writeComparison(base: RunReport, head: RunReport, to directory: URL) throws -> String {
        let comparison = RunComparison.compare(base: base, head: head)
        let markdown = RunComparisonRenderer.markdown(comparison)
        try RunComparisonRenderer.json(comparison).write(to: directory.appendingPathComponent("compare.json"), options: .atomic)
        try Data(markdown.utf8).write(to: directory.appendingPathComponent("compare.md"), options: .atomic)
        try Data(RunComparisonRenderer.htmlPage(comparison).utf8).write(to: directory.appendingPathComponent("compare.html"), options: .atomic)
        return markdown
    }
}
