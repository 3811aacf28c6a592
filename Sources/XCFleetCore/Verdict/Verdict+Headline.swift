import Foundation
import XCFleetModel

extension Verdict {
    /// How every output names a run's verdict: the terminal line, the HTML banner, the summary.md
    /// headline and the JSON summary all take their words from here, derived from the exit code
    /// alone, so they can never tell different stories (exit 3 is "NOT RUN" everywhere, never "red").
    public struct Headline: Equatable, Sendable {
        public enum Tone: String, Sendable {
            case green, red, notRun = "not-run", interrupted
        }

        public let tone: Tone
        /// Terminal and Markdown word: `GREEN`, `RED`, `NOT RUN`, `INTERRUPTED`.
        public let word: String
        /// HTML banner title: `All gates green`, `Gates red`, `Not run: infrastructure failure`, `Run interrupted`.
        public let title: String
        /// Plain-text mark for the banner (`✔ ✘ ⚠ ■`) and an emoji for Markdown (`✅ ❌ ⚠️ ⏹️`).
        public let symbol: String
        public let emoji: String
    }

    /// The headline for an exit code. 2 (bad input) and 3 (infrastructure) both mean the gates
    /// were never proven either way; any code not documented counts as red.
    public static func headline(exitCode: Int32) -> Headline {
        switch exitCode {
        case ExitCode.green:
            return Headline(tone: .green, word: "GREEN", title: "All gates green", symbol: "✔", emoji: "✅")
        case ExitCode.infrastructure:
            return Headline(tone: .notRun, word: "NOT RUN", title: "Not run: infrastructure failure", symbol: "⚠", emoji: "⚠️")
        case ExitCode.usage:
            return Headline(tone: .notRun, word: "NOT RUN", title: "Not run: bad input", symbol: "⚠", emoji: "⚠️")
        case ExitCode.interrupted:
            return Headline(tone: .interrupted, word: "INTERRUPTED", title: "Run interrupted", symbol: "■", emoji: "⏹️")
        default:
            return Headline(tone: .red, word: "RED", title: "Gates red", symbol: "✘", emoji: "❌")
        }
    }

    public static func headline(_ report: RunReport) -> Headline { headline(exitCode: report.exitCode) }
}
