import Foundation
import XCTest
@testable import XCFleetKit
import XCFleetTestSupport

/// Redaction on the stream, whatever the chunking and line boundaries.
final class RedactorStreamTests: XCTestCase {
    /// A PEM-shaped secret made up here (random-looking base64 lines, not a real key).
    static let pem = """
    -----BEGIN OPENSSH PRIVATE KEY-----
    b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW
    QyNTUxOQAAACDxq0fakefakefakefakefakefakefakefakefakefakeAAAAJgAAAAAAAAA
    AAAAC3NzaC1lZDI1NTE5AAAAIPGrR9pWfakeFAKEfakeFAKEfakeFAKEfakeFAKEfakeAA
    -----END OPENSSH PRIVATE KEY-----
    """
    static let token = "ghp_TOKENtokenTOKEN1234"


    var secretLines: [String] { Self.pem.split(separator: "\n").map(String.init) }

    func assertClean(_ out: String, file: StaticString = #filePath, line: UInt = #line) {
        for l in secretLines { XCTAssertFalse(out.contains(l), "line of the secret leaked: \(l)", file: file, line: line) }
        XCTAssertFalse(out.contains(Self.token), file: file, line: line)
        // Not even a long fragment of a base64 line survives.
        for l in secretLines where l.count > 40 {
            XCTAssertFalse(out.contains(String(l.dropFirst(3).prefix(30))), file: file, line: line)
        }
    }

    func testMultiLineSecretWrittenLineByLineIsRedactedEachLine() {
        var r = Redactor(secrets: [Self.pem, Self.token])
        var out: [UInt8] = []
        out += r.consume(Array("starting test\n".utf8))
        for l in secretLines {
            // `stdbuf -oL`: one write per line, and sometimes with \r\n.
            out += r.consume(Array((l + "\r\n").utf8))
        }
        out += r.consume(Array("token=\(Self.token) done\n".utf8))
        out += r.flush()
        let text = String(decoding: out, as: UTF8.self)
        assertClean(text)
        XCTAssertTrue(text.hasPrefix("starting test\n"), text)
        XCTAssertTrue(text.contains("token=[redacted] done\n"), text)
        XCTAssertEqual(text.components(separatedBy: "[redacted]").count - 1, secretLines.count + 1, text)
    }

    func testWholeSecretInOneWriteIsOneMask() {
        let r = Redactor(secrets: [Self.pem])
        XCTAssertEqual(r.redact("key:\n\(Self.pem)\nend"), "key:\n[redacted]\nend")
    }

    /// Property: for random texts mixing secrets, their lines and noise, cut into random chunk
    /// sizes (1…97 bytes), the streamed output equals the one-shot redaction, never contains a
    /// secret line, and never holds back more than the longest pattern needs.
    func testRandomChunkingAlwaysGivesTheSameRedaction() {
        let seed: UInt64 = 0x10_2026
        var rng = SeededGenerator(seed: seed)
        let pieces = secretLines + [Self.pem, Self.token, "ghp_TOKEN", "-----BEGIN", "noise ", "\n", "\r\n", "b3BlbnNzaC1r", "é€😀", String(Self.token.dropLast())]
        let redactor = Redactor(secrets: [Self.pem, Self.token])
        let longest = redactor.patterns.map(\.count).max()!
        for round in 0..<300 {
            var text = ""
            for _ in 0..<Int.random(in: 1...25, using: &rng) { text += pieces.randomElement(using: &rng)! }
            let bytes = Array(text.utf8)
            let expected = redactor.redact(bytes)
            var streaming = redactor
            var out: [UInt8] = []
            var i = 0
            while i < bytes.count {
                let n = Int.random(in: 1...97, using: &rng)
                out += streaming.consume(Array(bytes[i..<min(bytes.count, i + n)]))
                XCTAssertLessThan(streaming.heldBack, longest, "seed \(seed) round \(round)")
                i += n
            }
            out += streaming.flush()
            XCTAssertEqual(out, expected, "seed \(seed) round \(round)")
            assertClean(String(decoding: out, as: UTF8.self))
        }
    }

    func testHoldsBackOnlyAPossiblePrefix() {
        var r = Redactor(secrets: ["abcdef"])
        XCTAssertEqual(r.consume(Array("xxabc".utf8)), Array("xx".utf8))
        XCTAssertEqual(r.heldBack, 3)
        XCTAssertEqual(r.consume(Array("dXX".utf8)), Array("abcdXX".utf8))
        XCTAssertEqual(r.heldBack, 0)
        XCTAssertEqual(r.consume(Array("no newline and no secret".utf8)), Array("no newline and no secret".utf8))
    }

    /// Short secrets are refused when the fleet or plan is loaded (documented in docs/security.md).
    func testSecretsShorterThanThreeCharactersAreRefusedAtLoadTime() throws {
        let fleet = """
        {"hosts": [{"name": "m", "address": "10.0.0.1", "environment": {"K": {"value": "ab", "secret": true}}}]}
        """
        XCTAssertThrowsError(try FleetLoader.parse(Data(fleet.utf8), path: "f.json")) { error in
            let text = "\(error)"
            XCTAssertTrue(text.contains("hosts[0].environment.K.value: a secret value must be at least 3 characters"), text)
            XCTAssertFalse(text.contains("ab\""), text)
        }
        let plan = """
        {"name": "p", "suites": [{"name": "s", "template": "cache-contract", "parameters": {"pin": {"value": 42, "secret": true}}}]}
        """
        XCTAssertThrowsError(try PlanLoader.parse(Data(plan.utf8), path: "p.json", knownTemplates: ["cache-contract"])) { error in
            XCTAssertTrue("\(error)".contains("suites[0].parameters.pin.value: a secret value must be at least 3 characters"), "\(error)")
        }
    }
}
