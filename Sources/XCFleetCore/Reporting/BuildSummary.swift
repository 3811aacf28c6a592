import Foundation
import XCFleetModel

/// Facts about a run's builds for the reports (pure, from the collated report alone).
public struct BuildSummary: Equatable, Codable, Sendable {
    public struct Row: Equatable, Codable, Sendable {
        public var suite: String
        public var jobID: String
        public var attempt: Int
        public var build: BuildRecord
    }

    /// One row per attempt that recorded a build, in report order.
    public var rows: [Row]

    public init(_ report: RunReport) {
        rows = report.suites.flatMap { s in
            s.jobs.flatMap { j in j.attempts.compactMap { a in a.build.map { Row(suite: s.spec.name, jobID: j.planned.jobID, attempt: a.number, build: $0) } } }
        }
    }

    public func count(_ origin: BuildOrigin) -> Int { rows.filter { $0.build.origin == origin }.count }

    /// Compiler time: the seconds of builds that were not cached, minus their lock waits.
    public var compileSeconds: Double {
        rows.filter { $0.build.origin != .cached }.reduce(0) { $0 + max(0, $1.build.seconds - $1.build.waitedSeconds) }
    }

    /// `1 cold, 6 incremental, 3 cached · 18.2 s compiling`.
    public var line: String {
        "\(count(.cold)) cold, \(count(.incremental)) incremental, \(count(.cached)) cached · \(ReportText.fixed(compileSeconds, 1)) s compiling"
    }
}
