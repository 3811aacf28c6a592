import XCTest
@testable import XCFleetKit
import XCFleetTestSupport

final class SwiftPMDriverTests: XCTestCase {
    func testCommandLines() {
        let driver = SwiftPMDriver()
        XCTAssertEqual(driver.buildCommand().arguments, ["swift", "build", "--build-tests"])
        let all = driver.testCommand().arguments
        XCTAssertEqual(Array(all.suffix(3)), ["swift", "test", "--skip-build"])
        XCTAssertEqual(Array(all.prefix(2)), ["sh", "-c"])
        let shard = driver.testCommand(only: ["MemoryKeyTests/testC1_a", "Weird.(Tests)/test$x"]).arguments
        XCTAssertEqual(Array(shard.suffix(2)), ["--filter", #"^([^/]*\.)?(MemoryKeyTests/testC1_a|Weird\.\(Tests\)/test\$x)$"#])
    }

    /// `swift test --filter` matches `Module.Class/test`: the expression takes exactly the listed tests.
    func testFilterMatchesExactlyTheListedTests() throws {
        let pattern = SwiftPMDriver.filterExpression(for: ["MemoryKeyTests/testC1_a", "CachedLoaderTests/testC6_b"])
        let regex = try NSRegularExpression(pattern: pattern)
        func matches(_ s: String) -> Bool { regex.firstMatch(in: s, range: NSRange(s.startIndex..., in: s)) != nil }
        XCTAssertTrue(matches("CacheContractTests.MemoryKeyTests/testC1_a"))
        XCTAssertTrue(matches("CachedLoaderTests/testC6_b"))
        XCTAssertFalse(matches("CacheContractTests.MemoryKeyTests/testC1_ab"))
        XCTAssertFalse(matches("CacheContractTests.OtherMemoryKeyTests/testC1_a"))
    }

    /// Output written through C stdio into a pipe arrives line by line, not at the end.
    func testTestOutputIsLineBuffered() async throws {
        var host = HostSpec.local
        host.workRoot = try TestPaths.temporaryDirectory().path
        let shell = LocalShell(host: host)
        let dir = try await shell.makeJobDirectory(jobID: "buffer")
        final class FirstChunk: @unchecked Sendable { let lock = NSLock(); var at: Date?; var text = "" }
        let first = FirstChunk()
        let started = Date()
        let command = ShellCommand(SwiftPMDriver.lineBuffered + ["sh", "-c", "(echo a; sleep 2; echo b) | tr a-z A-Z"])
        let result = try await shell.run(command, in: dir, deadlines: CommandDeadlines(total: 30, silence: 30)) { chunk in
            first.lock.lock(); if first.at == nil { first.at = Date() }; first.text += String(decoding: chunk.bytes, as: UTF8.self); first.lock.unlock()
        }
        XCTAssertEqual(result, .exited(0))
        XCTAssertEqual(first.text, "A\nB\n")
        let delay = try XCTUnwrap(first.at).timeIntervalSince(started)
        XCTAssertLessThan(delay, 1.5, "the first line waited for the end of the command")
    }
}
