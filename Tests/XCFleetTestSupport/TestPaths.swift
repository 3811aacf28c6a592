import Foundation
import XCTest

/// Paths tests need: the package root (from this file's location), the shared fixtures next to
/// it (CI always has them; a user's clone may not), and the built `xcfleet` binary.
package enum TestPaths {
    package static let packageRoot: URL = {
        var url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        while url.path != "/" {
            if FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) { return url }
            url.deleteLastPathComponent()
        }
        return URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
    }()

    /// The repository's own fixtures, shared by every test target.
    package static let fixtures: URL = packageRoot.appendingPathComponent("Tests/Fixtures")

    /// `../shared` next to the package; skips the calling test with a clear message when absent.
    package static func shared(_ relative: String) throws -> URL {
        let url = packageRoot.deletingLastPathComponent().appendingPathComponent("shared").appendingPathComponent(relative)
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw XCTSkip("\(url.path) is absent: the shared fixtures come with the project's CI checkout, not with a user's clone")
        }
        return url
    }

    /// The `xcfleet` executable built next to the test bundle.
    package static var xcfleetBinary: URL {
        let dir = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for candidate in [dir.appendingPathComponent("xcfleet"), dir.deletingLastPathComponent().appendingPathComponent("xcfleet"),
                          packageRoot.appendingPathComponent(".build/debug/xcfleet")]
        where FileManager.default.isExecutableFile(atPath: candidate.path) {
            return candidate
        }
        return dir.appendingPathComponent("xcfleet")
    }

    package static func temporaryDirectory(_ name: String = #function) throws -> URL {
        let safe = name.filter { $0.isLetter || $0.isNumber }
        let url = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("xcfleet-tests-\(safe)-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}

/// Runs a command to its end (tests only; off the concurrency pool because tests here are synchronous).
package struct CommandResult {
    package var status: Int32
    package var stdout: String
    package var stderr: String

    package init(status: Int32, stdout: String, stderr: String) {
        self.status = status
        self.stdout = stdout
        self.stderr = stderr
    }
}

package func runCommand(_ executable: URL, _ args: [String], cwd: URL? = nil, environment: [String: String] = [:], stdin: Data? = nil) throws -> CommandResult {
    let p = Process()
    p.executableURL = executable
    p.arguments = args
    if let cwd { p.currentDirectoryURL = cwd }
    var env = ProcessInfo.processInfo.environment
    for (k, v) in environment { env[k] = v }
    p.environment = env
    let out = Pipe(), err = Pipe(), inp = Pipe()
    p.standardOutput = out
    p.standardError = err
    p.standardInput = inp
    try p.run()
    if let stdin { inp.fileHandleForWriting.write(stdin) }
    try inp.fileHandleForWriting.close()
    // Drain both pipes concurrently so neither fills up.
    final class Box: @unchecked Sendable { var data = Data() }
    let errBox = Box()
    let group = DispatchGroup()
    group.enter()
    DispatchQueue.global().async { errBox.data = err.fileHandleForReading.readDataToEndOfFile(); group.leave() }
    let outData = out.fileHandleForReading.readDataToEndOfFile()
    group.wait()
    p.waitUntilExit()
    return CommandResult(status: p.terminationStatus, stdout: String(decoding: outData, as: UTF8.self), stderr: String(decoding: errBox.data, as: UTF8.self))
}
