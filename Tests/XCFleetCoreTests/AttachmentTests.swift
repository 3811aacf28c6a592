import XCTest
@testable import XCFleetBasics
@testable import XCFleetModel
@testable import XCFleetCore
import XCFleetTestSupport

/// The pure parts of attachments (docs/attachments.md): the host's listing, the cap decisions,
/// names in the run directory, attribution to tests, the tar reader, Swift Testing's lines and the
/// result bundle's export.
final class AttachmentTests: XCTestCase {
    private func hex(_ s: String) -> String { s.utf8.map { String(format: "%02x", $0) }.joined() }

    private func listing(_ entries: [(String, String, Int)], truncated: Bool = false) -> AttachmentSelection.Listing {
        AttachmentSelection.parseListing(entries.map { "\($0.0)\t\($0.2)\t\(hex($0.1))" }.joined(separator: "\n") + (truncated ? "\nt\n" : "\n"))
    }

    func testTheListingReadsKindsSizesAndRawNamesAndIgnoresGarbage() {
        let text = "f\t12\t\(hex("a b/c.png"))\nl\t0\t\(hex("link"))\no\t0\t\(hex("fifo"))\nf\tx\t00\nf\t1\tzz\nq\t1\t\(hex("q"))\nf\t3\t\(hex("line\nbreak"))\nt\n"
        let l = AttachmentSelection.parseListing(text)
        XCTAssertTrue(l.truncated)
        XCTAssertEqual(l.entries.map(\.name), ["a b/c.png", "fifo", "line\nbreak", "link"], "sorted by name; unreadable lines skipped")
        XCTAssertEqual(l.entries.first?.bytes, 12)
        XCTAssertEqual(l.entries.first { $0.name == "link" }?.kind, .link)
    }

    func testCapsDecideInNameOrderAndSayWhy() {
        let limits = AttachmentLimits(fileBytes: 100, runBytes: 250, filesPerAttempt: 3)
        let l = listing([("f", "a.txt", 90), ("f", "b.png", 101), ("l", "c", 0), ("o", "d", 0), ("f", "e.log", 90), ("f", "g.txt", 90),
                         ("f", "h.txt", 1), ("f", "bad\u{1}name", 1)], truncated: true)
        let d = AttachmentSelection.decide(l, limits: limits, runBytesUsed: 60)
        XCTAssertEqual(d.take.map(\.name), ["a.txt", "e.log", "h.txt"])
        XCTAssertEqual(d.bytes, 181)
        let why = Dictionary(uniqueKeysWithValues: d.leftOut.map { ($0.name, $0.reason) })
        XCTAssertEqual(why["b.png"], "over the per-file cap of 100 bytes")
        XCTAssertEqual(why["c"], "a symbolic link (links are not followed)")
        XCTAssertEqual(why["d"], "not a regular file")
        XCTAssertEqual(why["g.txt"], "over the run's cap of 250 bytes (240 bytes already fetched)")
        XCTAssertEqual(why["bad\u{1}name"], "its name is not plain text")
        XCTAssertEqual(why["…"], "the folder holds more entries than the host lists (2000)")
        // The per-attempt file count.
        let many = listing((0..<5).map { ("f", "f\($0)", 1) })
        let counted = AttachmentSelection.decide(many, limits: limits, runBytesUsed: 0)
        XCTAssertEqual(counted.take.count, 3)
        XCTAssertEqual(counted.leftOut.map(\.reason), Array(repeating: "over the cap of 3 files per attempt", count: 2))
        // A run already at its cap takes nothing more; the defaults are the documented ones.
        XCTAssertTrue(AttachmentSelection.decide(many, limits: limits, runBytesUsed: 250).take.isEmpty)
        XCTAssertEqual(AttachmentLimits.defaults, AttachmentLimits(fileBytes: 20 << 20, runBytes: 200 << 20, filesPerAttempt: 100))
        XCTAssertEqual(AttachmentSelection.size(20 << 20), "20 MiB")
        XCTAssertEqual(AttachmentSelection.size(1536), "1.5 KiB")
    }

