import Foundation
import XCFleetModel

/// Probe metrics folded over repetitions: one series per suite × metric × labels (without `rep`)
/// × host, with min, mean and max. Only decisive, normally finished attempts count.
package struct ProbeSummary: Sendable {
    package struct Series: Sendable {
        package var suite: String
        package var name: String
        package var unit: String
        /// Labels without `rep`, sorted by key.
        package var labels: [(key: String, value: String)]
        package var host: String
        package var values: [Double]

        package var labelText: String { labels.map { "\($0.key)=\($0.value)" }.joined(separator: " ") }
        package var finite: [Double] { values.filter(\.isFinite) }
        package var min: Double { finite.min() ?? .nan }
        package var max: Double { finite.max() ?? .nan }
        package var mean: Double {
            let f = finite
            return f.isEmpty ? .nan : f.reduce(0, +) / Double(f.count)
        }
    }

    /// One metric of one suite across hosts: what a chart or a table shows.
    package struct Group: Sendable {
        package var suite: String
        package var name: String
        package var unit: String
        package var series: [Series]
        /// A numeric label with several values (e.g. `object_bytes`): the chart's x axis.
        package var axis: String?
        package var hosts: [String] { Array(Set(series.map(\.host))).sorted() }
    }

    package var groups: [Group]

    /// Labels that count repetitions, not conditions.
    package static let repetitionLabels: Set<String> = ["rep", "repetition", "run", "iteration"]

    package init(_ report: RunReport) {
        var byKey: [String: Series] = [:]
        var order: [String] = []
        for suite in report.suites {
            for job in suite.jobs {
                guard let attempt = job.decisive, !attempt.lost else { continue }
                for m in attempt.metrics {
                    let labels = m.labels.filter { !Self.repetitionLabels.contains($0.key) }
                        .sorted { $0.key < $1.key }.map { (key: $0.key, value: $0.value) }
                    let labelText = labels.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
                    let key = [suite.spec.name, m.name, m.unit, labelText, attempt.host].joined(separator: "\u{1}")
                    if byKey[key] == nil {
                        byKey[key] = Series(suite: suite.spec.name, name: m.name, unit: m.unit, labels: labels,
                                            host: attempt.host, values: [])
                        order.append(key)
                    }
                    byKey[key]?.values.append(m.value)
                }
            }
        }
        var groups: [String: Group] = [:]
        for key in order.sorted() {
            guard let s = byKey[key] else { continue }
            let gkey = s.suite + "\u{1}" + s.name + "\u{1}" + s.unit
            groups[gkey, default: Group(suite: s.suite, name: s.name, unit: s.unit, series: [], axis: nil)].series.append(s)
        }
        self.groups = groups.keys.sorted().compactMap { k in
            guard var g = groups[k] else { return nil }
            g.series.sort { a, b in
                let ax = Self.sortKey(a), bx = Self.sortKey(b)
                return ax != bx ? ax < bx : a.host < b.host
            }
            g.axis = Self.axis(of: g.series)
            g.series.sort { a, b in Self.order(a, b, axis: g.axis) }
            return g
        }
    }

    private static func sortKey(_ s: Series) -> String { s.labelText }

    /// Series order: by the axis label numerically, then remaining labels, then host.
    private static func order(_ a: Series, _ b: Series, axis: String?) -> Bool {
        if let axis, let av = a.labels.first(where: { $0.key == axis }).flatMap({ Double($0.value) }),
           let bv = b.labels.first(where: { $0.key == axis }).flatMap({ Double($0.value) }), av != bv {
            return av < bv
        }
        if a.labelText != b.labelText { return a.labelText < b.labelText }
        return a.host < b.host
    }

    /// The numeric label with at least two distinct values across all series, preferring sizes.
    private static func axis(of series: [Series]) -> String? {
        var keys = Set<String>()
        for s in series { for l in s.labels { keys.insert(l.key) } }
        let candidates = keys.sorted().filter { key in
            var values = Set<Double>()
            for s in series {
                guard let v = s.labels.first(where: { $0.key == key }).flatMap({ Double($0.value) }), v.isFinite else { return false }
                values.insert(v)
            }
            return values.count >= 2
        }
        return candidates.first { $0.contains("size") || $0.contains("bytes") } ?? candidates.first
    }

    /// The axis value of a series (nil without axis).
    package static func axisValue(_ s: Series, _ axis: String?) -> Double? {
        guard let axis else { return nil }
        return s.labels.first(where: { $0.key == axis }).flatMap { Double($0.value) }
    }

    /// Labels other than the axis, as text (`""` when none).
    package static func otherLabels(_ s: Series, _ axis: String?) -> String {
        s.labels.filter { $0.key != axis }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
    }
}
