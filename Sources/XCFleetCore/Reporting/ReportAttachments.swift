import Foundation
import XCFleetBasics
import XCFleetModel

/// What every renderer shows of a job's attachments (docs/attachments.md): the decisive attempt's
/// files per test, the files no test claimed, what was left out. Paths are checked again where they
/// are rendered (an edited `events.jsonl` may name anything): only `attachments/…` made of plain
/// `A-Z a-z 0-9 . _ -` components becomes a link or an image.
package enum ReportAttachments {
    /// The files each test left in the job's decisive attempt (its last execution that has any),
    /// once per job: renderers look tests up here, never by scanning the attempt per test.
    package static func byTest(_ job: JobReport) -> [TestIdentifier: [AttachmentFile]] {
        var out: [TestIdentifier: [AttachmentFile]] = [:]
        for t in job.decisive?.tests ?? [] {
            if let files = t.attachments { out[t.id] = files }
        }
        return out
    }

    /// The decisive attempt's files that no test claimed.
    package static func unclaimed(_ job: JobReport) -> [AttachmentFile] {
        job.decisive?.attachments?.files ?? []
    }

    /// What the decisive attempt did not fetch, and why.
    package static func leftOut(_ job: JobReport) -> [AttachmentLeftOut] {
        job.decisive?.attachments?.leftOut ?? []
    }

    /// `path` when it is one xcfleet writes (`attachments/<job>/<attempt>/…`), else nil.
    package static func linkablePath(_ path: String) -> String? {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count >= 4, parts.count <= 12, parts[0] == "attachments" else { return nil }
        for p in parts {
            guard !p.isEmpty, !p.hasPrefix("."), p.utf8.count <= 255,
                  p.unicodeScalars.allSatisfy({ ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || "._-".unicodeScalars.contains($0) })
            else { return nil }
        }
        return path
    }

    /// `name (12 KiB)`.
    package static func label(_ f: AttachmentFile) -> String {
        "\(f.name) (\(AttachmentSelection.size(f.bytes)))"
    }

    /// `name (30 MiB): over the per-file cap of 20 MiB`.
    package static func label(_ l: AttachmentLeftOut) -> String {
        l.name + (l.bytes.map { " (\(AttachmentSelection.size($0)))" } ?? "") + ": " + l.reason
    }

    /// The lines Jenkins' and GitLab's JUnit readers take as attachments: `[[ATTACHMENT|path]]`,
    /// the path relative to the run directory (junit.xml's own folder). Unsafe paths are left out.
    package static func junitLines(_ files: [AttachmentFile]) -> [String] {
        files.compactMap { linkablePath($0.path).map { "[[ATTACHMENT|\($0)]]" } }
    }
}
