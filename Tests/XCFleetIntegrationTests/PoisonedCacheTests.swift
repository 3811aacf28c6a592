import Foundation
import XCTest
@testable import XCFleetKit
import XCFleetTestSupport

/// A poisoned build cache, as an attacker on the host would make it, against the real `xcfleet`
/// binary on the built-in local host (the fake `swift`: `FAKE_SWIFT_FAIL` makes the code "broken").
/// The cached test bundle is replaced by a script printing an all-pass log, its digest recomputed
/// the way the cache script does and written into the entry's marker. The next run must not be
/// green: the orchestrator compares the product against the digest it recorded when it built it.
final class PoisonedCacheTests: XCTestCase {
    private let broken = ["FAKE_SWIFT_FAIL": "MemoryKeyTests/testC1_sameResourceOtherAccountMisses"]

    /// Run directories already read, per runs folder: the next call reads the one run added since
    /// (two runs started in the same second have ids whose order says nothing).
    private var seen: [String: Set<String>] = [:]

    private func builds(_ runs: URL) throws -> [BuildRecord] {
        let names = Set(try FileManager.default.contentsOfDirectory(atPath: runs.path))
        let added = names.subtracting(seen[runs.path] ?? [])
        XCTAssertEqual(added.count, 1, "one new run in \(runs.path): \(added.sorted())")
        seen[runs.path] = names
        let run = try XCTUnwrap(added.first)
        return try EventLog.read(runs.appendingPathComponent(run).appendingPathComponent("events.jsonl"))
            .compactMap { if case .build(_, let r) = $0.body { return r } else { return nil } }
    }

    func testAForgedCacheEntryIsRebuiltAndTheBrokenCodeStaysRed() throws {
        let dir = try TestPaths.temporaryDirectory()
        let work = dir.appendingPathComponent("work").path
        let fleet = try FakeToolchain.localFleet(in: dir, hostKeys: #""workRoot": "\#(work)", "#)
        let runs = dir.appendingPathComponent("runs")
        func run(_ runs: URL, _ extra: [String] = []) throws -> CommandResult {
            try FakeToolchain.xcfleet(["run", "Plans/cache-contract.json", "--fleet", fleet.path, "--runs", runs.path] + extra, env: broken)
        }
        let first = try run(runs)
        XCTAssertEqual(first.status, 1, "broken code is red: \(first.stdout)")
        let built = try XCTUnwrap(try builds(runs).first)
        XCTAssertEqual(built.origin, .cold)
        let digest = try XCTUnwrap(built.product, "the run records the product's digest")

        // The attacker: an all-pass bundle, its digest recomputed into the marker.
        let entry = "\(work)/builds/\(built.key)"
        let all = dir.appendingPathComponent("AllPass.xctest").path
        try FileManager.default.copyItem(atPath: TestPaths.packageRoot.appendingPathComponent("scripts/fake-swift.sh").path, toPath: all)
        let forged = try TestShell.run("""
            set -e; cd \(ShellQuote.quote(entry)); chmod -R u+w .
            b=$(ls -d .build/debug/*PackageTests.xctest)
            printf '#!/bin/sh\\nunset FAKE_SWIFT_FAIL\\nexec perl %s "$@"\\n' \(ShellQuote.quote(all)) > "$b"
            h=$(find "$b" -type f | LC_ALL=C sort | while IFS= read -r f; do sha256sum "$f"; done | sha256sum | cut -c1-64)
            sed -i "s/^product=.*/product=$h/" .xcfleet-build; chmod -R a-w .; echo "$h"
            """).trimmingCharacters(in: .whitespacesAndNewlines)
        XCTAssertNotEqual(forged, digest)
        // The forged bundle really passes everything (so a run that used it would be green).
        let bundle = try TestShell.run("ls -d \(ShellQuote.quote(entry))/.build/debug/*PackageTests.xctest").trimmingCharacters(in: .whitespacesAndNewlines)
        let job = try TestPaths.temporaryDirectory("forged-job")
        try Data(#"{"testTarget": "CacheContractTests", "tests": ["MemoryKeyTests/testC1_sameResourceOtherAccountMisses"]}"#.utf8)
            .write(to: job.appendingPathComponent("xcfleet-manifest.json"))
        let pass = try runCommand(URL(fileURLWithPath: bundle), [], cwd: job, environment: broken)
        XCTAssertEqual(pass.status, 0, "the forged bundle passes the broken test: \(pass.stdout)")

        let second = try run(runs)
        XCTAssertEqual(second.status, 1, "the forged entry must not make broken code green: \(second.stdout)")
        XCTAssertFalse(second.stdout.contains("GREEN"), second.stdout)
        let rebuilt = try XCTUnwrap(try builds(runs).first)
        XCTAssertNotEqual(rebuilt.origin, .cached)
        XCTAssertEqual(rebuilt.untrusted, "the test product differs from the SHA-256 xcfleet recorded when it built it")
        XCTAssertEqual(rebuilt.product, digest, "the real product again")

        // Without the orchestrator's record (another history), the entry is not reused either.
        let elsewhere = dir.appendingPathComponent("elsewhere/runs")
        let third = try run(elsewhere)
        XCTAssertEqual(third.status, 1, third.stdout)
        let stranger = try XCTUnwrap(try builds(elsewhere).first)
        XCTAssertNotEqual(stranger.origin, .cached)
        XCTAssertEqual(stranger.untrusted, "xcfleet holds no record of building it on this host")

        // A warm re-run with the history that built it reuses it.
        let fourth = try run(elsewhere)
        XCTAssertEqual(fourth.status, 1)
        XCTAssertEqual(try builds(elsewhere).first?.origin, .cached)
    }
}
