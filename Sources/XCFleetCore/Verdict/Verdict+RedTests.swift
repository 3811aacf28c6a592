import Foundation
import XCFleetModel

extension Verdict {
    /// The problem line of an attempt's red tests, counted in the figures' categories
    /// (`ReportFacts.category`): `2 tests failed, 1 crashed: A, B, C`. The names follow the
    /// counts' order (failed, crashed, timed out), at most five.
    static func redTestsLine(_ red: [TestResult], in attempt: AttemptReport) -> String {
        let order: [TestCategory] = [.failed, .crashed, .timedOut]
        var groups: [TestCategory: [TestResult]] = [:]
        for test in red {
            var category = ReportFacts.category(ofObserved: test, in: attempt)
            if !order.contains(category) { category = .failed } // a forgiven failure never reaches here
            groups[category, default: []].append(test)
        }
        let present = order.filter { groups[$0] != nil }
        var counts: [String] = []
        for (i, category) in present.enumerated() {
            let n = groups[category]?.count ?? 0
            let noun = i == 0 ? (n == 1 ? " test" : " tests") : ""
            counts.append("\(n)\(noun) \(category == .failed ? "failed" : category.rawValue)")
        }
        let ordered = present.flatMap { groups[$0] ?? [] }
        let names = ordered.prefix(5).map(\.id.shortDescription).joined(separator: ", ")
        return counts.joined(separator: ", ") + ": " + names + (ordered.count > 5 ? ", …" : "")
    }
}
