import Foundation
import XCFleetModel
import XCFleetCore

/// Runs `DeepCheck` on one host through its shell: pushes the tiny package into a fresh job
/// directory, runs each step there, and removes the directory afterwards (also when a step fails).
package enum DeepCheckRunner {
    /// Output kept per step for judging (the build's log can be long; only its end matters less).
    static let outputLimit = 4 << 20

    package static func run(shell: any RemoteShell, platform: DeepCheck.Platform) async -> [DeepCheck.Outcome] {
        var check = DeepCheck(platform: platform, chooseScheme: { list in
            XcodebuildDriver.chooseScheme(listOutput: list, packageName: DeepCheck.packageName, testTarget: DeepCheck.packageName + "Tests")
        })
        let directory: String
        do {
            directory = try await shell.makeJobDirectory(jobID: "deep-check-" + String(UUID().uuidString.prefix(8)).lowercased())
            _ = try await shell.push(DeepCheck.package, to: directory)
        } catch {
            return [DeepCheck.Outcome(name: "push", proven: false, command: "push the probe package", firstLines: [],
                                      detail: "\(error)")]
        }
        while let step = check.next() {
            let collected = Collected(limit: outputLimit)
            let termination: CommandTermination
            do {
                termination = try await shell.run(step.command, in: directory, deadlines: step.deadlines) { collected.add($0.bytes) }
            } catch {
                termination = .connectionLost("\(error)")
            }
            check.record(termination, output: collected.text)
            if Task.isCancelled { break }
        }
        try? await shell.removeJobDirectory(directory)
        return check.outcomes
    }

    /// Output of one step, both streams in arrival order, capped.
    private final class Collected: @unchecked Sendable {
        private let lock = NSLock()
        private var bytes: [UInt8] = []
        private let limit: Int
        init(limit: Int) { self.limit = limit }
        func add(_ chunk: [UInt8]) {
            lock.lock(); defer { lock.unlock() }
            if bytes.count < limit { bytes += chunk.prefix(limit - bytes.count) }
        }
        var text: String { lock.lock(); defer { lock.unlock() }; return String(decoding: bytes, as: UTF8.self) }
    }
}
