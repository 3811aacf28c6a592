import Foundation

/// Writes every report of a run directory from a collated `RunReport`, and rebuilds it from
/// `events.jsonl` alone (`xcfleet report RUN_DIR`).
public enum ReportWriter {
    public static func writeAll(_ report: RunReport, to directory: URL) throws {
        try json(report).write(to: directory.appendingPathComponent("report.json"))
        try junit(report).write(to: directory.appendingPathComponent("junit.xml"))
    }

    public static func json(_ report: RunReport) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(report) + Data([0x0A])
    }

    public static func junit(_ report: RunReport) -> Data {
        Data("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites/>\n".utf8) // TEMPORARY until the reports branch lands
    }

    /// Collates the run directory's `events.jsonl` (with the mutant descriptions of the templates, when found).
    public static func rebuild(runDirectory: URL) throws -> RunReport {
        let url = runDirectory.appendingPathComponent("events.jsonl")
        guard FileManager.default.fileExists(atPath: url.path) else { throw EventLogError.missing(url.path) }
        let events = try EventLog.read(url)
        var faults: [String: String] = [:]
        if let root = try? TemplateRoot.locate(), let mutants = try? MutantSpec.all(in: root) {
            for m in mutants { faults[m.id] = m.fault }
        }
        return Collator(mutantFaults: faults).collate(events)
    }

    public static func writeComparison(base: RunReport, head: RunReport, to directory: URL) throws -> String {
        "comparison: not built yet"
    }
}
