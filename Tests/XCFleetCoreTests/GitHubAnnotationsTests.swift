import XCTest
@testable import XCFleetBasics
@testable import XCFleetModel
@testable import XCFleetCore
import XCFleetTestSupport

final class GitHubAnnotationsTests: XCTestCase {
    func testErrorAtFileAndLine() {
        let lines = GitHubAnnotations.lines(SampleReports.red)
        XCTAssertTrue(lines.contains("::error file=Tests/CacheContractTests/CacheStoreTests.swift,line=42,title=cache-contract @ mac-a%3A CacheContractTests.CacheStoreTests/testC4_overwriteReturnsSecond::XCTAssertEqual failed: (\"first\") is not equal to (\"second\")"), lines.joined(separator: "\n"))
        XCTAssertTrue(lines.contains { $0.hasPrefix("::error title=cache-contract @ mac-a%3A crash::Fatal error") })
    }

    func testGreenHasNone() {
        XCTAssertEqual(GitHubAnnotations.lines(SampleReports.green), [])
    }

    func testFlakyIsWarning() {
        let lines = GitHubAnnotations.lines(SampleReports.flaky)
        XCTAssertEqual(lines.count, 1)
        XCTAssertTrue(lines[0].hasPrefix("::warning file=Tests/CacheContractTests/LogoutTests.swift,line=88,title=Flaky%3A "), lines[0])
    }

    func testEscaping() {
        XCTAssertEqual(GitHubAnnotations.escapeData("50% done\r\nnext: a,b"), "50%25 done%0D%0Anext: a,b")
        XCTAssertEqual(GitHubAnnotations.escapeProperty("a:b,c%\n"), "a%3Ab%2Cc%25%0A")
        let line = GitHubAnnotations.command("error", file: "x,y:z.swift", line: 3, title: "t", message: "m\nn")
        XCTAssertEqual(line, "::error file=x%2Cy%3Az.swift,line=3,title=t::m%0An")
        for l in GitHubAnnotations.lines(SampleReports.full) {
            XCTAssertFalse(l.contains("\n") || l.contains("\r"), l)
            XCTAssertTrue(l.hasPrefix("::error ") || l.hasPrefix("::warning "), l)
        }
    }
}
