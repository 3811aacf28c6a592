import Foundation
import XCTest

/// Paths and external tools for the reporter tests.
package enum ReportingTestSupport {
    /// The package root: the folder holding `Package.swift` above this file.
    package static var packageRoot: URL { TestPaths.packageRoot }

    /// `../shared` beside the package root (`XCFLEET_SHARED_DIR` overrides it, e.g. in a worktree).
    package static var sharedDir: URL {
        if let dir = ProcessInfo.processInfo.environment["XCFLEET_SHARED_DIR"], !dir.isEmpty { return URL(fileURLWithPath: dir) }
        return packageRoot.appendingPathComponent("../shared").standardizedFileURL
    }
    package static var fixturesDir: URL { TestPaths.fixtures }

    /// A fresh temporary directory.
    package static func tempDir(_ name: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("xcfleet-\(name)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// Finds an executable on PATH (nil when absent).
    package static func which(_ tool: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for dir in path.split(separator: ":") {
            let candidate = "\(dir)/\(tool)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    package typealias Result = CommandResult

    /// Runs a tool to completion (tests only: synchronous, on the test's own thread).
    package static func run(_ executable: String, _ arguments: [String], timeout: TimeInterval = 120) throws -> Result {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: executable)
        p.arguments = arguments
        let outURL = FileManager.default.temporaryDirectory.appendingPathComponent("xcfleet-out-\(UUID().uuidString)")
        let errURL = FileManager.default.temporaryDirectory.appendingPathComponent("xcfleet-err-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        defer {
            try? FileManager.default.removeItem(at: outURL)
            try? FileManager.default.removeItem(at: errURL)
        }
        let out = try FileHandle(forWritingTo: outURL)
        let err = try FileHandle(forWritingTo: errURL)
        p.standardOutput = out
        p.standardError = err
        p.standardInput = FileHandle.nullDevice
        try p.run()
        let deadline = Date().addingTimeInterval(timeout)
        while p.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        if p.isRunning { p.terminate(); p.waitUntilExit() }
        try out.close()
        try err.close()
        let o = String(decoding: (try? Data(contentsOf: outURL)) ?? Data(), as: UTF8.self)
        let e = String(decoding: (try? Data(contentsOf: errURL)) ?? Data(), as: UTF8.self)
        return Result(status: p.terminationStatus, stdout: o, stderr: e)
    }

    /// xmllint against the shared JUnit schema when present (well-formedness only when it is absent);
    /// skips when xmllint is not installed.
    package static func assertValidJUnit(_ xml: String, file: StaticString = #filePath, line: UInt = #line) throws {
        guard let xmllint = which("xmllint") else { throw XCTSkip("xmllint not found: apt-get install libxml2-utils") }
        let url = try tempDir("junit-valid").appendingPathComponent("j.xml")
        try Data(xml.utf8).write(to: url)
        let xsd = sharedDir.appendingPathComponent("fixtures/junit/junit-10.xsd")
        var args = ["--noout", url.path]
        if FileManager.default.fileExists(atPath: xsd.path) { args = ["--noout", "--schema", xsd.path, url.path] }
        let r = try run(xmllint, args)
        XCTAssertEqual(r.status, 0, "JUnit not valid: \(r.stderr)", file: file, line: line)
    }
}
