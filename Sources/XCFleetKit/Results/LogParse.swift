import Foundation

/// `xcfleet parse`: collates output someone already has (a CI log, a saved xcodebuild run)
/// into the same report model, through the same parser and verdict rules.
public enum LogParse {
    /// Reads `input` to its end in 64 KiB chunks on a dispatch queue (never on the concurrency pool).
    public static func report(reading input: FileHandle, name: String, allowFlaky: Bool = false) async -> RunReport {
        await withCheckedContinuation { cont in
            DispatchQueue.global().async {
                var parser = OutputParser()
                var events: [TestEvent] = []
                while true {
                    let chunk = input.readData(ofLength: 65536)
                    if chunk.isEmpty { break }
                    events += parser.consume(chunk)
                }
                events += parser.finish()
                cont.resume(returning: report(events: events, name: name, allowFlaky: allowFlaky))
            }
        }
    }

    /// The report for a list of parsed events. The exit status is unknown, so only the output decides.
    /// `allowFlaky`: a test that failed and then passed in the log does not make the gate red.
    public static func report(events: [TestEvent], name: String, allowFlaky: Bool = false) -> RunReport {
        var suite = SuiteSpec(name: "log", template: "parsed")
        suite.allowFlaky = allowFlaky
        let ref = AttemptRef(jobID: "log", attempt: 1)
        var log: [RunEvent.Body] = [
            .runStarted(RunStarted(runID: "parse", planName: name, planPath: name, startedAt: "", xcfleetVersion: XCFleet.version, suites: [suite], hosts: ["log"])),
            .jobPlanned(JobPlanned(jobID: "log", suite: "log", kind: .gate, expectedTests: [])),
            .attemptStarted(ref, host: "log", slot: 0),
        ]
        log += events.map { .test(ref, event: $0) }
        log += [.attemptEnded(ref, AttemptEnded(termination: .exited(0))), .runFinished(interrupted: false)]
        return Collator().collate(log.enumerated().map { RunEvent(seq: $0.offset + 1, t: 0, body: $0.element) })
    }
}
