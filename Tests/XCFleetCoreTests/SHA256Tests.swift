import Foundation
import XCTest
import XCFleetBasics
import XCFleetModel
import XCFleetCore
import SSHClient
import XCFleetTestSupport

/// SHA-256: known vectors, and the contiguous fast path agrees with byte-at-a-time updates.
final class SHA256Tests: XCTestCase {
    private func hex(_ b: [UInt8]) -> String { b.map { String(format: "%02x", $0) }.joined() }

    func testKnownVectors() {
        XCTAssertEqual(hex(SHA256.hash(Array("abc".utf8))), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        XCTAssertEqual(hex(SHA256.hash([UInt8]())), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        XCTAssertEqual(hex(SHA256.hash(Data(repeating: 0x61, count: 1_000_000))),
                       "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    func testChunkedContiguousAndSequenceUpdatesAgree() {
        let message = (0..<5000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        let reference = hex(SHA256.hash(message))
        for split in [1, 3, 63, 64, 65, 127, 1000] {
            var h = SHA256()
            var i = 0
            while i < message.count {
                let end = min(i + split, message.count)
                if (i / split) % 2 == 0 { h.update(message[i..<end]) } else { h.update(message[i..<end].lazy.map { $0 }) }
                i = end
            }
            XCTAssertEqual(h.finalizeHex(), reference, "split \(split)")
        }
    }
}
