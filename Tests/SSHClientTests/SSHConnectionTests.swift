import Foundation
import SSHClient
import XCTest
import XCFleetTestSupport

final class SSHConnectionTests: XCTestCase {
    var hosts: [TestHosts.Host] = []

    override func setUpWithError() throws {
        hosts = try TestHosts.hosts()
    }

    func testExecStdoutStderrAndExitStatus() async throws {
        let conn = try await hosts[0].connect()
        let out = OutputCollector()
        let result = try await conn.exec("echo hello; echo oops >&2; exit 3") { out.append($0, $1) }
        XCTAssertEqual(result, .exited(3))
        XCTAssertEqual(out.stdoutText, "hello\n")
        XCTAssertEqual(out.stderrText, "oops\n", "pgid marker must be stripped from stderr")
        // A second channel on the same connection works and exits 0.
        let second = try await conn.run("printf abc")
        XCTAssertEqual(second.result, .exited(0))
        XCTAssertEqual(String(decoding: second.stdout, as: UTF8.self), "abc")
        await conn.close()
        do {
            _ = try await conn.run("true")
            XCTFail("exec after close must throw")
        } catch let error as SSHError {
            XCTAssertEqual(error.kind, .closed)
        }
    }

    func testExitSignal() async throws {
        let conn = try await hosts[0].connect()
        let result = try await conn.run("kill -TERM $$")
        XCTAssertEqual(result.result, .signaled("TERM"))
        await conn.close()
    }

    func testStdinBytesAndStream() async throws {
        let conn = try await hosts[0].connect()
        let r1 = try await conn.run("wc -c", stdin: .bytes(Array(repeating: 65, count: 100_000)))
        XCTAssertEqual(r1.result, .exited(0))
        XCTAssertEqual(String(decoding: r1.stdout, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines), "100000")
        let remaining = Counter(10)
        let r2 = try await conn.run("md5sum", stdin: .stream({
            remaining.next() ? Array(repeating: 66, count: 300_000) : nil
        }))
        XCTAssertEqual(r2.result, .exited(0))
        let expected = try TestHosts.shell(["sh", "-c", "head -c 3000000 /dev/zero | tr '\\0' B | md5sum"])
        XCTAssertEqual(String(decoding: r2.stdout, as: UTF8.self), expected)
        await conn.close()
    }
}

final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var left: Int
    init(_ n: Int) { left = n }
    func next() -> Bool {
        lock.lock()
        defer { lock.unlock() }
        left -= 1
        return left >= 0
    }
}
