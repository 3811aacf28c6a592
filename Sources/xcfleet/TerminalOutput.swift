import Foundation
import XCFleetKit
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where console progress goes, and what both kinds of progress output can do.
protocol ConsoleBackend: Sendable {
    func handle(_ event: RunEvent)
    func announce(_ text: String)
    func finish()
}

/// Raw writes to stderr and the terminal's size. Only called from the consoles' own serial
/// queues (a blocked terminal never blocks the concurrency pool).
enum TerminalOutput {
    /// Writes all of `text` to stderr, retrying on `EINTR`/`EAGAIN`; gives up silently when
    /// stderr is gone (progress output is never worth failing a run for).
    static func write(_ text: String) {
        var bytes = Array(text.utf8)
        guard !bytes.isEmpty else { return }
        var offset = 0
        var stalls = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeMutableBytes { buffer -> Int in
                guard let base = buffer.baseAddress else { return 0 }
                return Glibc.write(STDERR_FILENO, base + offset, buffer.count - offset)
            }
            if n > 0 {
                offset += n
                stalls = 0
            } else if n < 0 && (errno == EINTR || errno == EAGAIN) && stalls < 200 {
                stalls += 1
                if errno == EAGAIN { usleep(5_000) }
            } else {
                return
            }
        }
        bytes.removeAll()
    }

    /// Columns and rows of the terminal on stderr (re-queried per frame, so a resize shows at the
    /// next frame without a SIGWINCH handler); 80×24 when the size cannot be read.
    static func size() -> (columns: Int, rows: Int) {
        var ws = winsize()
        if ioctl(STDERR_FILENO, UInt(TIOCGWINSZ), &ws) == 0, ws.ws_col > 0, ws.ws_row > 0 {
            return (Int(ws.ws_col), Int(ws.ws_row))
        }
        return (80, 24)
    }
}

/// Off a TTY or under CI: plain timestamped lines, no cursor movement, no colour.
final class PlainConsole: ConsoleBackend, @unchecked Sendable {
    private let lock = NSLock()
    private var narrator: ProgressNarrator
    private let queue = DispatchQueue(label: "xcfleet.console.plain")

    init(verbosity: ConsoleVerbosity) {
        narrator = ProgressNarrator(verbosity: verbosity, live: false)
    }

    func handle(_ event: RunEvent) {
        lock.lock()
        defer { lock.unlock() }
        let lines = narrator.lines(for: event)
        guard !lines.isEmpty else { return }
        let text = lines.map { ProgressNarrator.timestamp(event.t) + "  " + TerminalOutput.clean($0.text) + "\n" }.joined()
        // Enqueued under the lock, so lines keep the order of their events.
        queue.async { TerminalOutput.write(text) }
    }

    func announce(_ text: String) {
        queue.sync { TerminalOutput.write(text + "\n") }
    }

    func finish() {
        queue.sync {}
    }
}

/// Everything the executable prints to stdout or stderr outside the live view goes through
/// these functions, and every line through `clean` — the one terminal sanitizer (control
/// characters, ESC/OSC/CSI, backspaces, carriage returns and line separators inside a line
/// become `?` or a space). Test names, messages, host text, file contents and error messages
/// can then never move the cursor, rewrite a line or retitle the terminal. xcfleet's own
/// colours are added after sanitizing, from `ConsoleStyle`s, never from the text.
extension TerminalOutput {
    /// The one sanitizer (see `TerminalText.sanitize`).
    static func clean(_ text: String) -> String { TerminalText.sanitize(text) }

    /// Lines, each sanitized then styled, joined with newlines.
    static func render(_ lines: [ConsoleLine], color: Bool) -> String {
        lines.map { TerminalText.paint(clean($0.text), $0.style, color: color) }.joined(separator: "\n")
    }

    /// Text whose newlines are xcfleet's own structure (a multi-line message): each line sanitized.
    static func lines(_ text: String) -> [ConsoleLine] {
        text.split(separator: "\n", omittingEmptySubsequences: false).map { ConsoleLine(String($0)) }
    }

    static func printOut(_ lines: [ConsoleLine], color: Bool = false) {
        FileHandle.standardOutput.write(Data((render(lines, color: color) + "\n").utf8))
    }

    static func printOut(_ text: String) { printOut(lines(text)) }

    static func printErr(_ text: String) {
        FileHandle.standardError.write(Data((render(lines(text), color: false) + "\n").utf8))
    }

    /// A JSON document for stdout: JSONEncoder already escapes C0 controls; DEL and the C1
    /// controls (U+0080–U+009F, e.g. the one-character CSI) are escaped as `\u00XX` too, which
    /// keeps the document valid JSON and the terminal safe.
    static func printJSON(_ data: Data) {
        var out = String.UnicodeScalarView()
        for u in String(decoding: data, as: UTF8.self).unicodeScalars {
            if (0x7F...0x9F).contains(u.value) || u.value < 0x20 && u.value != 0x0A {
                let hex = String(u.value, radix: 16)
                out.append(contentsOf: ("\\u" + String(repeating: "0", count: 4 - hex.count) + hex).unicodeScalars)
            } else {
                out.append(u)
            }
        }
        FileHandle.standardOutput.write(Data((String(out) + "\n").utf8))
    }
}
