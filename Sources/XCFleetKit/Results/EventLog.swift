import Foundation

/// Appends `RunEvent`s to `events.jsonl` as they happen (one JSON object per line, flushed
/// per event), so that an interrupted run keeps everything it saw. Thread-safe.
public final class EventLog: @unchecked Sendable {
    public let url: URL
    private let lock = NSLock()
    private let handle: FileHandle
    private var seq = 0
    private let clockStart: Date
    private let encoder: JSONEncoder
    private var sink: (@Sendable (RunEvent) -> Void)?

    /// Creates (or truncates) `events.jsonl` in `directory`.
    public init(directory: URL, start: Date = Date()) throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        url = directory.appendingPathComponent("events.jsonl")
        _ = FileManager.default.createFile(atPath: url.path, contents: nil)
        handle = try FileHandle(forWritingTo: url)
        clockStart = start
        encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    }

    deinit { try? handle.close() }

    /// Observer called after each event is written (console progress). Called under the log's lock: keep it short.
    public func setObserver(_ observer: @escaping @Sendable (RunEvent) -> Void) {
        lock.lock(); sink = observer; lock.unlock()
    }

    /// Seconds since the run started.
    public var elapsed: Double { Date().timeIntervalSince(clockStart) }

    @discardableResult
    public func append(_ body: RunEvent.Body) -> RunEvent {
        lock.lock()
        defer { lock.unlock() }
        seq += 1
        let t = (Date().timeIntervalSince(clockStart) * 1000).rounded() / 1000
        let event = RunEvent(seq: seq, t: t, body: body)
        if var line = try? encoder.encode(event) {
            line.append(0x0A)
            handle.write(line)
        }
        sink?(event)
        return event
    }

    /// Reads every complete event of an `events.jsonl`. A torn last line (the writer was killed
    /// mid-write) is skipped; any other undecodable line is an error naming its line number.
    public static func read(_ url: URL) throws -> [RunEvent] {
        try decode(try Data(contentsOf: url), path: url.path)
    }

    /// `read` on bytes already in memory; `path` names them in errors.
    public static func decode(_ data: Data, path: String) throws -> [RunEvent] {
        let decoder = JSONDecoder()
        var events: [RunEvent] = []
        let lines = data.split(separator: 0x0A, omittingEmptySubsequences: false)
        for (index, line) in lines.enumerated() where !line.isEmpty {
            do {
                events.append(try decoder.decode(RunEvent.self, from: Data(line)))
            } catch {
                let isLast = index >= lines.count - 2 && data.last != 0x0A
                if isLast { break }
                throw EventLogError.badLine(path, index + 1)
            }
        }
        return events
    }
}

public enum EventLogError: Error, CustomStringConvertible {
    case badLine(String, Int)
    case missing(String)

    public var description: String {
        switch self {
        case .badLine(let file, let line): return "\(file):\(line): not a valid xcfleet event; the run directory is damaged"
        case .missing(let file): return "\(file): no events.jsonl here; give a run directory written by 'xcfleet run'"
        }
    }
}
