// bench-ssh: xcfleet's SSH transport side by side with OpenSSH on the same loopback hosts.
//
//   swift build -c release --product bench-ssh && .build/release/bench-ssh [hosts=16]
//
// Starts throwaway sshd hosts with scripts/testhosts.sh, then measures (median of runs):
//   `true` on 1 host and on N hosts at once (xcfleet connections vs `ssh` processes),
//   pushing a generated 2,000-file / 20 MB tree cold and warm (SSHShell vs `scp -r` and `rsync -a`).
// All servers share this machine's cores, so fan-out figures include the servers' CPU.
import Foundation
import SSHClient
import XCFleetKit

struct BenchHost {
    var spec: HostSpec
    var port: Int
    var dir: String
}

func now() -> Double { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }

/// Runs a process without blocking the concurrency pool (termination handler + continuation).
func runProcess(_ args: [String]) async -> Int32 {
    await withCheckedContinuation { (c: CheckedContinuation<Int32, Never>) in
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = args
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        p.terminationHandler = { c.resume(returning: $0.terminationStatus) }
        do { try p.run() } catch { c.resume(returning: -1) }
    }
}

func median(_ xs: [Double]) -> Double { xs.sorted()[xs.count / 2] }
func ms(_ s: Double) -> String { String(format: "%8.1f ms", s * 1000) }

func measure(_ runs: Int, _ body: () async throws -> Void) async rethrows -> Double {
    var times: [Double] = []
    for _ in 0..<runs {
        let t = now()
        try await body()
        times.append(now() - t)
    }
    return median(times)
}

func row(_ name: String, _ ours: Double, _ theirs: Double, _ tool: String) {
    print("\(name.padding(toLength: 34, withPad: " ", startingAt: 0)) xcfleet \(ms(ours))   \(tool.padding(toLength: 8, withPad: " ", startingAt: 0)) \(ms(theirs))   ratio \(String(format: "%.2f", theirs / ours))x")
}

func packageRoot() -> String {
    var url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    while url.path != "/" {
        if FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) { return url.path }
        url = url.deletingLastPathComponent()
    }
    return FileManager.default.currentDirectoryPath
}

let count = CommandLine.arguments.dropFirst().first.flatMap(Int.init) ?? 16
let dir = NSTemporaryDirectory() + "xcfleet-bench-ssh-\(getpid())"
let script = packageRoot() + "/scripts/testhosts.sh"
guard await runProcess([script, "start", String(count), dir]) == 0 else {
    print("cannot start test hosts with \(script)")
    exit(1)
}
defer { _ = try? FileManager.default.removeItem(atPath: dir) }

