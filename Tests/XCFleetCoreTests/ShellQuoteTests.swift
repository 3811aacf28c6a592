import Foundation
import XCTest
import XCFleetBasics
import XCFleetModel
import XCFleetCore
import XCFleetTestSupport

final class ShellQuoteTests: XCTestCase {
    func testQuotedWordsSurviveTheShellUnchanged() throws {
        let words = ["plain", "with space", "it's", "$HOME", "`id`", "a\"b", "semi;colon", "", "new\nline", "*", "ünï", "-n"]
        let script = "for a in " + ShellQuote.join(words) + "; do printf '%s\\0' \"$a\"; done"
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/sh")
        p.arguments = ["-c", script]
        let pipe = Pipe()
        p.standardOutput = pipe
        try p.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        let back = String(decoding: data, as: UTF8.self).split(separator: "\0", omittingEmptySubsequences: false).dropLast().map(String.init)
        XCTAssertEqual(back, words)
        XCTAssertEqual(ShellQuote.quote("abc/d.e"), "abc/d.e")
        XCTAssertEqual(ShellQuote.quote("it's"), #"'it'\''s'"#)
    }

    func testEnvironmentNames() {
        XCTAssertTrue(ShellQuote.isValidName("FOO_1"))
        XCTAssertTrue(ShellQuote.isValidName("_x"))
        XCTAssertFalse(ShellQuote.isValidName("1A"))
        XCTAssertFalse(ShellQuote.isValidName("A-B"))
        XCTAssertFalse(ShellQuote.isValidName("A;rm"))
        XCTAssertFalse(ShellQuote.isValidName(""))
    }
}
