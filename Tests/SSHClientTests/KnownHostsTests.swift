import Foundation
import XCTest
@testable import SSHClient
import XCFleetTestSupport

/// Pure known_hosts logic (no network): matching, hashing, fingerprints, OpenSSH compatibility.
final class KnownHostsTests: XCTestCase {
    private let blobA: [UInt8] = Array("\u{0}\u{0}\u{0}\u{b}ssh-ed25519\u{0}\u{0}\u{0} AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA".utf8)
    private let blobB: [UInt8] = Array("\u{0}\u{0}\u{0}\u{b}ssh-ed25519\u{0}\u{0}\u{0} BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB".utf8)

    private func line(_ name: String, _ blob: [UInt8]) -> String {
        "\(name) ssh-ed25519 \(Data(blob).base64EncodedString())"
    }

    func testDigestsMatchKnownVectors() {
        XCTAssertEqual(hex(Digest.sha256(Array("abc".utf8))), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        XCTAssertEqual(hex(Digest.sha1(Array("abc".utf8))), "a9993e364706816aba3e25717850c26c9cd0d89d")
        XCTAssertEqual(hex(Digest.sha1([])), "da39a3ee5e6b4b0d3255bfef95601890afd80709")
        // RFC 2202 test case 2.
        XCTAssertEqual(hex(Digest.hmacSHA1(key: Array("Jefe".utf8), message: Array("what do ya want for nothing?".utf8))),
                       "effcdf6ae5eb2fa2d27416d5f184df9c259a7c79")
        let million = [UInt8](repeating: 0x61, count: 1_000_000)
        XCTAssertEqual(hex(Digest.sha256(million)), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    func testPortNameIsExactNoBareHostFallback() {
        let kh = KnownHosts(text: line("127.0.0.1", blobA) + "\n")
        XCTAssertEqual(kh.verify(name: "127.0.0.1", keyBlob: blobA), .match)
        XCTAssertEqual(kh.verify(name: "[127.0.0.1]:2201", keyBlob: blobA), .unknown)
        let kh2 = KnownHosts(text: line("[127.0.0.1]:2201", blobA))
        XCTAssertEqual(kh2.verify(name: "[127.0.0.1]:2201", keyBlob: blobA), .match)
        XCTAssertEqual(kh2.verify(name: "127.0.0.1", keyBlob: blobA), .unknown)
        XCTAssertEqual(SSHTarget(host: "h", port: 22, user: "u").knownHostsName, "h")
        XCTAssertEqual(SSHTarget(host: "::1", port: 2222, user: "u").knownHostsName, "[::1]:2222")
    }

    /// Found by the knownhosts fuzz target: a name that starts with a Unicode space (U+2000) was
    /// trimmed off its own line, so a line xcfleet wrote for it did not match it. Only spaces and
    /// tabs surround fields, as in OpenSSH.
    func testAWrittenLineMatchesANameWithUnicodeSpaces() {
        let key: [UInt8] = Array("key".utf8)
        // U+0600 is a "prepend" character: as a grapheme cluster it swallows the space after it,
        // so lines and fields are split on bytes. U+0301 after the name's end combines likewise.
        for name in ["\u{2000}mac-1", "mac\u{00A0}1", "mac-1\u{3000}", "mac-1\u{0600}", "\u{0301}mac", "e\u{0301}"] {
            let hosts = KnownHosts(text: KnownHosts.plainLine(name: name, keyType: "ssh-ed25519", keyBlob: key))
            XCTAssertEqual(hosts.verify(name: name, keyBlob: key), .match, name.debugDescription)
        }
        XCTAssertEqual(KnownHosts(text: "  \tmac-1 ssh-ed25519 a2V5 \r").verify(name: "mac-1", keyBlob: key), .match)
        // Names compare scalar by scalar, as OpenSSH compares bytes: a decomposed é is not é.
        XCTAssertEqual(KnownHosts(text: "e\u{0301} ssh-ed25519 a2V5").verify(name: "\u{00E9}", keyBlob: key), .unknown)
    }

    func testChangedRevokedPatternsAndComments() {
        let text = """
        # comment

        \(line("a.example,b.example", blobA))
        @revoked \(line("*", blobB))
        @cert-authority \(line("*.example", blobA))
        \(line("*.corp,!bad.corp", blobA))
        garbage line
        """
        let kh = KnownHosts(text: text)
        XCTAssertEqual(kh.verify(name: "b.example", keyBlob: blobA), .match)
        XCTAssertEqual(kh.verify(name: "B.EXAMPLE", keyBlob: blobA), .match, "names are case-insensitive")
        XCTAssertEqual(kh.verify(name: "a.example", keyBlob: blobB), .revoked)
        XCTAssertEqual(kh.verify(name: "x.corp", keyBlob: blobA), .match)
        XCTAssertEqual(kh.verify(name: "bad.corp", keyBlob: blobA), .unknown, "negated pattern")
        XCTAssertEqual(kh.verify(name: "c.example", keyBlob: blobA), .unknown, "@cert-authority lines are not host keys")
        let changed = KnownHosts(text: line("h", blobA))
        guard case .changed(let known) = changed.verify(name: "h", keyBlob: blobB) else { return XCTFail() }
        XCTAssertEqual(known.map(\.line), [1])
        XCTAssertEqual(changed.keyTypes(for: "h"), ["ssh-ed25519"])
        XCTAssertEqual(changed.keyTypes(for: "other"), [])
    }

    func testHashedLineRoundTripsAndOpenSSHFindsIt() throws {
        let salt: [UInt8] = Array(0..<20)
        let hashed = KnownHosts.hashedLine(name: "[10.0.0.7]:2222", keyType: "ssh-ed25519", keyBlob: blobA, salt: salt)
        XCTAssertTrue(hashed.hasPrefix("|1|"))
        let kh = KnownHosts(text: hashed)
        XCTAssertEqual(kh.verify(name: "[10.0.0.7]:2222", keyBlob: blobA), .match)
        XCTAssertEqual(kh.verify(name: "10.0.0.7", keyBlob: blobA), .unknown)
        // ssh-keygen -F must find it (OpenSSH's own hashing).
        let file = NSTemporaryDirectory() + "kh-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: file) }
        try KnownHosts.append(line: hashed, to: file)
        let found = try TestHosts.shell(["ssh-keygen", "-F", "[10.0.0.7]:2222", "-f", file], check: false)
        XCTAssertTrue(found.contains("ssh-ed25519"), found)
        let attributes = try FileManager.default.attributesOfItem(atPath: file)
        XCTAssertEqual((attributes[.posixPermissions] as? Int) ?? 0, 0o600)
    }

    func testFingerprintMatchesSSHKeygen() throws {
        let dir = NSTemporaryDirectory() + "fp-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try TestHosts.shell(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", dir + "/k"])
        let pub = try String(contentsOfFile: dir + "/k.pub", encoding: .utf8).split(separator: " ")
        let blob = try XCTUnwrap(Data(base64Encoded: String(pub[1])))
        let expected = try TestHosts.shell(["ssh-keygen", "-l", "-E", "sha256", "-f", dir + "/k.pub"]).split(separator: " ")[1]
        XCTAssertEqual(KnownHosts.fingerprint([UInt8](blob)), String(expected))
        XCTAssertEqual(PrivateKeyInfo.keyType(ofFileAt: dir + "/k"), "ssh-ed25519")
        try TestHosts.shell(["ssh-keygen", "-q", "-t", "rsa", "-b", "1024", "-N", "pw", "-f", dir + "/r"])
        XCTAssertEqual(PrivateKeyInfo.keyType(ofFileAt: dir + "/r"), "ssh-rsa", "public part is readable without the passphrase")
        XCTAssertNil(PrivateKeyInfo.keyType(pem: "-----BEGIN OPENSSH PRIVATE KEY-----\nAAAA\n-----END OPENSSH PRIVATE KEY-----"))
    }

    private func hex(_ b: [UInt8]) -> String { b.map { String(format: "%02x", $0) }.joined() }
}

extension KnownHostsTests {
    func testHashedEntriesMatchNamesCaseInsensitively() {
        let salt: [UInt8] = Array(0..<20)
        let blobA: [UInt8] = Array("\u{0}\u{0}\u{0}\u{b}ssh-ed25519 key-a".utf8)
        let blobB: [UInt8] = Array("\u{0}\u{0}\u{0}\u{b}ssh-ed25519 key-b".utf8)
        // What `ssh-keygen -H` writes for "localhost": the lower-cased name hashed.
        let mac = Digest.hmacSHA1(key: salt, message: Array("[localhost]:2222".utf8))
        let line = "|1|\(Data(salt).base64EncodedString())|\(Data(mac).base64EncodedString()) ssh-ed25519 \(Data(blobA).base64EncodedString())"
        let kh = KnownHosts(text: line)
        XCTAssertEqual(kh.verify(name: "[LocalHost]:2222", keyBlob: blobA), .match)
        if case .changed = kh.verify(name: "[LocalHost]:2222", keyBlob: blobB) {} else { XCTFail("a changed key must be reported as changed") }
        // And hashed lines are written for the lower-cased name.
        XCTAssertEqual(KnownHosts.hashedLine(name: "[LocalHost]:2222", keyType: "ssh-ed25519", keyBlob: blobA, salt: salt), line)
    }
}
