/// The deadline decisions of one exec, as a pure function of what arrived when (all times are
/// monotonic seconds). `SSHSession.exec` asks it once per poll; it never reads a clock itself.
///
/// Order matters and is part of the contract: a cancel wins over everything; the total deadline
/// before the silence deadline (a command that is both late and quiet is "total"); both before
/// the dead-peer check, because they kill the remote group first and only then learn whether the
/// peer is still there (a kill that finds it gone turns the timeout into a lost connection).
struct ExecDeadline: Equatable {
    enum Decision: Equatable {
        case keepGoing
        case cancelled
        /// Kill the remote process group, then report a timeout of this kind.
        case timedOut(Kind)
        /// Nothing at all arrived from the peer (no output, no keepalive reply) for `seconds`.
        case deadPeer(seconds: Double)
    }

    enum Kind: String, Equatable { case total, silence }

    var start: Double
    /// Seconds the whole command may take; nil: no limit.
    var total: Double?
    /// Seconds without visible output; nil: no limit.
    var silence: Double?
    /// Seconds without any bytes from the peer after which it is taken for dead.
    var deadPeer: Double

    /// `lastOutput`: when the command last printed something; `lastReceived`: when any byte last
    /// came from the peer.
    func decide(now: Double, lastOutput: Double, lastReceived: Double, cancelled: Bool) -> Decision {
        if cancelled { return .cancelled }
        if let total, now - start > total { return .timedOut(.total) }
        if let silence, now - lastOutput > silence { return .timedOut(.silence) }
        if now - lastReceived > deadPeer { return .deadPeer(seconds: deadPeer) }
        return .keepGoing
    }
}
