import Foundation
import XCTest

/// Paths and external tools for the reporter tests.
enum ReportingTestSupport {
    /// The package root: the folder holding `Package.swift` above this file.
    static var packageRoot: URL {
        var dir = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        while dir.path != "/" {
            if FileManager.default.fileExists(atPath: dir.appendingPathComponent("Package.swift").path) { return dir }
            dir.deleteLastPathComponent()
        }
        return URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    }

    /// `../shared` beside the package root (`XCFLEET_SHARED_DIR` overrides it, e.g. in a worktree).
    static var sharedDir: URL {
        if let dir = ProcessInfo.processInfo.environment["XCFLEET_SHARED_DIR"], !dir.isEmpty { return URL(fileURLWithPath: dir) }
        return packageRoot.appendingPathComponent("../shared").standardizedFileURL
    }
    static var fixturesDir: URL { URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures") }

    /// A fresh temporary directory.
    static func tempDir(_ name: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("xcfleet-\(name)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// Finds an executable on PATH (nil when absent).
    static func which(_ tool: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for dir in path.split(separator: ":") {
            let candidate = "\(dir)/\(tool)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// Runs a tool to completion (tests only: synchronous, on the test's own thread).
    static func run(_ executable: String, _ arguments: [String], timeout: TimeInterval = 120) throws -> Result {
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
}
