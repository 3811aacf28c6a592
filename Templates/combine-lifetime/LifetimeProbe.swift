#if canImport(Combine)
/// K10: the only things a failing case logs — the request id, the event order, the cancel
/// count and the final state (as a label such as `shows#2`, never a payload or a token).
final class LifetimeProbe {
    private(set) var lastRequestID = 0
    private(set) var events: [String] = []
    private(set) var cancelCount = 0
    private(set) var finalState = "idle"

    func started(_ id: Int) {
        lastRequestID = id
        events.append("start#\(id)")
    }

    func delivered(_ id: Int) { events.append("deliver#\(id)") }
    func dropped(_ id: Int) { events.append("drop#\(id)") }
    func wrote(_ id: Int) { finalState = "shows#\(id)" }
    func completed(_ id: Int, failed: Bool) { events.append(failed ? "fail#\(id)" : "finish#\(id)") }
    func note(_ event: String) { events.append(event) }

    func cancelled(_ id: Int) {
        cancelCount += 1
        events.append("cancel#\(id)")
    }

    /// One line for a failure message.
    var summary: String {
        "request=\(lastRequestID) events=[\(events.joined(separator: ","))] cancels=\(cancelCount) state=\(finalState)"
    }
}
#endif