    func testHostileNamesBecomePlainPathsInsideTheAttemptsFolder() {
        var taken = Set<String>()
        let hostile = ["../../etc/passwd", "/abs/x.png", "a/./b/../c.txt", ".hidden", "<img src=x onerror=alert(1)>.png", "page.HTML",
                       "x.svg", "deep/1/2/3/4/5/6/f.txt", "shot.png", "SHOT.png", String(repeating: "n", count: 300) + ".png", "é—ü.txt", "\u{202E}gnp.exe"]
        var paths: [String] = []
        for name in hostile { paths.append(AttachmentNames.safePath(name, taken: &taken)) }
        for p in paths {
            let parts = p.split(separator: "/", omittingEmptySubsequences: false)
            XCTAssertTrue(parts.count <= AttachmentNames.maxDepth + 1, p)
            for c in parts {
                XCTAssertNil(SafePath.componentProblem(String(c)), p)
                XCTAssertFalse(c.hasPrefix("."), p)
                XCTAssertTrue(c.utf8.count <= AttachmentNames.maxComponent + 4, p)
                XCTAssertTrue(c.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "._-".unicodeScalars.contains($0)) }, p)
            }
            let full = AttachmentNames.runPath(jobID: "gate/../x", attempt: 2, safeName: p)
            XCTAssertNotNil(ReportAttachments.linkablePath(full), full)
            XCTAssertTrue(full.hasPrefix("attachments/gate_2f_2e_2e_2fx/2/"), full)
        }
        XCTAssertEqual(paths[0], "_./_./etc/passwd")
        XCTAssertEqual(paths[5], "page.HTML.txt", "a page is never stored under a name a browser runs")
        XCTAssertEqual(paths[6], "x.svg.txt")
        XCTAssertEqual(paths[7], "deep/1/2/3/4_5_6_f.txt")
        XCTAssertEqual(paths[9], "SHOT-2.png", "names that differ only in case stay apart (case-insensitive file systems)")
        XCTAssertEqual(Set(paths).count, paths.count)
        XCTAssertEqual(AttachmentNames.kind(of: "a/b.PNG"), .image)
        XCTAssertEqual(AttachmentNames.kind(of: "v.mov"), .video)
        XCTAssertEqual(AttachmentNames.kind(of: "page.html.txt"), .text)
        XCTAssertEqual(AttachmentNames.kind(of: "core"), .other)
    }

    func testRenderersLinkOnlyPathsXCFleetWrites() {
        for bad in ["../x.png", "attachments/../../x", "attachments/j/1/a b.png", "attachments/j/1/.x", "javascript:alert(1)", "/etc/passwd",
                    "attachments/j/1/x\".png", "attachments//1/x", "attachments/j/1"] {
            XCTAssertNil(ReportAttachments.linkablePath(bad), bad)
        }
        XCTAssertEqual(ReportAttachments.linkablePath("attachments/j/1/a/b.png"), "attachments/j/1/a/b.png")
    }

    func testAttributionFollowsTheRunnerThenTheFolderNamedAfterATest() {
        let tests = [TestIdentifier(suite: "Mod.StoreTests", name: "testLoad"), TestIdentifier(suite: "", name: "attaches()")]
        let recorded = ["note.txt": TestIdentifier(suite: "", name: "attaches()")]
        XCTAssertEqual(AttachmentAttribution.test(for: "note.txt", recorded: recorded, tests: tests), "attaches()")
        XCTAssertEqual(AttachmentAttribution.test(for: "StoreTests/testLoad/shot.png", recorded: [:], tests: tests), "StoreTests/testLoad")
        XCTAssertEqual(AttachmentAttribution.test(for: "attaches()/x.txt", recorded: [:], tests: tests), "attaches()")
        XCTAssertNil(AttachmentAttribution.test(for: "StoreTests/testLoad", recorded: [:], tests: tests), "a file named like a test is no folder")
        XCTAssertNil(AttachmentAttribution.test(for: "Other/testLoad/x.png", recorded: [:], tests: tests))
        XCTAssertNil(AttachmentAttribution.test(for: "loose.txt", recorded: [:], tests: tests))
    }

    func testSwiftTestingAttachedLinesAreEvents() {
        let log = """
        ◇ Test attaches() started.
        ⎙ Attached 'note.txt' to attaches().
        ↳ Written to '/w/job/.xcfleet-attachments/note.txt'.
        ⎙ Attached 'it's "quoted" ' to x' to "Display name".
        ✘ Test attaches() failed after 0.001 seconds with 1 issue.

        """
        let events = OutputParser.parse(Data(log.utf8))
        let attached = events.compactMap { e -> String? in
            if case .attachmentRecorded(let id, let name) = e { return "\(id?.name ?? "-")|\(name)" }
            return nil
        }
        XCTAssertEqual(attached, ["attaches()|note.txt", "Display name|it's \"quoted\" ' to x"])
        XCTAssertEqual(AttachmentAttribution.recorded(in: events)["note.txt"], TestIdentifier(suite: "", name: "attaches()"))
        // Old logs without the case still decode; the new case round-trips.
        let e = TestEvent.attachmentRecorded(TestIdentifier(suite: "", name: "a()"), name: "n")
        XCTAssertEqual(try JSONDecoder().decode(TestEvent.self, from: JSONEncoder().encode(e)), e)
    }

    func testTheExportCommandIsGoldenAndTheManifestIsRead() throws {
        let command = XCResultAttachments.exportCommand(bundle: "/w/App.ab12/result.xcresult", output: "/w/App.ab12/.xcfleet-xcresult-attachments",
                                                        developerDir: "/Applications/Xcode 16.app/Contents/Developer")
        try GoldenFile.assertMatches(XcodeCommandLine.render(command) + "\n", "xcresult-export-attachments.txt", what: "xcresulttool export attachments")
        XCTAssertEqual(command.arguments, ["xcrun", "xcresulttool", "export", "attachments", "--path", "/w/App.ab12/result.xcresult",
                                           "--output-path", "/w/App.ab12/.xcfleet-xcresult-attachments", "--only-failures"])
        XCTAssertTrue(XCResultAttachments.available(XcodeVersion(version: "16.2", build: "16C5032a")))
        XCTAssertFalse(XCResultAttachments.available(XcodeVersion(version: "15.4", build: "15F31d")))

        let data = try Data(contentsOf: TestPaths.fixtures.appendingPathComponent("attachments/xcresult-export-manifest.json"))
        let files = try XCResultAttachments.parseManifest(data)
        XCTAssertEqual(files.map(\.file), ["0C5E6F1A-3B7D-4C2E-9A41-7F3D2B8E9C10.png", "A8D1F0E2-6C3B-4E5D-8F7A-1B2C3D4E5F60.txt",
                                           "B1C2D3E4-0000-4000-8000-000000000001.mp4"], "a path, the manifest itself and an entry without a file are skipped")
        XCTAssertEqual(files.map(\.test), ["LoginTests/testLogin", "LoginTests/testLogin", "CartTests/testTotal"])
        XCTAssertEqual(files[0].name, "Screenshot_0_0C5E6F1A-3B7D-4C2E-9A41-7F3D2B8E9C10.png")
        XCTAssertEqual(files[2].name, files[2].file, "no suggested name: the file's")
        XCTAssertThrowsError(try XCResultAttachments.parseManifest(Data("{}".utf8)))
        XCTAssertThrowsError(try XCResultAttachments.parseManifest(Data("not json".utf8)))
    }
}
