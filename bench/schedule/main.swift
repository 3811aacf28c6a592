// bench-schedule: discrete-event simulation of a fleet, comparing xcfleet's queue scheduler with a
// static round-robin split decided up front. Build and run in release:
//   swift build -c release --product bench-schedule && .build/release/bench-schedule [--seeds N] [--sigma S]
//
// Fleet: 16 hosts × 2 slots; 3 hosts join late (after 20, 40, 60 s); one host dies at half of the
// lower bound, losing the attempts it was running. Work: 200 suites with log-normal durations
// (median 60 s); the scheduler only knows durations from a "previous run" (true × log-normal noise).
// Figures are makespans divided by the lower bound max(total work / slots, longest job).
import Foundation
import XCFleetKit


extension SeededGenerator {
    /// Standard normal (Box–Muller).
    mutating func normal() -> Double {
        let u1 = Double.random(in: Double.ulpOfOne..<1, using: &self)
        let u2 = Double.random(in: 0..<1, using: &self)
        return (-2 * log(u1)).squareRoot() * cos(2 * .pi * u2)
    }
}

struct Config {
    var suites = 200
    var hosts = 16
    var slotsPerHost = 2
    var medianSeconds = 60.0
    var sigma = 0.8
    var historyNoise = 0.15
    var lateJoins: [Int: Double] = [13: 20, 14: 40, 15: 60]
    var dyingHost = 5
    var seeds = 10
    /// Build costs: jobs share `buildKeys` keys; `mutantShare` of the keys are variants of
    /// another key (incremental from it). Seconds for a cold, an incremental and a cached build.
    var builds = true
    var buildKeys = 25
    var mutantShare = 0.3
    var coldSeconds = 120.0
    var incrementalSeconds = 20.0
    var cachedSeconds = 2.0
}

struct Scenario {
    var durations: [Double]
    var expected: [Double]
    var dieAt: Double
    var bound: Double
    /// Build key of each job, and the base key each key can be built incrementally from.
    var keys: [String] = []
    var bases: [String: String] = [:]
}

/// The first instant the fleet's real slot-time (late joins, the dead host) covers `work` seconds.
func capacityBound(_ config: Config, _ scenario: Scenario, work: Double) -> Double {
    func capacity(_ t: Double) -> Double {
        (0..<config.hosts).reduce(0) { sum, h in
            let join = config.lateJoins[h] ?? 0
            let end = h == config.dyingHost ? min(t, scenario.dieAt) : t
            return sum + Double(config.slotsPerHost) * max(0, end - join)
        }
    }
    var lo = 0.0, hi = work + 1_000
    for _ in 0..<100 {
        let mid = (lo + hi) / 2
        if capacity(mid) >= work { hi = mid } else { lo = mid }
    }
    return hi
}

func makeScenario(_ config: Config, seed: UInt64) -> Scenario {
    var rng = SeededGenerator(seed: seed)
    let durations = (0..<config.suites).map { _ in config.medianSeconds * exp(config.sigma * rng.normal()) }
    let expected = durations.map { $0 * exp(config.historyNoise * rng.normal()) }
    let total = durations.reduce(0, +)
    let slots = Double(config.hosts * config.slotsPerHost)
    let bound = max(total / slots, durations.max() ?? 0)
    let dieAt = bound / 2
    var scenario = Scenario(durations: durations, expected: expected, dieAt: dieAt, bound: bound)
    let keyCount = max(1, config.buildKeys)
    let mutants = Int(Double(keyCount) * min(max(0, config.mutantShare), 0.9))
    for k in (keyCount - mutants)..<keyCount where k > 0 {
        scenario.bases["key\(k)"] = "key\(Int.random(in: 0..<(keyCount - mutants), using: &rng))"
    }
    scenario.keys = durations.indices.map { _ in "key\(Int.random(in: 0..<keyCount, using: &rng))" }
    return scenario
}

/// How builds are simulated: not at all (the original figures), costed but unknown to the
/// scheduler (it places blindly; a second job of a key on a host waits in its slot for the host's
/// build lock), or costed and known (`SchedulerJob.build` + `buildFinished`).
enum BuildMode: String {
    case none, blind, aware
}

