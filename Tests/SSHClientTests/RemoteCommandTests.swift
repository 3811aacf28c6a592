import Foundation
import XCTest
@testable import SSHClient
import XCFleetTestSupport

/// The process-group wrapper and its stderr marker.
final class RemoteCommandTests: XCTestCase {
    func testPgidMarkerIsStrippedWhateverTheChunking() {
        let stream = Array("XCFLEET-PGID=4242\nreal stderr\n".utf8)
        for cut in 0...stream.count {
            var f = PgidMarkerFilter()
            var out = f.feed(Array(stream[0..<cut]))
            out += f.feed(Array(stream[cut...]))
            out += f.flush()
            XCTAssertEqual(String(decoding: out, as: UTF8.self), "real stderr\n", "cut at \(cut)")
            XCTAssertEqual(f.pgid, 4242)
        }
        var plain = PgidMarkerFilter()
        XCTAssertEqual(plain.feed(Array("XCF".utf8)), [])
        XCTAssertEqual(plain.feed(Array("OOPS\n".utf8)), Array("XCFOOPS\n".utf8), "non-marker text is passed on")
        XCTAssertNil(plain.pgid)
    }

    func testWrappedCommandQuotesEverything() {
        let wrapped = RemoteCommand.wrap("echo 'it''s' \"$HOME\"")
        XCTAssertTrue(wrapped.hasPrefix("exec perl -e '"))
        XCTAssertTrue(wrapped.hasSuffix(#"-- /bin/sh -c 'echo '\''it'\'''\''s'\'' "$HOME"'"#), wrapped)
    }

    func testKillScriptTargetsTheGroup() {
        let script = RemoteCommand.killScript(pgid: 1234)
        XCTAssertTrue(script.hasPrefix("kill -TERM -- -1234"))
        XCTAssertTrue(script.contains("kill -KILL -- -1234"))
    }
}
