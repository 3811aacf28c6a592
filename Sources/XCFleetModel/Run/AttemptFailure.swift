import Foundation

/// Why an attempt failed for a reason of the host, not of the tests: the job reruns on another
/// host (`Scheduler.AttemptOutcome.infraFailure`). Decisions match on the case; `description` is
/// the text the event log and the reports show.
public enum AttemptFailure: Equatable, Sendable, CustomStringConvertible {
    /// The attempt was cancelled (Ctrl-C, SIGTERM): not the host's fault, so no probation.
    case cancelled
    /// The connection to the host was lost, or the host is gone. The text says what was seen.
    case hostLost(String)
    /// The connect or push deadline expired: the host is unreachable or too slow to take work.
    case deadline(Phase)
    /// A simulator would not boot, install or launch the test runner (reset before anything else runs).
    case simulatorWedged(String)
    /// The host's build cache could not be used (a planted, damaged or unreadable entry).
    case buildCacheUnusable(String)
    /// A process of the attempt was killed by the host (SIGKILL: the OOM killer, a reboot, an operator).
    case killedByHost(String)
    /// Any other host problem: the push failed, the toolchain is missing, a command that must succeed did not.
    case host(String)

    public var description: String {
        switch self {
        case .cancelled: return "cancelled"
        case .deadline(let phase): return "\(phase.rawValue) deadline expired"
        case .hostLost(let text), .simulatorWedged(let text), .buildCacheUnusable(let text), .killedByHost(let text), .host(let text):
            return text
        }
    }

    /// Whether the host should be suspected (probation and a fresh health check) after this failure.
    public var suspectsHost: Bool {
        switch self {
        case .cancelled: return false
        case .hostLost, .deadline, .simulatorWedged, .buildCacheUnusable, .killedByHost, .host: return true
        }
    }
}
