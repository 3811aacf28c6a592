import XCTest
import Shelf

final class ShelfTests: XCTestCase {
    func testPutAndTake() {
        var shelf = Shelf(capacity: 2)
        XCTAssertTrue(shelf.put("Emma"))
        XCTAssertEqual(shelf.take(), "Emma")
        XCTAssertNil(shelf.take())
    }

    func testFullShelfRefuses() {
        var shelf = Shelf(capacity: 1)
        shelf.put("Emma")
        XCTAssertFalse(shelf.put("Persuasion"))
        XCTAssertTrue(shelf.isFull)
    }
}

final class CapacityTests: XCTestCase {
    func testZeroCapacity() {
        var shelf = Shelf(capacity: 0)
        XCTAssertFalse(shelf.put("Emma"))
    }
}
