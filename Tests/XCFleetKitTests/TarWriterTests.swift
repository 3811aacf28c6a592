import Foundation
import XCTest
@testable import XCFleetKit
import XCFleetTestSupport

final class TarWriterTests: XCTestCase {
    private func run(_ args: [String], cwd: String? = nil) throws -> (Int32, String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = args
        if let cwd { p.currentDirectoryURL = URL(fileURLWithPath: cwd) }
        let pipe = Pipe()
        p.standardOutput = pipe
        p.standardError = pipe
        try p.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return (p.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    func testSystemTarExtractsFilesDirectoriesModesAndLongPaths() throws {
        let longDir = String(repeating: "d", count: 90) + "/" + String(repeating: "e", count: 90)
        let longName = longDir + "/" + String(repeating: "f", count: 60) + ".swift"          // needs the prefix field
        let veryLong = String(repeating: "x", count: 120) + "/" + String(repeating: "y", count: 130)  // needs PAX
        let ws = Workspace(files: [
            WorkspaceFile(path: "Package.swift", contents: Data("// pkg\n".utf8)),
            WorkspaceFile(path: "Sources/A/a.swift", contents: Data("let a = \"é€😀\"\n".utf8)),
            WorkspaceFile(path: "scripts/run.sh", contents: Data("#!/bin/sh\necho hi\n".utf8), executable: true),
            WorkspaceFile(path: longName, contents: Data(repeating: 7, count: 1000)),
            WorkspaceFile(path: veryLong, contents: Data(repeating: 9, count: 513)),
            WorkspaceFile(path: "empty.txt", contents: Data()),
        ])
        var writer = try TarWriter(workspace: ws, mtime: 1_700_000_000)
        let archive = writer.archive()
        XCTAssertEqual(archive.count % 512, 0)
        XCTAssertNil(writer.next(), "finished writers produce nothing more")
        let dir = NSTemporaryDirectory() + "tarwriter-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Data(archive).write(to: URL(fileURLWithPath: dir + "/a.tar"))
        try FileManager.default.createDirectory(atPath: dir + "/out", withIntermediateDirectories: true)
        let (status, text) = try run(["tar", "-x", "-f", dir + "/a.tar", "-C", dir + "/out"])
        XCTAssertEqual(status, 0, text)
        XCTAssertTrue(text.isEmpty, "tar warnings: \(text)")
        for f in ws.files {
            let path = dir + "/out/" + f.path
            XCTAssertEqual(FileManager.default.contents(atPath: path), f.contents, f.path)
            let mode = (try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int) ?? 0
            XCTAssertEqual(mode & 0o111 != 0, f.executable, "mode of \(f.path): \(String(mode, radix: 8))")
        }
        let (_, listing) = try run(["tar", "-t", "-v", "-f", dir + "/a.tar"])
        XCTAssertTrue(listing.contains("2023-11-14"), "mtime written: \(listing)")
    }

    func testUnsafePathsAreRejected() {
        for bad in ["../evil", "/etc/passwd", "a/../../b", "a\nb", "a//b", "./a"] {
            XCTAssertThrowsError(try TarWriter(entries: [.file(path: bad, contents: Data(), mode: 0o644)]), bad)
            XCTAssertThrowsError(try TarWriter(workspace: Workspace(files: [WorkspaceFile(path: bad, contents: Data())])), bad)
        }
    }

    func testPaxRecordLengthCountsItself() {
        for n in [1, 5, 90, 95, 96, 200, 995, 1000] {
            let record = TarWriter.paxRecord(key: "path", value: Array(repeating: UInt8(ascii: "a"), count: n))
            let text = String(decoding: record, as: UTF8.self)
            let declared = Int(text.prefix(while: { $0 != " " }))
            XCTAssertEqual(declared, record.count, text)
        }
    }
}
