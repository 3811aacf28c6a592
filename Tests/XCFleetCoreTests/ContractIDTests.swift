import XCTest
@testable import XCFleetBasics
@testable import XCFleetModel
@testable import XCFleetCore
import XCFleetTestSupport

final class ContractIDTests: XCTestCase {
    func testFindsIdsWhereTestNamesCarryThem() {
        XCTAssertEqual(ContractID.find(in: "testC4_overwriteReturnsSecond"), ["C4"])
        XCTAssertEqual(ContractID.find(in: "test_C1_C2_both"), ["C1", "C2"])
        XCTAssertEqual(ContractID.find(in: "testK11_cancelIsNotRollback"), ["K11"])
        XCTAssertEqual(ContractID.find(in: "testC10_doubleNeverEvicts"), ["C10"])
        XCTAssertEqual(ContractID.find(in: "C7 late write"), ["C7"])
    }

    func testIgnoresLettersThatAreNotIds() {
        XCTAssertEqual(ContractID.find(in: "testCacheHits"), [])
        XCTAssertEqual(ContractID.find(in: "testABC1"), [], "C1 inside a word is not an id")
        XCTAssertEqual(ContractID.find(in: "testC1234"), [], "too many digits")
        XCTAssertEqual(ContractID.find(in: ""), [])
    }
}
