import XCTest
@testable import XCFleetBasics
@testable import XCFleetModel
@testable import XCFleetCore
import XCFleetTestSupport

/// One-line messages for JSON that is not what was expected (no Swift enum dump).
final class DecodingErrorTextTests: XCTestCase {
    private struct Shape: Decodable { var name: String; var items: [Int] }

    private func message(_ json: String) -> String {
        do {
            _ = try JSONDecoder().decode(Shape.self, from: Data(json.utf8))
            return "decoded"
        } catch {
            return DecodingErrorText.line(error)
        }
    }

    func testEachKindOfProblemIsOneReadableLine() {
        XCTAssertEqual(message(#"{"items": []}"#), #"missing key "name""#)
        XCTAssertEqual(message(#"{"name": 1, "items": []}"#), "expected a string at name")
        XCTAssertEqual(message(#"{"name": "x", "items": [1, "two"]}"#), "expected a number at items[1]")
        XCTAssertEqual(message(#"{"name": null, "items": []}"#), "expected a string, found null at name")
        let garbage = message("not json at all")
        XCTAssertTrue(garbage.hasPrefix("not valid JSON"), garbage)
        for m in [garbage, message("{")] {
            XCTAssertFalse(m.contains("\n"), m)
            XCTAssertFalse(m.contains("CodingKeys"), m)
            XCTAssertFalse(m.contains("Context("), m)
        }
    }
}
