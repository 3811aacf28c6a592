import Foundation
import XCFleetKit

/// Small synchronous commands for tests.
package enum TestShell {
    @discardableResult
    package static func run(_ command: String) throws -> String {
        try runProcess("/bin/sh", ["-c", command]).stdout
    }

    package static func runProcess(_ path: String, _ args: [String], cwd: URL = TestPaths.packageRoot) throws -> CommandResult {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: path)
        p.arguments = args
        p.currentDirectoryURL = cwd
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        try p.run()
        let o = out.fileHandleForReading.readDataToEndOfFile()
        let e = err.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return CommandResult(status: p.terminationStatus, stdout: String(decoding: o, as: UTF8.self), stderr: String(decoding: e, as: UTF8.self))
    }
}
