import XCTest
@testable import XCFleetBasics
@testable import XCFleetModel
@testable import XCFleetCore
import XCFleetTestSupport

final class ShardFilterTests: XCTestCase {
    func testSwiftTestFilterIsAnchoredEscapedAndModuleQualified() throws {
        let filter = ShardFilter.swiftTestFilter(tests: ["CacheTests/testC1_hit", "Other.Suite/test_b", "CacheTests/testC1_hit"], module: "Contract")
        XCTAssertEqual(filter, #"^(Contract\.CacheTests/testC1_hit|Other\.Suite/test_b)$"#)
        XCTAssertEqual(ShardFilter.swiftTestArguments(tests: ["A/t"], module: "M"), ["--filter", #"^(M\.A/t)$"#])

        // What SwiftPM on Linux matches the filter against: `Module.Class/test` (see `swift test list`).
        let regex = try NSRegularExpression(pattern: filter)
        func matches(_ s: String) -> Bool { regex.firstMatch(in: s, range: NSRange(s.startIndex..., in: s)) != nil }
        XCTAssertTrue(matches("Contract.CacheTests/testC1_hit"))
        XCTAssertTrue(matches("Other.Suite/test_b"))
        XCTAssertFalse(matches("Contract.CacheTests/testC1_hit2"), "anchored at the end")
        XCTAssertFalse(matches("XContract.CacheTests/testC1_hit"), "anchored at the start")
        XCTAssertFalse(matches("ContractXCacheTests/testC1_hit"), "the dot is escaped")
    }

    func testEscapesEveryRegexMetacharacter() throws {
        let odd = "a.b*c+d?e(f)g[h]i{j}k|l^m$n\\o"
        let escaped = ShardFilter.escapeRegex(odd)
        let regex = try NSRegularExpression(pattern: "^" + escaped + "$")
        XCTAssertNotNil(regex.firstMatch(in: odd, range: NSRange(odd.startIndex..., in: odd)))
        let near = "aXb*c+d?e(f)g[h]i{j}k|l^m$n\\o"
        XCTAssertNil(regex.firstMatch(in: near, range: NSRange(near.startIndex..., in: near)))
    }

    func testEmptyShardMatchesNothing() throws {
        let filter = ShardFilter.swiftTestFilter(tests: [], module: "M")
        XCTAssertEqual(filter, "^$")
        let regex = try NSRegularExpression(pattern: filter)
        let name = "M.A/t"
        XCTAssertNil(regex.firstMatch(in: name, range: NSRange(name.startIndex..., in: name)))
    }

    func testXcodebuildOnlyTestingNamesTargetClassAndTest() {
        XCTAssertEqual(ShardFilter.xcodebuildOnlyTesting(tests: ["CacheTests/testC2", "Mod.CacheTests/testC1", "CacheTests/testC2"], target: "ContractTests"),
                       ["-only-testing:ContractTests/CacheTests/testC2", "-only-testing:ContractTests/CacheTests/testC1"])
        // A Swift Testing function outside a suite has no class: no empty path component.
        XCTAssertEqual(ShardFilter.xcodebuildOnlyTesting(tests: ["overwrite()", "Suite/sizes(size:)"], target: "T"),
                       ["-only-testing:T/Suite/sizes(size:)", "-only-testing:T/overwrite()"])
    }
}
