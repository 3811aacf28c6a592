import Foundation
import SSHClient
import XCTest
import XCFleetTestSupport

/// Large outputs, cancellation, deadlines, dead peers and fan-out on real sshd hosts.
final class SSHStreamingTests: XCTestCase {
    var hosts: [TestHosts.Host] = []

    override func setUpWithError() throws {
        hosts = try TestHosts.hosts()
    }

    private func peakRSSKiB() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
        for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
            return Int(line.split(separator: " ").dropFirst().first ?? "0") ?? 0
        }
        return 0
    }

    func test50MBOutputStreamsWithBoundedMemory() async throws {
        let conn = try await hosts[0].connect()
        let counter = ByteCounter()
        let before = peakRSSKiB()
        let start = Date()
        let result = try await conn.exec("head -c 52428800 /dev/zero") { stream, bytes in counter.add(stream, bytes.count) }
        let seconds = Date().timeIntervalSince(start)
        let after = peakRSSKiB()
        XCTAssertEqual(result, .exited(0))
        XCTAssertEqual(counter.stdout, 52_428_800)
        XCTAssertEqual(counter.stderr, 0)
        print("XCFLEET-MEASURE ssh_50MB seconds=\(String(format: "%.2f", seconds)) peak_rss_kib_before=\(before) after=\(after) growth_kib=\(after - before) chunks=\(counter.chunks)")
        XCTAssertLessThan(after - before, 30 * 1024, "peak RSS grew by more than 30 MiB while streaming 50 MB")
        await conn.close()
    }

    func testMultibyteCharactersSplitAcrossChunksSurvive() async throws {
        let conn = try await hosts[1].connect()
        let unit: [UInt8] = [0xC3, 0xA9, 0xE2, 0x82, 0xAC, 0xF0, 0x9F, 0x98, 0x80]  // é € 😀
        let repeats = 200_000
        let out = OutputCollector()
        let chunkSizes = ChunkSizes()
        let result = try await conn.exec(#"perl -e 'binmode STDOUT; print "a", "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80" x 200000'"#) { s, b in
            out.append(s, b)
            chunkSizes.add(b)
        }
        XCTAssertEqual(result, .exited(0))
        var expected: [UInt8] = [0x61]
        for _ in 0..<repeats { expected += unit }
        XCTAssertEqual(out.stdout.count, expected.count)
        XCTAssertTrue(out.stdout == expected, "byte-exact")
        XCTAssertTrue(chunkSizes.someChunkSplitsACharacter, "expected at least one chunk boundary inside a character")
        XCTAssertEqual(String(decoding: out.stdout, as: UTF8.self).unicodeScalars.count, 1 + 3 * repeats)
        await conn.close()
    }

    func testLargeStdoutAndStderrTogetherDoNotDeadlock() async throws {
        let conn = try await hosts[2].connect()
        let counter = ByteCounter()
        let result = try await conn.exec("head -c 8388608 /dev/zero >&2 & head -c 8388608 /dev/zero; wait", total: 60) {
            counter.add($0, $1.count)
        }
        XCTAssertEqual(result, .exited(0))
        XCTAssertEqual(counter.stdout, 8_388_608)
        XCTAssertEqual(counter.stderr, 8_388_608)
        await conn.close()
    }

    /// Process group ids of processes whose command line starts with `prefix`.
    private func processGroupsRunning(_ prefix: String) throws -> [String] {
        try TestHosts.shell(["ps", "-eo", "pgid=,cmd="]).split(separator: "\n").compactMap { line in
            let fields = line.split(separator: " ", maxSplits: 1)
            guard fields.count == 2, fields[1].hasPrefix(prefix) else { return nil }
            return String(fields[0])
        }
    }

    /// Live (non-zombie) processes of group `pgid`.
    private func processesInGroup(_ pgid: String) throws -> [String] {
        try TestHosts.shell(["ps", "-eo", "pgid=,stat=,cmd="]).split(separator: "\n").map(String.init).filter {
            let f = $0.split(separator: " ")
            return f.count >= 2 && String(f[0]) == pgid && !f[1].hasPrefix("Z")
        }
    }

    private func waitUntilGone(_ prefix: String, seconds: Double) async throws -> Double? {
        let start = Date()
        while Date().timeIntervalSince(start) < seconds {
            if try processGroupsRunning(prefix).isEmpty { return Date().timeIntervalSince(start) }
            try await Task.sleep(nanoseconds: 100_000_000)
        }
        return nil
    }

    func testCancelKillsRemoteProcessGroup() async throws {
        let conn = try await hosts[0].connect()
        let out = OutputCollector()
        let task = Task {
            try await conn.exec("echo started; sleep 317 & sleep 318; wait") { out.append($0, $1) }
        }
        // Wait until the command runs.
        let deadline = Date().addingTimeInterval(10)
        while out.stdoutText.isEmpty && Date() < deadline { try await Task.sleep(nanoseconds: 50_000_000) }
        try await Task.sleep(nanoseconds: 200_000_000)
        let groups = try processGroupsRunning("sleep 317")
        XCTAssertEqual(groups.count, 1, "precondition: remote child runs")
        let pgid = try XCTUnwrap(groups.first)
        XCTAssertGreaterThanOrEqual(try processesInGroup(pgid).count, 3, "sh, sleep 317, sleep 318 share the group")
        let cancelledAt = Date()
        task.cancel()
        let result = try await task.value
        XCTAssertEqual(result, .cancelled)
        print("XCFLEET-MEASURE cancel_returned seconds=\(String(format: "%.2f", Date().timeIntervalSince(cancelledAt)))")
        var remaining = try processesInGroup(pgid)
        while !remaining.isEmpty && Date().timeIntervalSince(cancelledAt) < 5 {
            try await Task.sleep(nanoseconds: 100_000_000)
            remaining = try processesInGroup(pgid)
        }
        XCTAssertEqual(remaining, [], "remote process group \(pgid) still alive")
        print("XCFLEET-MEASURE cancel_to_group_gone seconds=\(String(format: "%.2f", Date().timeIntervalSince(cancelledAt)))")
        XCTAssertFalse(out.stderrText.contains("XCFLEET-PGID"))
        // The connection stays usable after a cancel.
        let again = try await conn.run("echo again")
        XCTAssertEqual(again.result, .exited(0))
        await conn.close()
    }

    func testSilenceAndTotalDeadlinesKillTheGroup() async throws {
        let conn = try await hosts[1].connect()
        var start = Date()
        let silent = try await conn.exec("echo hi; sleep 327", silence: 1, total: 30) { _, _ in }
        XCTAssertEqual(silent, .timedOut("silence"))
        XCTAssertLessThan(Date().timeIntervalSince(start), 6)
        let gone = try await waitUntilGone("sleep 327", seconds: 5)
        XCTAssertNotNil(gone)
        start = Date()
        let chatty = try await conn.exec("while true; do echo tick; sleep 0.2; done", silence: 5, total: 1.5) { _, _ in }
        XCTAssertEqual(chatty, .timedOut("total"))
        XCTAssertLessThan(Date().timeIntervalSince(start), 7)
        let after = try await conn.run("echo ok")
        XCTAssertEqual(after.result, .exited(0))
        await conn.close()
    }

    func testDeadPeerIsConnectionLostNotAHang() async throws {
        let h = hosts[3]
        let deadlines = SSHDeadlines(keepaliveInterval: 1, deadPeer: 2)
        let conn = try await h.connect(deadlines: deadlines)
        let listenerPid = try String(contentsOfFile: h.directory + "/\(h.name)/sshd.pid", encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let task = Task { try await conn.exec("sleep 337") { _, _ in } }
        try await Task.sleep(nanoseconds: 500_000_000)
        // Freeze this host's per-connection sshd processes: the TCP connection stays up, nothing answers.
        let children = try TestHosts.shell(["pgrep", "-P", listenerPid]).split(separator: "\n").map(String.init)
        XCTAssertFalse(children.isEmpty)
        var frozen: [String] = []
        for c in children {
            frozen.append(c)
            frozen += try TestHosts.shell(["pgrep", "-P", c], check: false).split(separator: "\n").map(String.init)
        }
        try TestHosts.shell(["kill", "-STOP"] + frozen)
        let start = Date()
        let result = try await task.value
        let elapsed = Date().timeIntervalSince(start)
        try TestHosts.shell(["kill", "-CONT"] + frozen, check: false)
        guard case .connectionLost(let why) = result else { return XCTFail("expected connectionLost, got \(result)") }
        XCTAssertTrue(why.contains("dead peer"), why)
        XCTAssertLessThan(elapsed, 6)
        await conn.close()
        try TestHosts.shell(["pkill", "-f", "sleep 337"], check: false)
    }

    func testKilledServerIsConnectionLostNeverAFakeExitStatus() async throws {
        let h = hosts[2]
        let conn = try await h.connect()
        let listenerPid = try String(contentsOfFile: h.directory + "/\(h.name)/sshd.pid", encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let out = OutputCollector()
        let task = Task { try await conn.exec("echo up; sleep 357") { out.append($0, $1) } }
        let until = Date().addingTimeInterval(10)
        while out.stdoutText.isEmpty && Date() < until { try await Task.sleep(nanoseconds: 50_000_000) }
        // Kill this host's per-connection sshd processes: the TCP connection breaks mid-command.
        let children = try TestHosts.shell(["pgrep", "-P", listenerPid]).split(separator: "\n").map(String.init)
        XCTAssertFalse(children.isEmpty)
        try TestHosts.shell(["kill", "-KILL"] + children)
        let result = try await task.value
        guard case .connectionLost = result else { return XCTFail("expected connectionLost, got \(result)") }
        XCTAssertFalse(conn.isUsable)
        let after = try await conn.exec("true") { _, _ in }
        guard case .connectionLost = after else { return XCTFail("a lost connection must not run commands: \(after)") }
        await conn.close()
        try TestHosts.shell(["pkill", "-f", "sleep 357"], check: false)
    }

    func testSixteenConcurrentConnectionsFinishInAboutTheTimeOfOne() async throws {
        let hosts = self.hosts
        func one(_ h: TestHosts.Host) async throws -> SSHExitResult {
            let c = try await h.connect()
            let r = try await c.run("true")
            await c.close()
            return r.result
        }
        _ = try await one(hosts[0])  // warm up
        var singles: [Double] = []
        for _ in 0..<3 {
            let t = Date()
            let first = try await one(hosts[0])
            XCTAssertEqual(first, .exited(0))
            singles.append(Date().timeIntervalSince(t))
        }
        let single = singles.sorted()[1]  // median of 3
        let start = Date()
        let results = try await withThrowingTaskGroup(of: SSHExitResult.self) { group in
            for i in 0..<16 { group.addTask { try await one(hosts[i % hosts.count]) } }
            var all: [SSHExitResult] = []
            for try await r in group { all.append(r) }
            return all
        }
        let sixteen = Date().timeIntervalSince(start)
        print("XCFLEET-MEASURE ssh_fanout one_seconds=\(String(format: "%.3f", single)) sixteen_seconds=\(String(format: "%.3f", sixteen)) ratio=\(String(format: "%.2f", sixteen / single))")
        XCTAssertEqual(results, Array(repeating: .exited(0), count: 16))
        XCTAssertLessThan(sixteen, 4 * single + 0.5)
    }
}

final class ByteCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var out = 0, err = 0, n = 0
    func add(_ s: SSHStream, _ count: Int) {
        lock.lock(); defer { lock.unlock() }
        n += 1
        if s == .stdout { out += count } else { err += count }
    }
    var stdout: Int { lock.lock(); defer { lock.unlock() }; return out }
    var stderr: Int { lock.lock(); defer { lock.unlock() }; return err }
    var chunks: Int { lock.lock(); defer { lock.unlock() }; return n }
}

final class ChunkSizes: @unchecked Sendable {
    private let lock = NSLock()
    private var split = false
    func add(_ bytes: [UInt8]) {
        lock.lock(); defer { lock.unlock() }
        // A chunk ending in a lead or continuation byte that does not complete a character.
        if let last = bytes.last, last >= 0x80, String(validating: bytes, as: UTF8.self) == nil { split = true }
    }
    var someChunkSplitsACharacter: Bool { lock.lock(); defer { lock.unlock() }; return split }
}