struct BuildCounts {
    var cold = 0, incremental = 0, cached = 0, waited = 0
}

func hostName(_ h: Int) -> String { "mac\(h)" }

/// Drives `Scheduler` with simulated time. Returns the makespan and the number of attempts.
func simulateXCFleet(_ config: Config, _ scenario: Scenario, builds mode: BuildMode = .none)
    -> (makespan: Double, attempts: Int, reruns: Int, hindsight: Double, builds: BuildCounts) {
    enum Event {
        case finish(job: Int, attempt: Int)
        case join(Int)
        case die(Int)
        case buildDone(host: String, key: String)
    }
    var events: [(time: Double, seq: Int, event: Event)] = []
    var seq = 0
    func push(_ time: Double, _ event: Event) {
        seq += 1
        events.append((time, seq, event))
    }
    let jobs = scenario.durations.indices.map { j -> SchedulerJob in
        var job = SchedulerJob(id: "\(j)", suite: "suite\(j)", requires: ["platform:macos"], expectedSeconds: scenario.expected[j], infraRetries: 2)
        if mode == .aware {
            let key = scenario.keys[j]
            job.build = SchedulerJob.Build(key: key, bases: scenario.bases[key].map { [$0] } ?? [], coldSeconds: config.coldSeconds,
                                           incrementalSeconds: config.incrementalSeconds, cachedSeconds: config.cachedSeconds)
        }
        return job
    }
    // The hosts' real build caches: complete keys, and builds in flight (key → done time).
    var cached: [String: Set<String>] = [:]
    var inFlight: [String: [String: Double]] = [:]
    var dead: Set<String> = []
    var counts = BuildCounts()
    let host = { (h: Int) in SchedulerHost(name: hostName(h), labels: ["platform:macos", "xcode:16.4"], slots: config.slotsPerHost) }
    let initial = (0..<config.hosts).filter { config.lateJoins[$0] == nil }.map(host)
    for (h, t) in config.lateJoins { push(t, .join(h)) }
    if config.dyingHost >= 0 { push(scenario.dieAt, .die(config.dyingHost)) }

    var scheduler = Scheduler(jobs: jobs, hosts: initial)
    var now = 0.0, attempts = 0, lost = 0, makespan = Double.nan
    var running: [Int: (host: String, start: Double)] = [:]
    var lostWork = 0.0, restartBound = 0.0
    /// Seconds job `j` spends building on `host` starting now (the host's real cache and lock).
    func build(_ j: Int, on host: String) -> Double {
        guard mode != .none else { return 0 }
        let key = scenario.keys[j]
        if cached[host, default: []].contains(key) { counts.cached += 1; return config.cachedSeconds }
        if let done = inFlight[host]?[key] { counts.waited += 1; return done - now + config.cachedSeconds }
        let cost: Double
        if let base = scenario.bases[key], cached[host, default: []].contains(base) {
            counts.incremental += 1
            cost = config.incrementalSeconds
        } else {
            counts.cold += 1
            cost = config.coldSeconds
        }
        inFlight[host, default: [:]][key] = now + cost
        push(now + cost, .buildDone(host: host, key: key))
        return cost
    }
    func perform(_ actions: [Scheduler.Action]) {
        for action in actions {
            switch action {
            case let .start(id, attempt, host, _):
                guard let j = Int(id) else { continue }
                running[j] = (host, now)
                attempts += 1
                if attempt > 1 { lost += 1 }
                push(now + build(j, on: host) + scenario.durations[j], .finish(job: j, attempt: attempt))
            case .cancel:
                break
            case let .jobFinished(id, state, _, _):
                if state != .passed { print("  job \(id) ended \(state.rawValue)") }
            case .runFinished:
                makespan = now
            }
        }
    }
    perform(scheduler.start())
    while !scheduler.isFinished, !events.isEmpty {
        var next = 0
        for i in events.indices where (events[i].time, events[i].seq) < (events[next].time, events[next].seq) { next = i }
        let (time, _, event) = events.remove(at: next)
        now = time
        switch event {
        case let .finish(job, attempt):
            if case .running(attempt, _, _)? = scheduler.status(ofJob: "\(job)") { running[job] = nil }
            perform(scheduler.attemptFinished(jobID: "\(job)", attempt: attempt, outcome: .passed))
        case let .join(h):
            perform(scheduler.hostJoined(host(h)))
        case let .buildDone(host, key):
            guard !dead.contains(host), inFlight[host]?[key] != nil else { continue }
            inFlight[host]?[key] = nil
            cached[host, default: []].insert(key)
            if mode == .aware { perform(scheduler.buildFinished(host: host, key: key, succeeded: true)) }
        case let .die(h):
            dead.insert(hostName(h))
            inFlight[hostName(h)] = [:]
            for (j, r) in running where r.host == hostName(h) {
                lostWork += now - r.start
                restartBound = max(restartBound, now + scenario.durations[j])
            }
            perform(scheduler.hostLost(hostName(h), reason: "sshd killed"))
        }
    }
    // What any online scheduler that lost the same attempts must take at least: with builds, every
    // key built once (cold, or incremental for a variant) and every job's own test time; no job
    // ends before a cold build of its key plus its tests.
    var work = scenario.durations.reduce(0, +) + lostWork
    var longest = scenario.durations.max() ?? 0
    if mode != .none {
        for key in Set(scenario.keys) { work += scenario.bases[key] == nil ? config.coldSeconds : config.incrementalSeconds }
        longest += config.coldSeconds
        restartBound += config.cachedSeconds
    }
    let hindsight = max(capacityBound(config, scenario, work: work), restartBound, longest)
    return (makespan, attempts, lost, hindsight, counts)
}