var hosts: [BenchHost] = []
for i in 1...count {
    let port = Int((try? String(contentsOfFile: "\(dir)/h\(i)/port", encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "") ?? 0
    let spec = HostSpec(name: "h\(i)", address: "127.0.0.1", port: port, user: NSUserName(), identityFile: "\(dir)/client_ed25519",
                        knownHostsFile: "\(dir)/known_hosts", workRoot: "\(dir)/work-h\(i)")
    hosts.append(BenchHost(spec: spec, port: port, dir: dir))
}

func sshArgs(_ h: BenchHost) -> [String] {
    ["-i", "\(dir)/client_ed25519", "-o", "UserKnownHostsFile=\(dir)/known_hosts", "-o", "StrictHostKeyChecking=yes",
     "-o", "BatchMode=yes", "-p", String(h.port)]
}

func xcfleetTrue(_ h: BenchHost) async throws {
    let shell = try await SSHShell.connect(h.spec, timeouts: PhaseTimeouts())
    let r = try await shell.run(ShellCommand(["true"]), in: "/", deadlines: CommandDeadlines(total: 60, silence: 60)) { _ in }
    await shell.close()
    guard r == .exited(0) else { throw RemoteShellError(.command, host: h.spec.name, "true: \(r)") }
}

print("bench-ssh: \(count) loopback sshd hosts, \(ProcessInfo.processInfo.activeProcessorCount) cores")
do {
    let h = hosts[0]
    try await xcfleetTrue(h)
    let oursOne = try await measure(5) { try await xcfleetTrue(h) }
    let sshOne = await measure(5) { _ = await runProcess(["ssh"] + sshArgs(h) + ["127.0.0.1", "true"]) }
    row("true, 1 host (connect+run+close)", oursOne, sshOne, "ssh")

    let oursMany = try await measure(3) {
        try await withThrowingTaskGroup(of: Void.self) { g in
            for h in hosts { g.addTask { try await xcfleetTrue(h) } }
            try await g.waitForAll()
        }
    }
    let sshMany = await measure(3) {
        await withTaskGroup(of: Int32.self) { g in
            for h in hosts { g.addTask { await runProcess(["ssh"] + sshArgs(h) + ["127.0.0.1", "true"]) } }
            for await _ in g {}
        }
    }
    row("true, \(count) hosts in parallel", oursMany, sshMany, "ssh")

    // A 2,000-file, 20 MB tree: 100 directories × 20 files × 10 KB.
    var files: [WorkspaceFile] = []
    var rng = SystemRandomNumberGenerator()
    for d in 0..<100 {
        for f in 0..<20 {
            let bytes = (0..<10_000).map { _ in UInt8.random(in: 32...126, using: &rng) }
            files.append(WorkspaceFile(path: "Sources/M\(d)/F\(f).swift", contents: Data(bytes)))
        }
    }
    let ws = Workspace(files: files)
    let hashTime = await measure(3) { _ = ws.contentHash }
    print("content hash of the 20 MB tree: \(ms(hashTime))")
    let local = dir + "/tree"
    try ws.write(to: URL(fileURLWithPath: local))
    let ph = hosts[1]
    let shell = try await SSHShell.connect(ph.spec, timeouts: PhaseTimeouts())
    var cold: [Double] = []
    for i in 0..<3 {
        // Fresh work root each time: nothing cached.
        var spec = ph.spec
        spec.workRoot = "\(dir)/cold-\(i)"
        let s = try await SSHShell.connect(spec, timeouts: PhaseTimeouts())
        let t = now()
        let job = try await s.makeJobDirectory(jobID: "cold")
        _ = try await s.push(ws, to: job)
        cold.append(now() - t)
        await s.close()
    }
    let job = try await shell.makeJobDirectory(jobID: "seed")
    _ = try await shell.push(ws, to: job)
    let warm = try await measure(3) {
        let j = try await shell.makeJobDirectory(jobID: "warm")
        let outcome = try await shell.push(ws, to: j)
        guard outcome == .unchanged else { throw RemoteShellError(.push, host: "h2", "expected a warm push") }
    }
    await shell.close()
    var n = 0
    let scp = await measure(3) {
        n += 1
        _ = await runProcess(["scp", "-q", "-r", "-P", String(ph.port), "-i", "\(dir)/client_ed25519", "-o", "UserKnownHostsFile=\(dir)/known_hosts",
                              "-o", "BatchMode=yes", local, "127.0.0.1:\(dir)/scp-\(n)"])
    }
    let sshCommand = (["ssh"] + sshArgs(ph)).joined(separator: " ")
    let rsyncCold = await measure(3) {
        n += 1
        _ = await runProcess(["rsync", "-a", "-e", sshCommand, local + "/", "127.0.0.1:\(dir)/rsync-\(n)/"])
    }
    _ = await runProcess(["rsync", "-a", "-e", sshCommand, local + "/", "127.0.0.1:\(dir)/rsync-warm/"])
    let rsyncWarm = await measure(3) {
        _ = await runProcess(["rsync", "-a", "-e", sshCommand, local + "/", "127.0.0.1:\(dir)/rsync-warm/"])
    }
    let coldMedian = median(cold)
    row("push 2,000 files / 20 MB, cold", coldMedian, scp, "scp -r")
    row("push 2,000 files / 20 MB, cold", coldMedian, rsyncCold, "rsync")
    row("push 2,000 files / 20 MB, warm", warm, rsyncWarm, "rsync")
} catch {
    print("bench failed: \(error)")
}
_ = await runProcess([script, "stop", dir])
