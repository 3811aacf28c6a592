import XCTest
import XCFleetModel

/// `TestResult` and `TestIdentifier` write their keys by hand, in sorted order (report.json's
/// writer then sorts nothing per test): every stored property must still be written, so a field
/// added later cannot silently go missing from report.json.
final class SortedEncodingTests: XCTestCase {
    private func keys(_ value: some Encodable) throws -> [String] {
        let object = try JSONSerialization.jsonObject(with: JSONEncoder().encode(value))
        return try XCTUnwrap(object as? [String: Any]).keys.sorted()
    }

    private func properties(_ value: Any) -> [String] { Mirror(reflecting: value).children.compactMap(\.label).sorted() }

    func testEveryStoredPropertyOfATestResultIsWritten() throws {
        var result = TestResult(id: TestIdentifier(suite: "S", name: "testC1_x"), status: .failed, seconds: 0.5,
                                failures: [FailureDetail(file: "a.swift", line: 3, message: "m")], skipReason: "r", clone: "Clone 1", flaky: true)
        result.quarantined = true
        result.executions = 3
        result.failedExecutions = 1
        result.timedOut = true
        result.unfinished = true
        result.attachments = [AttachmentFile(name: "shot.png", path: "attachments/shot.png", bytes: 10, kind: .image)]
        XCTAssertEqual(try keys(result), properties(result), "a stored property of TestResult is not encoded")
        XCTAssertEqual(try JSONDecoder().decode(TestResult.self, from: JSONEncoder().encode(result)), result, "it reads back whole")
    }

    func testEveryStoredPropertyOfATestIdentifierIsWritten() throws {
        let id = TestIdentifier(suite: "S", name: "n")
        XCTAssertEqual(try keys(id), properties(id))
    }
}
