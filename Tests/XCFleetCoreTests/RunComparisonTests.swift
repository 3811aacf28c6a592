import XCTest
@testable import XCFleetBasics
@testable import XCFleetModel
@testable import XCFleetCore
import XCFleetTestSupport

final class RunComparisonTests: XCTestCase {
    func testNewFailuresAndFixed() {
        let c = RunComparison.compare(base: SampleReports.green, head: SampleReports.red)
        XCTAssertEqual(c.newFailures.map(\.test).sorted(), [
            "CacheContractTests.CacheKeyTests/testC1_revisionChangeMisses",
            "CacheContractTests.CacheStoreTests/testC4_overwriteReturnsSecond",
        ])
        let overwrite = c.newFailures.first { $0.test.hasSuffix("testC4_overwriteReturnsSecond") }
        XCTAssertEqual(overwrite?.baseStatus, "passed")
        XCTAssertEqual(overwrite?.headStatus, "failed")
        XCTAssertEqual(overwrite?.message?.hasPrefix("Tests/CacheContractTests/CacheStoreTests.swift:42: "), true)
        XCTAssertEqual(c.newFailures.first { $0.test.hasSuffix("revisionChangeMisses") }?.headStatus, "not run")
        XCTAssertFalse(c.isClean)

        let back = RunComparison.compare(base: SampleReports.red, head: SampleReports.green)
        XCTAssertEqual(back.fixed.count, 2)
        XCTAssertEqual(back.newFailures, [])
        XCTAssertTrue(back.isClean)
    }

    func testNewlyFlaky() {
        var base = SampleReports.flaky
        base.suites[0].jobs[0].attempts.removeFirst()
        base.suites[0].jobs[0].attempts[0].tests[1].flaky = false
        let c = RunComparison.compare(base: base, head: SampleReports.flaky)
        XCTAssertEqual(c.newlyFlaky.map(\.test), ["CacheContractTests.LogoutTests/testC7_lateWriteDropped"])
        XCTAssertEqual(RunComparison.compare(base: SampleReports.flaky, head: SampleReports.flaky).newlyFlaky, [])
    }

    func testSlowerNeedsRelativeAndAbsoluteDelta() {
        let base = SampleReports.green
        var head = base
        // testC1_keyIdentity 0.010 s → 0.100 s: +900 %, +0.09 s → slower.
        head.suites[0].jobs[0].attempts[0].tests[0].seconds = 0.100
        // testC1_revisionChangeMisses 0.015 s → 0.030 s: +100 % but only +0.015 s → not reported.
        head.suites[0].jobs[0].attempts[0].tests[1].seconds = 0.030
        let c = RunComparison.compare(base: base, head: head)
        XCTAssertEqual(c.slower.map(\.test), ["CacheContractTests.CacheKeyTests/testC1_keyIdentity"])
        XCTAssertEqual(c.slower.first?.relative ?? 0, 9.0, accuracy: 1e-9)
        XCTAssertEqual(RunComparison.compare(base: base, head: head, slowerThreshold: 10).slower, [])
    }

    func testMetricChangesMeanOverReps() throws {
        let base = SampleReports.probe
        var head = base
        for j in head.suites[0].jobs.indices {
            for m in head.suites[0].jobs[j].attempts[0].metrics.indices where head.suites[0].jobs[j].attempts[0].metrics[m].name == "memory_delta" {
                head.suites[0].jobs[j].attempts[0].metrics[m].value += 1_048_576
            }
        }
        let c = RunComparison.compare(base: base, head: head)
        XCTAssertEqual(c.metricChanges.count, 10) // 4 sizes + 1 memory, × 2 hosts
        let mem = try XCTUnwrap(c.metricChanges.first { $0.metric == "memory_delta" && $0.host == "mac-a" })
        XCTAssertEqual(mem.labels, "source=statm")
        XCTAssertEqual(mem.baseMean ?? 0, 3.25 * 1_048_576, accuracy: 1e-6)
        XCTAssertEqual(mem.delta ?? 0, 1_048_576, accuracy: 1e-6)
        let hit = try XCTUnwrap(c.metricChanges.first { $0.metric == "hit_rate" && $0.host == "mac-a" && $0.labels == "object_bytes=1024" })
        XCTAssertEqual(hit.delta ?? 1, 0, accuracy: 1e-12)
        // Sizes in numeric order, as the charts show them.
        XCTAssertEqual(c.metricChanges.filter { $0.metric == "hit_rate" && $0.host == "mac-a" }.map(\.labels),
                       ["object_bytes=1024", "object_bytes=4096", "object_bytes=16384", "object_bytes=65536"])
    }

    func testRenderings() throws {
        let c = RunComparison.compare(base: SampleReports.green, head: SampleReports.full)
        let json = try RunComparisonRenderer.json(c)
        XCTAssertEqual(json, try RunComparisonRenderer.json(c))
        XCTAssertEqual(try JSONDecoder().decode(RunComparison.self, from: json), c)
        let md = RunComparisonRenderer.markdown(c)
        XCTAssertTrue(md.contains("### New failures"), md)
        XCTAssertTrue(md.contains("testC4\\_overwriteReturnsSecond — passed → failed"), md)
        XCTAssertTrue(c.newFailures.contains { $0.test == "mutant storeWithoutSnapshot" && $0.suite == "cache-contract-mutants" })
        XCTAssertFalse(md.contains("<script>"))
        let page = RunComparisonRenderer.htmlPage(c)
        XCTAssertTrue(page.hasPrefix("<!DOCTYPE html>"))
        XCTAssertFalse(page.contains("<script"))
        XCTAssertTrue(page.contains("test&lt;script&gt;alert(1)&lt;/script&gt;"))
    }
}
