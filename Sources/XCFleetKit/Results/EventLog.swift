import Foundation
#if canImport(Glibc)
import Glibc
#endif
import XCFleetBasics
import XCFleetModel

/// Appends `RunEvent`s to `events.jsonl` as they happen (one JSON object per line, flushed
/// per event), so that an interrupted run keeps everything it saw. Thread-safe.
///
/// The log is the redaction choke point: every event — parsed from output, built from an
/// Xcode result bundle, a note, an error message, the plan itself — is redacted in `append`
/// before it is written or shown to the observer, and every report is built from the log.
public final class EventLog: @unchecked Sendable {
    public let url: URL
    /// The run's secret values (fleet environment and plan parameters marked secret). Raw logs
    /// of the same run redact with these too.
    public let secrets: [String]
    /// Secrets (and each line of multi-line ones) as they look inside an encoded JSON string.
    private let jsonRedactor: Redactor
    private let lock = NSLock()
    private let handle: FileHandle
    private var seq = 0
    private let clockStart: Date
    private let encoder: JSONEncoder
    private var sink: (@Sendable (RunEvent) -> Void)?

    /// Creates `events.jsonl` in `directory`; fails when one is already there (an existing run's
    /// events are never truncated or appended to).
    public init(directory: URL, start: Date = Date(), secrets: [String] = []) throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        url = directory.appendingPathComponent("events.jsonl")
        let fd = open(url.path, O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0o644)
        guard fd >= 0 else {
            let code = errno
            if code == EEXIST { throw SafePathError(path: url.path, message: "\(url.path) already exists; refusing to overwrite another run's events", exists: true) }
            throw SafePathError(path: url.path, message: "cannot create \(url.path): \(String(cString: strerror(code)))")
        }
        handle = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
        clockStart = start
        encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        self.secrets = secrets
        jsonRedactor = Redactor(patterns: Redactor(secrets: secrets).patterns.compactMap { [encoder] pattern in
            guard var quoted = try? encoder.encode(String(decoding: pattern, as: UTF8.self)), quoted.count >= 2 else { return nil }
            quoted.removeFirst()
            quoted.removeLast()
            return Array(quoted)
        })
    }

    deinit { try? handle.close() }

    /// Observer called after each event is written (console progress). Called under the log's lock: keep it short.
    public func setObserver(_ observer: @escaping @Sendable (RunEvent) -> Void) {
        lock.lock(); sink = observer; lock.unlock()
    }

    /// Seconds since the run started.
    public var elapsed: Double { Date().timeIntervalSince(clockStart) }

    /// Events appended so far (the last one's `seq`).
    public var count: Int { lock.lock(); defer { lock.unlock() }; return seq }

    @discardableResult
    public func append(_ body: RunEvent.Body) -> RunEvent {
        lock.lock()
        defer { lock.unlock() }
        seq += 1
        let t = (Date().timeIntervalSince(clockStart) * 1000).rounded() / 1000
        var event = RunEvent(seq: seq, t: t, body: body)
        if let encoded = try? encoder.encode(event) {
            var line = Data(encoded)
            if !jsonRedactor.isEmpty {
                let redacted = jsonRedactor.redact(Array(encoded))
                if redacted.count != encoded.count || !redacted.elementsEqual(encoded) {
                    line = Data(redacted)
                    // What the observer sees is what was written.
                    if let decoded = try? JSONDecoder().decode(RunEvent.self, from: line) { event = decoded }
                    else { event = RunEvent(seq: seq, t: t, body: .note("[redacted]")) }
                }
            }
            line.append(0x0A)
            handle.write(line)
        }
        sink?(event)
        return event
    }

    /// Reads every complete event of an `events.jsonl`. A torn last line (the writer was killed
    /// mid-write) is skipped; any other undecodable line is an error naming its line number.
    public static func read(_ url: URL) throws -> [RunEvent] {
        let data: Data
        do { data = try InputFile.read(url.path, limit: 1 << 30, deadline: 120) } catch {
            if error.kind == .missing { throw EventLogError.missing(url.path) }
            throw EventLogError.unreadable(url.path, error.reason)
        }
        return try decode(data, path: url.path)
    }

    /// `read` on bytes already in memory; `path` names them in errors. The test events of the
    /// usual form are read by `EventLine`, every other line by `JSONDecoder`.
    public static func decode(_ data: Data, path: String) throws -> [RunEvent] {
        let decoder = JSONDecoder()
        var events: [RunEvent] = []
        try data.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) in
            var start = 0
            var index = 0
            while start <= bytes.count {
                let rest = UnsafeRawBufferPointer(rebasing: bytes[start...])
                let end = rest.firstIndex(of: 0x0A).map { start + $0 } ?? bytes.count
                let line = UnsafeRawBufferPointer(rebasing: bytes[start..<end])
                if !line.isEmpty {
                    if let event = EventLine.decode(line) {
                        events.append(event)
                    } else {
                        do {
                            events.append(try decoder.decode(RunEvent.self, from: Data(line)))
                        } catch {
                            // The line count is that of the bytes split at every newline.
                            let lineCount = bytes.reduce(1) { $1 == 0x0A ? $0 + 1 : $0 }
                            let isLast = index >= lineCount - 2 && data.last != 0x0A
                            if isLast { break }
                            throw EventLogError.badLine(path, index + 1)
                        }
                    }
                }
                index += 1
                start = end + 1
            }
        }
        return events
    }
}

public enum EventLogError: Error, CustomStringConvertible {
    case badLine(String, Int)
    case missing(String)
    case unreadable(String, String)

    public var description: String {
        switch self {
        case .badLine(let file, let line): return "\(file):\(line): not a valid xcfleet event; the run directory is damaged"
        case .missing(let file): return "\(file): no events.jsonl here; give a run directory written by 'xcfleet run'"
        case .unreadable(let file, let why): return "\(file): cannot read: \(why)"
        }
    }
}

extension EventLogError: UserFacingError {
    public var userMessage: String { description }
    public var exitCode: Int32 { UserFacingErrors.ExitCode.usage }
}
