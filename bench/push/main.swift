// bench-push: xcfleet's incremental push side by side with `rsync -a` over the same loopback sshd.
//
//   bench/push/run.sh            (release build, then this)
//
// A generated git repository of 2,000 files (100 folders × 20 files, 1–9 KB each, some executable):
//   cold: a host that holds nothing (xcfleet: fresh work root and an empty hash cache; rsync: fresh
//         destination);
//   warm: the host holds the previous revision and 5 files changed (a pull request). xcfleet reads
//         the repository as a run does (`PackageWorkspace.read`: git's list, every file read, hashed
//         only when it changed since the hash cache saw it) and makes the job directory (`prepareJob`)
//         from the tree the previous attempt's cleanup kept (`finishAndRemoveJobDirectory`, not
//         timed), sending a diff against it; rsync (`-a`, `.git` left out) updates its destination in place.
// Each side is timed with its connection (rsync starts `ssh`; xcfleet connects, reads, pushes,
// closes) and xcfleet also without it (an attempt reuses its host's connection). Median of the runs;
// bytes sent are xcfleet's push outcome and rsync's `--stats` "Total bytes sent". Ratio = xcfleet ÷ rsync
// (target for the warm push over a reused connection: ≤ 1.0).
// The last line is what a fresh job directory costs on the host: `cp -R` of the same tree.
import Foundation
import XCFleetHostScripts
import XCFleetKit

func now() -> Double { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }

/// Runs a process without blocking the concurrency pool; returns its status and stdout.
func runProcess(_ args: [String]) async -> (Int32, String) {
    await withCheckedContinuation { (c: CheckedContinuation<(Int32, String), Never>) in
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = args
        let out = Pipe()
        p.standardOutput = out
        p.standardError = FileHandle.nullDevice
        let collected = Collected()
        out.fileHandleForReading.readabilityHandler = { h in collected.add(h.availableData) }
        p.terminationHandler = { p in
            out.fileHandleForReading.readabilityHandler = nil
            collected.add((try? out.fileHandleForReading.readToEnd()) ?? Data())
            c.resume(returning: (p.terminationStatus, collected.text))
        }
        do { try p.run() } catch { c.resume(returning: (-1, "")) }
    }
}

final class Collected: @unchecked Sendable {
    private let lock = NSLock()
    private var data = Data()
    func add(_ d: Data) { lock.lock(); data += d; lock.unlock() }
    var text: String { lock.lock(); defer { lock.unlock() }; return String(decoding: data, as: UTF8.self) }
}

func median(_ xs: [Double]) -> Double { xs.sorted()[xs.count / 2] }
func ms(_ s: Double) -> String { String(format: "%8.1f ms", s * 1000) }
func kb(_ n: Int) -> String { String(format: "%9.1f kB", Double(n) / 1000) }

func row(_ name: String, _ ours: Double, _ theirs: Double) {
    print("\(name.padding(toLength: 40, withPad: " ", startingAt: 0)) xcfleet \(ms(ours))   rsync -a \(ms(theirs))   xcfleet/rsync \(String(format: "%.2f", ours / theirs))")
}

func bytesRow(_ name: String, _ ours: Int, _ theirs: Int) {
    print("\(name.padding(toLength: 40, withPad: " ", startingAt: 0)) xcfleet \(kb(ours))   rsync -a \(kb(theirs))   xcfleet/rsync \(String(format: "%.2f", Double(ours) / Double(max(1, theirs))))")
}

/// Random printable text, deterministic per seed (xorshift).
func text(_ count: Int, seed: inout UInt64) -> Data {
    var out = [UInt8](repeating: 0, count: count)
    for i in 0..<count {
        seed ^= seed << 13; seed ^= seed >> 7; seed ^= seed << 17
        out[i] = UInt8(32 + seed % 95)
    }
    return Data(out)
}

func repository() -> [WorkspaceFile] {
    var seed: UInt64 = 0x9E3779B97F4A7C15
    var files: [WorkspaceFile] = []
    for d in 0..<100 {
        for f in 0..<20 {
            let size = 1_000 + Int(seed % 8_000)
            files.append(WorkspaceFile(path: "Sources/Module\(d)/File\(f).swift", contents: text(size, seed: &seed), executable: f == 19))
        }
    }
    return files
}

/// Revision `n` of `base`: 5 files (spread over the tree) get new contents.
func revision(_ base: [WorkspaceFile], _ n: Int) -> [WorkspaceFile] {
    var files = base
    var seed = UInt64(n + 1) &* 0x2545F4914F6CDD1D
    for k in 0..<5 {
        let i = (n * 37 + k * 401) % files.count // 5 distinct files
        files[i].contents = text(files[i].contents.count + 10, seed: &seed)
    }
    return files
}

