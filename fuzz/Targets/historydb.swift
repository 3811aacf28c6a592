import Foundation
@testable import XCFleetKit
#if canImport(Glibc)
import Glibc
#endif

// The SQLite history on arbitrary file bytes (a corrupt, foreign, truncated or hand-edited
// `history.sqlite`): opening it either works — and then every query answers or fails with a
// HistoryError — or is refused with a HistoryError that leaves the file's bytes as they were
// and creates no -wal/-shm beside it. Never a trap, never another error type.
private let folder: String = {
    let dir = NSTemporaryDirectory() + "xcfleet-fuzz-historydb-\(getpid())"
    mkdir(dir, 0o700)
    return dir
}()

private func wait<T: Sendable>(_ work: @escaping @Sendable () async throws -> T) -> Result<T, any Error> {
    let done = DispatchSemaphore(value: 0)
    nonisolated(unsafe) var result: Result<T, any Error>!
    Task {
        do { result = .success(try await work()) } catch { result = .failure(error) }
        done.signal()
    }
    done.wait()
    return result
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHistoryDB(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = Data(FuzzInput(data, size).remaining)
    let path = folder + "/history.sqlite"
    for suffix in ["", "-wal", "-shm", "-journal"] { unlink(path + suffix) }
    guard FileManager.default.createFile(atPath: path, contents: bytes, attributes: [.posixPermissions: 0o600]) else { return 0 }
    var options = HistoryDatabase.Options()
    options.busyTimeout = 0.1
    options.retries = 0
    let chosen = options
    switch wait({ try await HistoryDatabase.open(.sqlite(path: path), options: chosen) }) {
    case .success(let db):
        let queries: [@Sendable () async throws -> Void] = [
            { _ = try await db.runs(limit: 5) },
            { _ = try await db.flakyCandidates(since: 0) },
            { _ = try await db.hostHistory(since: 0) },
            { _ = try await db.trends(planName: "p", lastRuns: 5) },
            { _ = try await db.durations(suites: ["s"], lastRuns: 5, comparableTo: ["h"]) },
        ]
        for query in queries {
            if case .failure(let error) = wait(query) { invariant(error is HistoryError, "a query threw \(type(of: error)): \(error)") }
        }
        _ = wait { await db.close() }
    case .failure(let error):
        guard let error = error as? HistoryError else { invariant(false, "open threw \(type(of: error)): \(error)"); return 0 }
        invariant(!error.message.isEmpty && !error.message.contains("\n"), "a refusal is one line")
        if error.kind == .foreign || error.kind == .corrupt || error.kind == .newerSchema {
            invariant(FileManager.default.contents(atPath: path) == bytes, "a refused database was written (\(error.kind))")
            invariant(!FileManager.default.fileExists(atPath: path + "-wal"), "a refused database got a -wal file")
        }
    }
    return 0
}