/// Static round-robin split decided up front (plan order, job i → slot i mod slots). The dead host's
/// unfinished jobs are lost and rerun at the end, round-robin over the surviving slots.
func simulateStatic(_ config: Config, _ scenario: Scenario) -> Double {
    let slotCount = config.hosts * config.slotsPerHost
    var lists = Array(repeating: [Int](), count: slotCount)
    for j in scenario.durations.indices { lists[j % slotCount].append(j) }
    var end = 0.0
    var lostJobs: [Int] = []
    for s in 0..<slotCount {
        let h = s / config.slotsPerHost
        var t = config.lateJoins[h] ?? 0
        for j in lists[s] {
            let finish = t + scenario.durations[j]
            if h == config.dyingHost, finish > scenario.dieAt {
                lostJobs.append(j)
                continue
            }
            t = finish
        }
        end = max(end, t)
    }
    let survivors = (0..<slotCount).filter { $0 / config.slotsPerHost != config.dyingHost }
    var rerun = Array(repeating: 0.0, count: survivors.count)
    for (i, j) in lostJobs.enumerated() { rerun[i % survivors.count] += scenario.durations[j] }
    return end + (rerun.max() ?? 0)
}

var config = Config()
var arguments = CommandLine.arguments.dropFirst().makeIterator()
while let argument = arguments.next() {
    switch argument {
    case "--seeds": config.seeds = arguments.next().flatMap(Int.init) ?? config.seeds
    case "--sigma": config.sigma = arguments.next().flatMap(Double.init) ?? config.sigma
    case "--suites": config.suites = arguments.next().flatMap(Int.init) ?? config.suites
    case "--noise": config.historyNoise = arguments.next().flatMap(Double.init) ?? config.historyNoise
    case "--no-late": config.lateJoins = [:]
    case "--no-death": config.dyingHost = -1
    case "--no-builds": config.builds = false
    case "--keys": config.buildKeys = arguments.next().flatMap(Int.init) ?? config.buildKeys
    case "--cold": config.coldSeconds = arguments.next().flatMap(Double.init) ?? config.coldSeconds
    default:
        print("usage: bench-schedule [--seeds N] [--sigma S] [--suites N] [--noise S] [--no-late] [--no-death] [--no-builds] [--keys N] [--cold S]")
        exit(2)
    }
}

