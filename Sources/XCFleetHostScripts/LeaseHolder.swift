import Foundation

/// Who holds a lease: this orchestrator process. Written into each lease's holder file so that
/// another orchestrator on the same machine can tell when the holder died.
public struct LeaseHolder: Equatable, Sendable {
    public var hostname: String
    public var pid: Int32

    public init(hostname: String, pid: Int32) {
        self.hostname = HostLeaseScript.clean(hostname)
        self.pid = pid
    }
}
