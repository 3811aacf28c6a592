import XCTest
@testable import XCFleetBasics
@testable import XCFleetModel
@testable import XCFleetCore
import XCFleetTestSupport

final class TerminalTextTests: XCTestCase {
    func testSanitizeNeutralisesControlCharacters() {
        XCTAssertEqual(TerminalText.sanitize("a\u{1B}[2Jb\tc\nd\u{7F}e\u{9B}f"), "a?[2Jb c d?e?f")
        XCTAssertEqual(TerminalText.sanitize("plain ✔ 漢字"), "plain ✔ 漢字")
    }

    func testColumnsCountWideAndCombiningCharacters() {
        XCTAssertEqual(TerminalText.columns("abc"), 3)
        XCTAssertEqual(TerminalText.columns("漢字"), 4)
        XCTAssertEqual(TerminalText.columns("e\u{301}"), 1, "a combining accent takes no column")
        XCTAssertEqual(TerminalText.columns("✔ █"), 3)
    }

    func testTruncateAndPadRespectColumns() {
        XCTAssertEqual(TerminalText.truncate("abcdef", to: 4), "abc…")
        XCTAssertEqual(TerminalText.truncate("abc", to: 3), "abc")
        XCTAssertEqual(TerminalText.truncate("漢字漢字", to: 5), "漢字…")
        XCTAssertEqual(TerminalText.truncate("abc", to: 0), "")
        XCTAssertEqual(TerminalText.pad("ab", to: 4), "ab  ")
        XCTAssertEqual(TerminalText.padLeft("ab", to: 4), "  ab")
        for width in 0...12 { XCTAssertLessThanOrEqual(TerminalText.columns(TerminalText.truncate("漢a字bcdefgh", to: width)), width) }
    }

    func testClockAndPaint() {
        XCTAssertEqual(TerminalText.clock(7.9), "0:07")
        XCTAssertEqual(TerminalText.clock(754), "12:34")
        XCTAssertEqual(TerminalText.clock(3723), "1:02:03")
        XCTAssertEqual(TerminalText.clock(.nan), "-")
        XCTAssertEqual(TerminalText.clock(-1), "-")
        XCTAssertEqual(TerminalText.clock(1e300), "277777:46:39", "huge values never trap")
        XCTAssertEqual(TerminalText.paint("x", .failure, color: true), "\u{1B}[31mx\u{1B}[0m")
        XCTAssertEqual(TerminalText.paint("x", .failure, color: false), "x")
        XCTAssertEqual(TerminalText.paint("x", .plain, color: true), "x")
    }
}
