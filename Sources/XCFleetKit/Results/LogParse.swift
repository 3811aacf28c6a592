import Foundation
import XCFleetModel
import XCFleetCore

/// `xcfleet parse`: collates output someone already has (a CI log, a saved xcodebuild run)
/// into the same report model, through the same parser and verdict rules.
public enum LogParse {
    /// Reads `input` to its end in 64 KiB chunks on a dispatch queue (never on the concurrency pool).
    public static func report(reading input: FileHandle, name: String, sourceRoots: [LocationMapper.SourceRoot] = [], allowFlaky: Bool = false,
                              quarantine: Quarantine? = nil) async -> RunReport {
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
                cont.resume(returning: report(events: events, name: name, sourceRoots: sourceRoots, allowFlaky: allowFlaky, quarantine: quarantine))
            }
        }
    }

    /// `--source-root HOST_PREFIX=REPO_DIR`: HOST_PREFIX an absolute path (or `file://` URL) as the
    /// log prints it, REPO_DIR a folder here (absolute or relative to `currentDirectory`) whose path
    /// below its repository's root (the nearest `.git` above it, else `currentDirectory`) replaces the prefix.
    /// Nil when the argument is not of that form or REPO_DIR is not a folder.
    public static func sourceRoot(argument: String, currentDirectory: String) -> LocationMapper.SourceRoot? {
        guard let eq = argument.lastIndex(of: "=") else { return nil }
        let host = String(argument[..<eq]), dir = String(argument[argument.index(after: eq)...])
        guard host.hasPrefix("/") || host.hasPrefix("file://"), !dir.isEmpty else { return nil }
        let base = URL(fileURLWithPath: currentDirectory)
        let repoDir = (dir.hasPrefix("/") ? URL(fileURLWithPath: dir) : base.appendingPathComponent(dir)).standardizedFileURL.resolvingSymlinksInPath()
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: repoDir.path, isDirectory: &isDir), isDir.boolValue else { return nil }
        var top = repoDir
        var found = false
        for _ in 0..<64 {
            if FileManager.default.fileExists(atPath: top.appendingPathComponent(".git").path) { found = true; break }
            let parent = top.deletingLastPathComponent()
            if parent.path == top.path { break }
            top = parent
        }
        if !found { top = base.standardizedFileURL.resolvingSymlinksInPath() }
        let topPath = top.path.hasSuffix("/") ? top.path : top.path + "/"
        let rel: String
        if repoDir.path == top.path { rel = "" }
        else if repoDir.path.hasPrefix(topPath) { rel = String(repoDir.path.dropFirst(topPath.count)) }
        else { rel = repoDir.path }
        return LocationMapper.SourceRoot(hostPrefix: host, repository: rel)
    }

    /// The report for a list of parsed events. The exit status is unknown, so only the output decides.
    /// `allowFlaky`: a test that failed and then passed in the log does not make the gate red.
    public static func report(events: [TestEvent], name: String, sourceRoots: [LocationMapper.SourceRoot] = [], allowFlaky: Bool = false,
                              quarantine: Quarantine? = nil) -> RunReport {
        var suite = SuiteSpec(name: "log", template: "parsed")
        suite.allowFlaky = allowFlaky
        let ref = AttemptRef(jobID: "log", attempt: 1)
        var log: [RunEvent] = []
        log.reserveCapacity(events.count + 6)
        func add(_ body: RunEvent.Body) { log.append(RunEvent(seq: log.count + 1, t: 0, body: body)) }
        add(.runStarted(RunStarted(runID: "parse", planName: name, planPath: name, startedAt: "", xcfleetVersion: XCFleet.version, suites: [suite], hosts: ["log"])))
        add(.jobPlanned(JobPlanned(jobID: "log", suite: "log", kind: .gate, expectedTests: [])))
        if let quarantine { add(.quarantine(quarantine.entries)) }
        add(.attemptStarted(ref, host: "log", slot: 0))
        for e in events { add(.test(ref, event: e)) }
        add(.attemptEnded(ref, AttemptEnded(termination: .exited(0))))
        add(.runFinished(interrupted: false))
        return Collator(sourceRoots: sourceRoots).collate(log)
    }
}