/// Writes the changed files of `ws` into the rsync source tree (new mtimes, as an edit would).
func writeTree(_ files: [WorkspaceFile], to root: String, only paths: Set<String>? = nil) throws {
    for f in files where paths?.contains(f.path) ?? true {
        let url = URL(fileURLWithPath: root + "/" + f.path)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try f.contents.write(to: url)
        try FileManager.default.setAttributes([.posixPermissions: f.executable ? 0o755 : 0o644], ofItemAtPath: url.path)
    }
}

let runs = 5
let dir = NSTemporaryDirectory() + "xcfleet-bench-push-\(getpid())"
let script = FileManager.default.currentDirectoryPath + "/scripts/testhosts.sh" // run.sh runs this from the package root
guard await runProcess([script, "start", "1", dir]).0 == 0 else {
    print("cannot start a test host with \(script)")
    exit(1)
}
let port = Int((try? String(contentsOfFile: "\(dir)/h1/port", encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "") ?? 0
func spec(_ root: String) -> HostSpec {
    HostSpec(name: "h1", address: "127.0.0.1", port: port, user: NSUserName(), identityFile: "\(dir)/client_ed25519",
             knownHostsFile: "\(dir)/known_hosts", workRoot: "\(dir)/\(root)")
}
let ssh = "ssh -i \(dir)/client_ed25519 -o UserKnownHostsFile=\(dir)/known_hosts -o StrictHostKeyChecking=yes -o BatchMode=yes -p \(port)"

func rsync(_ source: String, _ dest: String) async throws -> (Double, Int) {
    let t = now()
    let (status, out) = await runProcess(["rsync", "-a", "--exclude=/.git", "--stats", "-e", ssh, source + "/", "127.0.0.1:\(dest)/"])
    let seconds = now() - t
    guard status == 0 else { throw RemoteShellError(.push, host: "h1", "rsync exited \(status)") }
    let line = out.split(separator: "\n").first { $0.hasPrefix("Total bytes sent:") } ?? ""
    return (seconds, Int(line.split(separator: ":").last?.filter(\.isNumber) ?? "") ?? 0)
}

/// One xcfleet push as an attempt makes it: a job directory with the workspace in it.
func push(_ shell: SSHShell, _ ws: Workspace) async throws -> (PushOutcome, String) {
    let p = try await shell.prepareJob(jobID: "bench", workspace: ws, pushSeconds: 120, directoryCreated: { _ in }, then: { _ in nil },
                                       deadlines: CommandDeadlines(total: 120, silence: 120), output: { _ in })
    return (p.push, p.directory)
}

/// The attempt's cleanup: the job directory becomes the host's kept tree for the next push.
func cleanUp(_ shell: SSHShell, _ dir: String) async throws {
    _ = try await shell.finishAndRemoveJobDirectory(dir, finish: ShellCommand(["true"]), release: nil, deadlines: CommandDeadlines(total: 60, silence: 60)) { _ in }
}

func sent(_ o: PushOutcome) -> Int { if case .pushed(let b, _) = o { return b } else { return 0 } }

let base = repository()
let total = base.reduce(0) { $0 + $1.contents.count }
print("bench-push: 2,000 files, \(total / 1000) kB, loopback sshd, \(ProcessInfo.processInfo.activeProcessorCount) cores, median of \(runs)")
do {
    let source = dir + "/src"
    try writeTree(base, to: source)
    guard await runProcess(["sh", "-c", "cd '\(source)' && git init -q && git add -A && git -c user.email=b@example.invalid -c user.name=b commit -qm base"]).0 == 0 else {
        throw RemoteShellError(.push, host: "h1", "git init of the source tree failed")
    }
    /// The workspace as a run reads it: the files git lists, read from disk, hashed unless the hash
    /// cache (`hashes`) holds them unchanged.
    func read(_ hashes: String) async throws -> Workspace { try await PackageWorkspace.read(folder: source, hashCache: "\(dir)/\(hashes)") }
    let hashing = now()
    _ = try await read("hashes-first")
    print("xcfleet's file list, read from disk with SHA-256 of every file (no hash cache): \(ms(now() - hashing))")
    // Cold: a fresh work root and a fresh hash cache each time (a first run hashes every file).
    var oursCold: [Double] = [], oursColdPush: [Double] = [], theirsCold: [Double] = []
    var oursColdBytes = 0, theirsColdBytes = 0
    for i in 0..<runs {
        let t = now()
        let ws = try await read("hashes-cold-\(i)")
        let shell = try await SSHShell.connect(spec("cold-\(i)"), timeouts: PhaseTimeouts())
        let p = now()
        let (outcome, coldDir) = try await push(shell, ws)
        oursColdPush.append(now() - p)
        try await cleanUp(shell, coldDir)
        await shell.close()
        oursCold.append(now() - t)
        oursColdBytes = sent(outcome)
        let (s, b) = try await rsync(source, "\(dir)/rsync-cold-\(i)")
        theirsCold.append(s)
        theirsColdBytes = b
    }
    // Warm: each host holds the previous revision; then 5 files change (a pull request) and the same
    // change goes to a work root over a new connection, to another over the connection an attempt
    // already has, and to rsync's destination. Files unchanged for a while are in the hash cache.
    try await Task.sleep(nanoseconds: 2_500_000_000) // older than the hash cache's racy window
    let warmShell = try await SSHShell.connect(spec("warm-reused"), timeouts: PhaseTimeouts())
    let first = try await read("hashes")
    try await cleanUp(warmShell, try await push(warmShell, first).1)
    let uncachedShell = try await SSHShell.connect(spec("warm-uncached"), timeouts: PhaseTimeouts())
    try await cleanUp(uncachedShell, try await push(uncachedShell, first).1)
    let connectShell = try await SSHShell.connect(spec("warm"), timeouts: PhaseTimeouts())
    try await cleanUp(connectShell, try await push(connectShell, first).1)
    await connectShell.close()
    _ = try await rsync(source, "\(dir)/rsync-warm")
    var oursWarm: [Double] = [], oursWarmPush: [Double] = [], oursWarmUncached: [Double] = [], theirsWarm: [Double] = []
    var oursWarmBytes = 0, theirsWarmBytes = 0, filesSent = 0, reading: [Double] = []
    var previous = base
    for n in 1...runs {
        let next = revision(previous, n)
        let changed = Set(zip(previous, next).filter { $0.contents != $1.contents }.map(\.1.path))
        previous = next
        try writeTree(next, to: source, only: changed)
        let t = now()
        let shell = try await SSHShell.connect(spec("warm"), timeouts: PhaseTimeouts())
        let (outcome, connectDir) = try await push(shell, try await read("hashes"))
        oursWarm.append(now() - t)
        try await cleanUp(shell, connectDir)
        await shell.close()
        let p = now()
        let ws = try await read("hashes")
        reading.append(now() - p)
        let (_, warmDir) = try await push(warmShell, ws)
        oursWarmPush.append(now() - p)
        try await cleanUp(warmShell, warmDir)
        // A/B: the same change to a third work root over a connection of its own, every file hashed (an
        // empty hash cache, as every read was before the cache).
        let u = now()
        let (_, uncachedDir) = try await push(uncachedShell, try await read("hashes-none-\(n)"))
        oursWarmUncached.append(now() - u)
        try await cleanUp(uncachedShell, uncachedDir)
        guard case .pushed(let bytes, let files) = outcome else { throw RemoteShellError(.push, host: "h1", "expected a partial push, got \(outcome)") }
        oursWarmBytes = bytes
        filesSent = files
        let (s, b) = try await rsync(source, "\(dir)/rsync-warm")
        theirsWarm.append(s)
        theirsWarmBytes = b
    }
    await warmShell.close()
    await uncachedShell.close()
    // The floor of a fresh job directory on this host: creating its 2,000 files (`cp -R` on the host).
    var floor: [Double] = []
    for i in 0..<runs {
        let t = now()
        _ = await runProcess(["cp", "-R", source, "\(dir)/floor-\(i)"])
        floor.append(now() - t)
    }
    row("cold push, with connect", median(oursCold), median(theirsCold))
    row("cold push, connection reused", median(oursColdPush), median(theirsCold))
    bytesRow("cold push, bytes sent", oursColdBytes, theirsColdBytes)
    row("warm push, 5 changed, with connect", median(oursWarm), median(theirsWarm))
    row("warm push, 5 changed, connection reused", median(oursWarmPush), median(theirsWarm))
    print("  of which reading the repository (git ls-files, 2,000 files read, 5 hashed)  \(ms(median(reading)))")
    row("  the same, no hash cache (all hashed)", median(oursWarmUncached), median(theirsWarm))
    bytesRow("warm push, bytes sent (\(filesSent) files)", oursWarmBytes, theirsWarmBytes)
    print("cp -R of the 2,000 files on the host  \(ms(median(floor)))   (what a fresh job directory costs; a kept tree is updated in place, as rsync's destination)")
} catch {
    print("bench failed: \(error)")
}
_ = await runProcess([script, "stop", dir])
try? FileManager.default.removeItem(atPath: dir)
