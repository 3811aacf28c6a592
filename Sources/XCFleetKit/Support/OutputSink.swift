import Foundation
import XCFleetModel

/// Collects a command's output up to a limit (thread-safe; chunks arrive serially).
final class OutputSink: @unchecked Sendable {
    private let lock = NSLock()
    private var out: [UInt8] = []
    private var err: [UInt8] = []
    private let limit: Int

    init(limit: Int) { self.limit = limit }

    func add(_ chunk: OutputChunk) {
        lock.lock()
        defer { lock.unlock() }
        switch chunk.stream {
        case .stdout: if out.count < limit { out += chunk.bytes.prefix(limit - out.count) }
        case .stderr:
            err += chunk.bytes
            if err.count > limit { err.removeFirst(err.count - limit) }
        }
    }

    var stdout: [UInt8] { lock.lock(); defer { lock.unlock() }; return out }
    var stdoutText: String { String(decoding: stdout, as: UTF8.self) }
    var stderrText: String { lock.lock(); defer { lock.unlock() }; return String(decoding: err, as: UTF8.self) }

    /// The last few lines of stderr, for error messages.
    var stderrTail: String {
        let lines = stderrText.split(separator: "\n", omittingEmptySubsequences: true).suffix(5)
        let text = lines.joined(separator: " | ")
        return text.isEmpty ? "(no stderr)" : String(text.suffix(600))
    }
}