print("bench-schedule: \(config.suites) suites, log-normal durations (median \(Int(config.medianSeconds)) s, sigma \(config.sigma)),")
print("  \(config.hosts) hosts × \(config.slotsPerHost) slots, late joins \(config.lateJoins.sorted { $0.key < $1.key }.map { "\(hostName($0.key))@\(Int($0.value))s" }.joined(separator: " ")), \(hostName(config.dyingHost)) dies at bound/2")
print("  bound = max(total work / slots, longest job); history known with noise sigma \(config.historyNoise)")
print("  hindsight = max(time the real slot-time (late joins, dead host) covers work + work lost, death + longest killed job, longest job)")
print("")
let header = ["seed", "work s", "longest s", "bound s", "xcfleet s", "static s", "xcfleet/bound", "static/bound", "xcfleet/hindsight", "attempts", "reruns"]
print(header.joined(separator: "\t"))
var worst = 0.0, sum = 0.0, staticSum = 0.0
for seed in 1...max(1, config.seeds) {
    let scenario = makeScenario(config, seed: UInt64(seed))
    let xcfleet = simulateXCFleet(config, scenario)
    let roundRobin = simulateStatic(config, scenario)
    let ratio = xcfleet.makespan / scenario.bound
    worst = max(worst, ratio)
    sum += ratio
    staticSum += roundRobin / scenario.bound
    let cells = [
        "\(seed)",
        String(format: "%.0f", scenario.durations.reduce(0, +)),
        String(format: "%.0f", scenario.durations.max() ?? 0),
        String(format: "%.0f", scenario.bound),
        String(format: "%.0f", xcfleet.makespan),
        String(format: "%.0f", roundRobin),
        String(format: "%.3f", ratio),
        String(format: "%.3f", roundRobin / scenario.bound),
        String(format: "%.3f", xcfleet.makespan / xcfleet.hindsight),
        "\(xcfleet.attempts)",
        "\(xcfleet.reruns)",
    ]
    print(cells.joined(separator: "\t"))
}
let n = Double(max(1, config.seeds))
print("")
print(String(format: "mean xcfleet/bound %.3f (worst %.3f), mean static/bound %.3f", sum / n, worst, staticSum / n)
      + "; target xcfleet <= 1.05: " + (worst <= 1.05 ? "met" : "NOT met"))

// MARK: - With build costs

if config.builds {
    print("")
    print("with build costs: \(config.buildKeys) build keys (\(Int(config.mutantShare * 100))% variants of another key), cold \(Int(config.coldSeconds)) s,"
          + " incremental \(Int(config.incrementalSeconds)) s, cached \(Int(config.cachedSeconds)) s; hindsight adds one build per key and a cold build to the longest chain")
    print("  blind: the scheduler is not told build keys (a second job of a key on a host waits in its slot for that host's build)")
    print("  aware: SchedulerJob.build + buildFinished: at most one build of a key per host in flight, the host holding the build preferred")
    print("")
    print(["seed", "hindsight s", "blind s", "aware s", "blind/hindsight", "aware/hindsight", "aware/blind",
           "builds blind (cold+incr, waits)", "builds aware (cold+incr, waits)"].joined(separator: "\t"))
    var blindSum = 0.0, awareSum = 0.0, gainSum = 0.0
    for seed in 1...max(1, config.seeds) {
        let scenario = makeScenario(config, seed: UInt64(seed))
        let blind = simulateXCFleet(config, scenario, builds: .blind)
        let aware = simulateXCFleet(config, scenario, builds: .aware)
        let hindsight = max(blind.hindsight, aware.hindsight)
        blindSum += blind.makespan / hindsight
        awareSum += aware.makespan / hindsight
        gainSum += aware.makespan / blind.makespan
        print([
            "\(seed)", String(format: "%.0f", hindsight), String(format: "%.0f", blind.makespan), String(format: "%.0f", aware.makespan),
            String(format: "%.3f", blind.makespan / hindsight), String(format: "%.3f", aware.makespan / hindsight),
            String(format: "%.3f", aware.makespan / blind.makespan),
            "\(blind.builds.cold)+\(blind.builds.incremental), \(blind.builds.waited)",
            "\(aware.builds.cold)+\(aware.builds.incremental), \(aware.builds.waited)",
        ].joined(separator: "\t"))
    }
    print("")
    print(String(format: "mean blind/hindsight %.3f, mean aware/hindsight %.3f, mean aware/blind %.3f", blindSum / n, awareSum / n, gainSum / n))
}
