import Foundation
import XCTest
@testable import XCFleetKit
import XCFleetTestSupport

/// What a team's suite pushes, with a real git repository: tracked files, the suite folder's
/// untracked-but-not-ignored files, never ignored files, build products or links out.
final class RepositoryFilesTests: XCTestCase {
    var repo: URL!

    override func setUpWithError() throws {
        repo = FileManager.default.temporaryDirectory.appendingPathComponent("xcfleet-repo-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: repo.appendingPathComponent("App/Sources/App"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: repo.appendingPathComponent("Docs"), withIntermediateDirectories: true)
        func write(_ path: String, _ text: String = "x\n") throws {
            let url = repo.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: url)
        }
        try write(".gitignore", "*.log\nsecret/\n")
        try write("App/Package.swift")
        try write("App/Sources/App/A.swift")
        try write("App/Sources/App/Gone.swift")
        try write("Docs/guide.md")
        try write("Docs/with space ü.md")
        try TestShell.run("cd '\(repo.path)' && git init -q && git -c user.email=t@e -c user.name=t add -A && git -c user.email=t@e -c user.name=t commit -qm init")
        // A dirty tree: a new file in the suite folder, one elsewhere, ignored files, a deleted one,
        // build products that nobody ignored, and links in and out.
        try write("App/Sources/App/New.swift")
        try write("Docs/draft.md")
        try write("App/build.log")
        try write("App/secret/key.pem")
        try write("App/.build/debug/App.o")
        try write("App/DerivedData/x")
        try FileManager.default.removeItem(at: repo.appendingPathComponent("App/Sources/App/Gone.swift"))
        try FileManager.default.createSymbolicLink(atPath: repo.appendingPathComponent("App/inside").path, withDestinationPath: "Sources/App/A.swift")
        try FileManager.default.createSymbolicLink(atPath: repo.appendingPathComponent("App/outside").path, withDestinationPath: "/etc/passwd")
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: repo)
    }

    func testTrackedFilesAndTheSuiteFoldersNewFilesNothingIgnoredOrBuilt() async throws {
        let listing = try await RepositoryFiles.list(directory: repo.appendingPathComponent("App").path)
        XCTAssertEqual(URL(fileURLWithPath: listing.root).resolvingSymlinksInPath().path, repo.resolvingSymlinksInPath().path)
        XCTAssertEqual(listing.files, [".gitignore", "App/Package.swift", "App/Sources/App/A.swift", "App/Sources/App/New.swift",
                                       "App/inside", "Docs/guide.md", "Docs/with space ü.md"])
        let skipped = Dictionary(uniqueKeysWithValues: listing.skipped.map { ($0.path, $0.reason) })
        XCTAssertEqual(skipped["App/Sources/App/Gone.swift"], "missing in the working tree")
        XCTAssertEqual(skipped["App/outside"], "a link that leads out of the repository")
        XCTAssertEqual(skipped["App/.build/debug/App.o"], "a build product")
        XCTAssertEqual(skipped["App/DerivedData/x"], "a build product")
        XCTAssertNil(skipped["App/build.log"], "ignored files are not even listed")
        XCTAssertFalse(listing.files.contains("Docs/draft.md"), "untracked files outside the suite folder stay home")
    }

    func testAFolderOutsideAnyRepositoryIsAClearUsageError() async throws {
        let plain = FileManager.default.temporaryDirectory.appendingPathComponent("xcfleet-norepo-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: plain, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: plain) }
        do {
            _ = try await RepositoryFiles.list(directory: plain.path)
            XCTFail("a folder outside a repository was listed")
        } catch let error as RepositoryFiles.ListingError {
            XCTAssertEqual(error.exitCode, 2)
            XCTAssertTrue(error.userMessage.contains("not inside a git repository"), error.userMessage)
            XCTAssertFalse(error.userMessage.contains("\n"))
        }
    }

    func testNamesThatAreNotPlainPathsAreLeftOut() {
        let listing = RepositoryFiles.filter(["a/../../etc/passwd", "/abs", "ok\u{1B}[2J", "a//b"], root: repo.path)
        XCTAssertEqual(listing.files, [])
        XCTAssertEqual(listing.skipped.count, 4)
        XCTAssertTrue(listing.skipped.allSatisfy { $0.reason.hasPrefix("not a plain path") }, "\(listing.skipped)")
    }
}
