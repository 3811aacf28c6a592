import Foundation
import XCFleetKit
#if canImport(Glibc)
import Glibc
#endif

/// The live view on a terminal: the `LiveViewModel`'s lines redrawn in place on stderr.
///
/// Events only update the model under a lock and mark it dirty. A timer on a dedicated serial
/// queue draws at most every 100 ms, when something changed, the terminal was resized, or a
/// second passed (the clocks move). Lines for scrollback (failures, outcomes) are printed above
/// the live area, which is then redrawn below them. Each frame is one `write`.
final class LiveConsole: ConsoleBackend, @unchecked Sendable {
    // Shared with event handlers, under `lock`.
    private let lock = NSLock()
    private var model: LiveViewModel
    private var pending: [String] = []
    private var dirty = false
    private var origin: Date?

    // Owned by `queue`.
    private let queue = DispatchQueue(label: "xcfleet.console.live")
    private var timer: DispatchSourceTimer?
    private var drawn: [String] = []
    private var drawnWidth = 0
    private var lastDraw = Date.distantPast
    private var done = false

    static let interval = 0.1

    init(verbosity: ConsoleVerbosity, color: Bool, history: DurationHistory?) {
        model = LiveViewModel(verbosity: verbosity, color: color, history: history)
        let timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(deadline: .now() + LiveConsole.interval, repeating: LiveConsole.interval, leeway: .milliseconds(20))
        timer.setEventHandler { [weak self] in self?.tick() }
        self.timer = timer
        timer.resume()
    }

    func handle(_ event: RunEvent) {
        lock.lock()
        defer { lock.unlock() }
        if origin == nil { origin = Date().addingTimeInterval(-event.t) }
        for line in model.apply(event) { pending.append(model.render(line, at: event.t)) }
        dirty = true
    }

    func announce(_ text: String) {
        queue.sync {
            guard !done else { return TerminalOutput.write(text + "\n") }
            draw(extra: [TerminalOutput.sanitizeOwn(text)], force: true)
        }
    }

    func finish() {
        queue.sync {
            guard !done else { return }
            done = true
            timer?.cancel()
            timer = nil
            lock.lock()
            let lines = pending
            pending = []
            lock.unlock()
            TerminalOutput.write(erase() + lines.map { $0 + "\n" }.joined())
            drawn = []
        }
    }

    /// Timer tick (on `queue`).
    private func tick() {
        guard !done else { return }
        draw(extra: [], force: false)
    }

    /// Draws pending scrollback lines and the frame, if anything calls for it (on `queue`).
    private func draw(extra: [String], force: Bool) {
        let size = TerminalOutput.size()
        let now = Date()
        lock.lock()
        let due = force || dirty || size.columns != drawnWidth || now.timeIntervalSince(lastDraw) >= 1
        guard due, let origin else {
            lock.unlock()
            // Nothing to draw yet (no event so far): only the message, if any.
            if !extra.isEmpty { TerminalOutput.write(extra.map { $0 + "\n" }.joined()) }
            return
        }
        let snapshot = model
        let lines = pending
        pending = []
        dirty = false
        lock.unlock()

        let frame = snapshot.frame(width: size.columns, height: size.rows, now: max(0, now.timeIntervalSince(origin)))
        var out = erase(newWidth: size.columns)
        for line in lines + extra { out += line + "\n" }
        for line in frame { out += line + "\n" }
        TerminalOutput.write(out)
        drawn = frame
        drawnWidth = size.columns
        lastDraw = now
    }

    /// Moves the cursor to the top of the live area and clears to the end of the screen. The
    /// cursor sits at the start of the line below the area. When the terminal got narrower,
    /// the old lines may have been reflowed onto more rows: count those rows.
    private func erase(newWidth: Int? = nil) -> String {
        guard !drawn.isEmpty else { return "" }
        let width = max(1, newWidth ?? drawnWidth)
        var rows = 0
        for line in drawn {
            let columns = TerminalOutput.visibleColumns(line)
            rows += width < drawnWidth ? max(1, (columns + width - 1) / width) : 1
        }
        return "\r\u{1B}[\(rows)A\u{1B}[J"
    }
}

extension TerminalOutput {
    /// Columns of a line that may hold SGR colour sequences (`ESC [ … m`), which take none.
    static func visibleColumns(_ line: String) -> Int {
        var plain = String.UnicodeScalarView()
        var inEscape = false
        for u in line.unicodeScalars {
            if inEscape {
                if (0x40...0x7E).contains(u.value) && u != "[" { inEscape = false }
            } else if u == "\u{1B}" {
                inEscape = true
            } else {
                plain.append(u)
            }
        }
        return TerminalText.columns(String(plain))
    }

    /// xcfleet's own messages are trusted, but keep them on one line.
    static func sanitizeOwn(_ text: String) -> String {
        TerminalOutput.clean(text.trimmingCharacters(in: .whitespacesAndNewlines))
    }
}
