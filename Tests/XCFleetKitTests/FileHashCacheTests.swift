import Foundation
import XCTest
@testable import XCFleetKit
import XCFleetBasics
import XCFleetModel
import XCFleetTestSupport

/// Reading a team's repository hashes only the files that changed since the last read: a real git
/// repository, real files and times; every hash read must be the SHA-256 of the contents read.
final class FileHashCacheTests: XCTestCase {
    var repo: URL!
    var cache: URL!

    override func setUpWithError() throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("xcfleet-hashes-\(UUID().uuidString)")
        repo = base.appendingPathComponent("repo")
        cache = base.appendingPathComponent("cache")
        try FileManager.default.createDirectory(at: repo.appendingPathComponent("Sources"), withIntermediateDirectories: true)
        for name in ["A", "B", "C"] { try write("Sources/\(name).swift", "let \(name.lowercased()) = 1\n") }
        try TestShell.run("cd '\(repo.path)' && git init -q && git add -A")
        for name in ["A", "B", "C"] { try age("Sources/\(name).swift") }
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: repo.deletingLastPathComponent())
    }

    private func write(_ path: String, _ text: String) throws {
        try Data(text.utf8).write(to: repo.appendingPathComponent(path))
    }

    /// Last modified an hour ago (older than the racy window; the change time stays now).
    private func age(_ path: String, seconds: Double = 3600) throws {
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(-seconds)], ofItemAtPath: repo.appendingPathComponent(path).path)
    }

    private func read() async throws -> Workspace {
        try await PackageWorkspace.read(folder: repo.path, hashCache: cache.path)
    }

    private func assertHashesAreTheContents(_ ws: Workspace, file: StaticString = #filePath, line: UInt = #line) {
        for f in ws.files { XCTAssertEqual(f.sha256, SHA256.hash(f.contents).map { String(format: "%02x", $0) }.joined(), f.path, file: file, line: line) }
    }

    private func cacheLines() throws -> [String] {
        let files = try FileManager.default.contentsOfDirectory(atPath: cache.path).filter { !$0.hasSuffix(".tmp") }
        guard let name = files.first else { return [] }
        return try String(contentsOf: cache.appendingPathComponent(name), encoding: .utf8).split(separator: "\n").map(String.init)
    }

    func testUnchangedFilesAreRememberedAndChangedOnesHashedAgain() async throws {
        // Files changed just now (their change time) are not remembered yet: a second write within the
        // clock's resolution could leave the times as they were.
        assertHashesAreTheContents(try await read())
        XCTAssertEqual(try cacheLines(), [], "nothing recorded inside the racy window")
        // Once their times are older than the window, they are recorded.
        try await Task.sleep(nanoseconds: 2_200_000_000)
        assertHashesAreTheContents(try await read())
        let lines = try cacheLines()
        XCTAssertEqual(lines.count, 3, lines.joined(separator: "\n"))
        // A recorded hash is used while the file's stamp is unchanged: a planted one shows it is.
        let planted = lines.map { $0.hasSuffix(" Sources/B.swift") ? String(repeating: "0", count: 64) + $0.dropFirst(64) : $0 }
        let name = try XCTUnwrap(try FileManager.default.contentsOfDirectory(atPath: cache.path).first)
        try Data((planted.joined(separator: "\n") + "\n").utf8).write(to: cache.appendingPathComponent(name))
        let planted0 = try await read()
        XCTAssertEqual(planted0.file("Sources/B.swift")?.sha256, String(repeating: "0", count: 64))
        // The same size and the old modification time put back: the change time still tells.
        try write("Sources/B.swift", "let x = 2\n")
        try age("Sources/B.swift")
        let changed = try await read()
        assertHashesAreTheContents(changed)
        XCTAssertEqual(String(decoding: try XCTUnwrap(changed.file("Sources/B.swift")).contents, as: UTF8.self), "let x = 2\n")
        // A file git no longer lists leaves the cache.
        try TestShell.run("cd '\(repo.path)' && git rm -q --cached Sources/C.swift && rm Sources/C.swift")
        assertHashesAreTheContents(try await read())
        XCTAssertFalse(try cacheLines().contains { $0.hasSuffix(" Sources/C.swift") })
    }

    func testAFolderOthersMayWriteIsNotUsed() async throws {
        try FileManager.default.createDirectory(at: cache, withIntermediateDirectories: true)
        try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: cache.path)
        assertHashesAreTheContents(try await read())
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: cache.path), [])
    }

    func testAGarbledCacheIsIgnored() async throws {
        _ = try await read()
        let name = try FileManager.default.contentsOfDirectory(atPath: cache.path).first ?? "x"
        try Data("not a line\n\(String(repeating: "z", count: 64)) 1 2 3 4 Sources/A.swift\n".utf8).write(to: cache.appendingPathComponent(name))
        assertHashesAreTheContents(try await read())
    }

    func testAWorkspaceFileHashesItsContentsAsTheyAreNow() {
        var f = WorkspaceFile(path: "a", contents: Data("one".utf8))
        let first = f.sha256
        let copy = f
        f.contents = Data("two".utf8)
        XCTAssertNotEqual(f.sha256, first)
        XCTAssertEqual(copy.sha256, first, "a copy keeps the hash of its own contents")
        XCTAssertEqual(f, WorkspaceFile(path: "a", contents: Data("two".utf8)), "equality is the path, the bit and the contents")
    }
}
