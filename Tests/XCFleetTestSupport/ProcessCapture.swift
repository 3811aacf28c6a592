import Foundation
import XCFleetKit

/// Small synchronous commands for tests.
package enum TestShell {
    @discardableResult
    package static func run(_ command: String) throws -> String {
        try runProcess("/bin/sh", ["-c", command]).stdout
    }

    package static func runProcess(_ path: String, _ args: [String], cwd: URL = TestPaths.packageRoot) throws -> CommandResult {
        try runCommand(URL(fileURLWithPath: path), args, cwd: cwd)
    }
}
