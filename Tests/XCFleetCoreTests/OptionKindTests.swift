import XCTest
import XCFleetBasics
import XCFleetTestSupport

/// Every kind of option value the command table declares, checked as the argument parser does.
final class OptionKindTests: XCTestCase {
    private func problem(_ kind: OptionKind, _ raw: String, placeholder: String? = nil) -> String? {
        if case .refused(let p) = kind.check(raw, placeholder: placeholder) { return p }
        return nil
    }

    func testIntWithARange() {
        XCTAssertEqual(OptionKind.int(1...30).check("7"), .accepted(.int(7)))
        XCTAssertEqual(OptionKind.int(1...30).check("30"), .accepted(.int(30)))
        XCTAssertEqual(problem(.int(1...30), "abc"), "expected a whole number between 1 and 30 (got 'abc')")
        XCTAssertEqual(problem(.int(1...30), "0"), "expected a whole number between 1 and 30 (got '0')")
        XCTAssertEqual(problem(.int(1...30), "31"), "expected a whole number between 1 and 30 (got '31')")
        XCTAssertEqual(problem(.int(1...30), "2.5"), "expected a whole number between 1 and 30 (got '2.5')")
        XCTAssertEqual(problem(.int(1...30), ""), "expected a whole number between 1 and 30 (got '')")
    }

    func testDoubleWithARange() {
        XCTAssertEqual(OptionKind.double(0...1).check("0.25"), .accepted(.double(0.25)))
        XCTAssertEqual(OptionKind.double(0...1).check("1"), .accepted(.double(1)))
        XCTAssertEqual(problem(.double(0...1), "abc"), "expected a number between 0 and 1 (got 'abc')")
        XCTAssertEqual(problem(.double(0...1), "7"), "expected a number between 0 and 1 (got '7')")
        XCTAssertEqual(problem(.double(0...1), "inf"), "expected a number between 0 and 1 (got 'inf')")
        XCTAssertEqual(problem(.double(0.5...2.5), "3"), "expected a number between 0.5 and 2.5 (got '3')")
    }

    func testChoiceSuggestsTheClosestWord() {
        let kind = OptionKind.choice(["auto", "always", "never"])
        XCTAssertEqual(kind.check("never"), .accepted(.text("never")))
        XCTAssertEqual(problem(kind, "nevr"), "expected one of auto, always, never (got 'nevr'); did you mean 'never'?")
        XCTAssertEqual(problem(kind, "x"), "expected one of auto, always, never (got 'x')")
    }

    func testPathStringAndFlag() {
        XCTAssertEqual(OptionKind.path.check("fleet.json"), .accepted(.text("fleet.json")))
        XCTAssertEqual(problem(.path, ""), "expected a path (got '')")
        XCTAssertEqual(problem(.string, "", placeholder: "ID"), "expected a value ID (got '')")
        XCTAssertEqual(problem(.flag, "yes"), "takes no value")
        // What is shown of a refused value cannot move the cursor or colour the terminal.
        XCTAssertFalse(problem(.int(1...2), "\u{1B}[31m")?.contains("\u{1B}") ?? true)
    }

    func testHelpSaysTheRangeTheCheckUses() {
        XCTAssertEqual(OptionKind.int(1...3650).helpSuffix, " — between 1 and 3650")
        XCTAssertEqual(OptionKind.double(0...1).helpSuffix, " — between 0 and 1")
        XCTAssertEqual(OptionKind.choice(["a", "b"]).helpSuffix, " — one of a, b")
        XCTAssertEqual(OptionKind.path.helpSuffix, "")
    }
}
