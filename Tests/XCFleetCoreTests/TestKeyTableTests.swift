import XCTest
@testable import XCFleetModel
@testable import XCFleetCore

/// `ReportFacts.outcomes` keys its tables by `testKey`: as bytes (`ASCIITestKey`) when every id is
/// ASCII, as strings otherwise. Both give the same tables: equal exactly when the keys are.
final class TestKeyTableTests: XCTestCase {
    static let ids = [
        TestIdentifier(suite: "Module.Class", name: "testA"), TestIdentifier(suite: "Other.Class", name: "testA()"),
        TestIdentifier(suite: "Class", name: "testA"), TestIdentifier(suite: "Module.Suite/Nested", name: "testA"),
        TestIdentifier(suite: "Nested", name: "testA"), TestIdentifier(suite: "", name: "testA()"), TestIdentifier(suite: "", name: "()"),
        TestIdentifier(suite: "A.B.C", name: "x"), TestIdentifier(suite: "C", name: "x()"), TestIdentifier(suite: "C", name: "x(y)"),
        TestIdentifier(suite: "M.Cl", name: "ass/testA"), TestIdentifier(suite: "M.Class/", name: "testA"), TestIdentifier(suite: ".", name: ""),
        TestIdentifier(suite: "Module.AVeryLongClassNameBeyondSmallStrings", name: "testWithAVeryLongNameIndeed_C4"),
    ]

    func testPartsMakeTheKey() {
        for id in Self.ids + [TestIdentifier(suite: "Mödule.Kläss", name: "testÄ()"), TestIdentifier(suite: "M.\u{212A}", name: "t")] {
            let (head, tail) = id.testKeyParts
            XCTAssertEqual(String(Substring(head)) + "/" + String(Substring(tail)), id.testKey, "\(id)")
            XCTAssertFalse(head.contains(UInt8(ascii: "/")), "\(id)")
        }
    }

    func testByteKeysAreEqualExactlyWhenTheKeysAre() {
        for a in Self.ids {
            XCTAssertTrue(ASCIITestKey.fits(a))
            for b in Self.ids {
                let same = a.testKey == b.testKey
                XCTAssertEqual(ASCIITestKey(a) == ASCIITestKey(b), same, "\(a) \(b)")
                if same { XCTAssertEqual(ASCIITestKey(a).hashValue, ASCIITestKey(b).hashValue, "\(a) \(b)") }
            }
        }
        XCTAssertEqual(Set(Self.ids.map(ASCIITestKey.init)).count, Set(Self.ids.map(\.testKey)).count)
        XCTAssertFalse(ASCIITestKey.fits(TestIdentifier(suite: "M.\u{212A}", name: "t")))
        XCTAssertFalse(ASCIITestKey.fits(TestIdentifier(suite: "M.K", name: "tä")))
    }

    private func job(_ failedFirst: TestIdentifier, _ passedThen: TestIdentifier, expected: [String] = []) -> JobReport {
        func attempt(_ n: Int, _ tests: [TestResult]) -> AttemptReport {
            AttemptReport(number: n, host: "h", slot: 0, start: 0, end: 1, phases: [], termination: .exited(0), tests: tests,
                          unattributedFailures: [], crashes: [], buildErrors: [], metrics: [], problems: [], lost: false)
        }
        return JobReport(planned: JobPlanned(jobID: "j", suite: "s", kind: .gate, expectedTests: expected),
                         attempts: [attempt(1, [TestResult(id: failedFirst, status: .failed, failures: [FailureDetail(message: "boom")])]),
                                    attempt(2, [TestResult(id: passedThen, status: .passed)])],
                         finalState: .flaky, reasons: [])
    }

    /// The same test in two printed forms: its earlier failure makes its pass flaky, and the
    /// manifest's name for it is not a test that did not run.
    func testOneTestInTwoFormsIsOneTest() {
        let ascii = ReportFacts.outcomes(job(TestIdentifier(suite: "M.K", name: "testX"), TestIdentifier(suite: "K", name: "testX()"),
                                             expected: ["Other.K/testX", "K/testY"]))
        XCTAssertEqual(ascii.map(\.category), [.flaky, .notRun])
        XCTAssertEqual(ascii.first?.earlier.first?.failures.first?.message, "boom")
        // The Kelvin sign is canonically `K`: as strings (the keys xcfleet compares) the two are one test.
        let kelvin = ReportFacts.outcomes(job(TestIdentifier(suite: "M.\u{212A}", name: "testX"), TestIdentifier(suite: "K", name: "testX()"),
                                              expected: ["Other.K/testX", "K/testY"]))
        XCTAssertEqual(kelvin.map(\.category), [.flaky, .notRun])
        let accent = ReportFacts.outcomes(job(TestIdentifier(suite: "M.C", name: "test\u{E9}"), TestIdentifier(suite: "C", name: "teste\u{301}()")))
        XCTAssertEqual(accent.map(\.category), [.flaky])
    }
}
