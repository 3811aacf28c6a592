import Foundation
import XCFleetBasics
import XCFleetModel
import XCFleetCore
import XCFleetHostScripts

/// Everything a run needs, decided before it starts.
public struct RunConfiguration: Sendable {
    public var plan: TestPlan
    public var fleet: Fleet
    public var root: TemplateRoot
    /// A team's own templates (`--templates DIR`, `TemplateCatalog`); nil: only the built-ins.
    public var userTemplates: URL? = nil
    /// Parent of run directories (default `.xcfleet/runs`).
    public var runsDirectory: URL
    /// Run every gate suite against its mutants too (`--mutants`).
    public var forceMutants: Bool
    /// Earlier test durations by `Class/test` (`--history`), for ordering and shards.
    public var history: DurationHistory?
    /// Names the run directory; validated by `RunID.problem` when the runner starts.
    public var runID: String
    /// Hosts the history says to set aside at admission (`HostHealthGate`), with the reason and figures.
    public var setAsideByHistory: [String: String] = [:]
    /// Called with the collated report once the run ended, before the reports are written: its
    /// answer (cost, trends, known-flaky tests) is logged as a `historyContext` event and shown in
    /// the reports. Must not stall (`HistoryRecorder` bounds every step by its deadline).
    public var historyContext: (@Sendable (RunReport) async -> HistoryContext?)? = nil
    /// The quarantine in force (`--quarantine`, or `quarantine.json` beside the plan); nil: none.
    public var quarantine: Quarantine?
    /// Product digests of the builds xcfleet made on each host (from the history); a cached build
    /// on a host is reused only when it matches (`BuildTrust`). The run adds its own builds.
    public var trustedBuilds = BuildTrust()
    /// When a directory named `runID` already exists: true picks a fresh default id (for
    /// generated ids), false fails (an id the user chose). An existing run is never overwritten.
    public var pickNewRunIDIfTaken: Bool

    public init(plan: TestPlan, fleet: Fleet, root: TemplateRoot, runsDirectory: URL, forceMutants: Bool = false,
                history: DurationHistory? = nil, runID: String = RunConfiguration.makeRunID(), pickNewRunIDIfTaken: Bool = true) {
        self.plan = plan
        self.fleet = fleet
        self.root = root
        self.runsDirectory = runsDirectory
        self.forceMutants = forceMutants
        self.history = history
        self.runID = runID
        self.pickNewRunIDIfTaken = pickNewRunIDIfTaken
    }

    /// A default run id (see `RunID.make`).
    public static func makeRunID(now: Date = Date()) -> String { RunID.make(now: now) }
}

/// Opens a shell to a host slot. The default handles the built-in local host; SSH hosts go through `SSHShell`.
public typealias ShellFactory = @Sendable (HostSpec, PhaseTimeouts) async throws -> any RemoteShell

/// Drives one run: plans jobs, leases host slots through the `Scheduler`, executes attempts,
/// logs every event, and collates the report. The scheduling decisions stay in the scheduler;
/// this type only does the I/O they call for.
public final class Runner: Sendable {
    public let config: RunConfiguration
    public let runDirectory: URL
    private let coordinator: RunCoordinator
    private let log: EventLog

    public init(config: RunConfiguration, shellFactory: @escaping ShellFactory = Runner.defaultShellFactory) throws {
        // The run directory is created exclusively: an existing run (same id) is never reused,
        // overwritten or truncated.
        var config = config
        if let problem = RunID.problem(config.runID) {
            throw SafePathError(path: config.runID, message: "run id '\(SafePath.sanitizedForMessage(config.runID))' \(problem)")
        }
        var directory: URL
        var tries = 0
        while true {
            directory = try SafePath.child(config.runID, of: config.runsDirectory, what: "run id")
            do {
                try SafePath.createExclusively(directory, inside: config.runsDirectory)
                break
            } catch let error as SafePathError where error.exists {
                tries += 1
                guard config.pickNewRunIDIfTaken, tries < 5 else {
                    throw SafePathError(path: directory.path, message: "run directory \(directory.path) already exists (run id '\(config.runID)' was used before); choose another --run-id or remove the old run")
                }
                config.runID = RunConfiguration.makeRunID()
            }
        }
        self.config = config
        runDirectory = directory
        log = try EventLog(directory: runDirectory, secrets: config.fleet.secrets + config.plan.secretValues)
        coordinator = RunCoordinator(log: log, runDirectory: runDirectory, shellFactory: shellFactory)
    }

    public static let defaultShellFactory: ShellFactory = { host, timeouts in
        switch host.transport {
        case .local: return LocalShell(host: host)
        case .ssh: return try await SSHShell.connect(host, timeouts: timeouts)
        }
    }

    /// Observes every event as it is logged (console progress).
    public func observe(_ observer: @escaping @Sendable (RunEvent) -> Void) { log.setObserver(observer) }

    /// Runs the plan to the end (or to an interrupt) and writes the reports. Returns the collated report.
    public func run() async throws -> RunReport {
        let mutants = try MutantSpec.all(in: config.root)
        let planner = JobPlanner(renderer: Renderer(root: config.root, userTemplates: config.userTemplates), mutants: mutants, history: config.history,
                                 packages: try await PackageWorkspace.read(config.plan))
        let jobs = try planner.jobs(for: config.plan, forceMutants: config.forceMutants)
        let iso = ISO8601DateFormatter()
        iso.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        log.append(.runStarted(RunStarted(runID: config.runID, planName: config.plan.name, planPath: config.plan.sourcePath,
                                          startedAt: iso.string(from: Date()), xcfleetVersion: XCFleet.version,
                                          suites: config.plan.suites.map(\.redactingSecrets), hosts: config.fleet.hosts.map(\.name),
                                          forge: ForgeLink.fromEnvironment(ProcessInfo.processInfo.environment))))
        if let quarantine = config.quarantine { log.append(.quarantine(quarantine.entries)) }
        for job in jobs {
            log.append(.jobPlanned(job.planned))
            if let map = job.sourceMap { log.append(.sourceMap(jobID: job.planned.jobID, map: map)) }
        }
        await coordinator.use(quarantine: config.quarantine)
        await coordinator.use(trustedBuilds: config.trustedBuilds)
        await coordinator.holdBack(config.setAsideByHistory) // history: hosts over the fleet's infra-failure threshold
        await coordinator.run(jobs: jobs, fleet: config.fleet, runID: config.runID, history: config.history)
        let interrupted = await coordinator.wasInterrupted
        log.append(.runFinished(interrupted: interrupted))
        // Every job has its verdict: the last cleanups and the lease release run while the report
        // is collated and written (off the critical path); the run returns once they are done.
        let coordinator = self.coordinator
        let teardown = Task { await coordinator.teardown() }
        let collator = Collator(mutantFaults: Dictionary(mutants.map { ($0.id, $0.fault) }, uniquingKeysWith: { a, _ in a }))
        var report: RunReport
        // The events the report holds: all up to here (read next), and the history context it adds.
        // The teardown logs concurrently, so anything else appended since is not in it.
        var collated = log.count
        do {
            report = collator.collate(try EventLog.read(log.url))
            if let provide = config.historyContext, let context = await provide(report) {
                // What is logged (redacted) is what the report shows, as a rebuild would collate it.
                if case .historyContext(let logged) = log.append(.historyContext(context)).body { report.history = logged }
                collated += 1
            }
            try ReportWriter.writeAll(report, to: runDirectory)
        } catch {
            await teardown.value
            throw error
        }
        await teardown.value
        if log.count != collated {
            // The teardown logged something (a cleanup or a release failed): the reports say it too,
            // as `report RUN_DIR` would rebuild them from events.jsonl.
            report = collator.collate(try EventLog.read(log.url))
            try ReportWriter.writeAll(report, to: runDirectory)
        }
        return report
    }

    /// Ctrl-C / SIGTERM: stop handing out jobs, cancel running ones (their process groups are
    /// killed and their directories removed), then finish with a partial report.
    public func interrupt() {
        Task { await coordinator.interrupt() }
    }
}

/// The run's mutable heart: owns the scheduler state and the host slots' shells.
actor RunCoordinator {
    let log: EventLog
    private let runDirectory: URL
    let shellFactory: ShellFactory
    var scheduler = Scheduler(jobs: [], hosts: [])
    private(set) var jobs: [String: PlannedJob] = [:]
    var hosts: [String: HostSpec] = [:]
    var shells: [String: any RemoteShell] = [:]
    private var running: [String: Task<Void, Never>] = [:]
    /// Each slot's last attempt (host#slot), until it returned: after its verdict it may still be
    /// cleaning up, and the slot's next attempt and the run's lease release wait for it.
    private(set) var slotTasks: [String: (id: Int, task: Task<Void, Never>)] = [:]
    private var slotTaskCount = 0
    var finished = false
    private var waiter: CheckedContinuation<Void, Never>?
    private(set) var wasInterrupted = false
    private var admissionTask: Task<Void, Never>?
    var leases: HostLeaseManager?
    /// The fleet's provisioner, once the run started (its hosts are released by `teardown`).
    private var provisioner: CommandProvisioner?
    var runID = ""
    var admissionTimeouts: PhaseTimeouts = .defaults
    /// The fleet's `minFreeDiskBytes` (or the default), held against every host at admission.
    var minimumFreeBytes = HostProbe.defaultMinimumFreeBytes
    /// Hosts being probed (on probation, or set aside as unreachable) → the waiting or probing task.
    var recovering: [String: Task<Void, Never>] = [:]
    /// Each host's probation, backoff and set-aside (`HostRecovery`).
    var recoveries: [String: HostRecovery] = [:]
    /// Hosts whose probe passed, as the scheduler will know them when they join again.
    var rejoining: [String: SchedulerHost] = [:]
    /// Reruns after test failures: job id → the discovered tests to run again.
    var reruns: [String: [String]] = [:]
    /// Which host builds or built each key (build once per fleet).
    let fleetBuilds = FleetBuilds()
    /// Running attempts: job id → host and process-record token.
    var attemptTokens: [String: (host: String, token: String)] = [:]
    /// Hosts' toolchain identities (build keys), seeded by the admission health checks.
    let toolchains = ToolchainIdentityCache()
    private let listings = KnownListings()
    /// The builds xcfleet made, per host (what a cached build must match).
    private var buildTrust = BuildTrust()
    /// What the run's attempts fetched as attachments (the run cap, docs/attachments.md).
    private var attachmentBudget = AttachmentBudget()

    init(log: EventLog, runDirectory: URL, shellFactory: @escaping ShellFactory) {
        self.log = log
        self.runDirectory = runDirectory
        self.shellFactory = shellFactory
    }

    /// A job's seconds from the history: its suite's pass split over its shards (its tests are
    /// known only once an attempt discovered them); a planned manifest's own tests when it has one.
    static func expectedSeconds(_ job: PlannedJob, history: DurationHistory?) -> Double? {
        guard let history else { return nil }
        if !job.planned.expectedTests.isEmpty { return history.expectedSeconds(suite: job.planned.suite, tests: job.planned.expectedTests) }
        return history.expectedSeconds(suite: job.planned.suite).map { $0 / Double(max(1, job.planned.shardCount)) }
    }

    func run(jobs planned: [PlannedJob], fleet: Fleet, runID: String, history: DurationHistory?) async {
        for job in planned { jobs[job.planned.jobID] = job }
        let builds = Self.builds(for: planned, costs: BuildCostEstimate(history: history))
        let schedJobs = planned.map { job in
            SchedulerJob(id: job.planned.jobID, suite: job.planned.suite, requires: job.requires,
                         expectedSeconds: Self.expectedSeconds(job, history: history),
                         infraRetries: job.spec.retries.infrastructure, testRetries: job.spec.retries.testFailures,
                         build: builds[job.planned.jobID])
        }
        // Hosts join as they pass their health check and lease their slots; until every host has
        // been admitted or set aside, nothing is declared unschedulable.
        scheduler = Scheduler(jobs: schedJobs, hosts: [], options: .init(expectingMoreHosts: true))
        apply(scheduler.start())
        let leases = HostLeaseManager()
        self.leases = leases
        self.runID = runID
        minimumFreeBytes = fleet.minFreeDiskBytes ?? HostProbe.defaultMinimumFreeBytes
        attachmentBudget = AttachmentBudget(limits: fleet.attachmentLimits ?? .defaults)
        await leases.setLostHandler { host, slots in
            Task { await self.setAside(host, reason: "slot lease \(slots.map(String.init).joined(separator: ",")) was taken over by another run") }
        }
        var provisioner: CommandProvisioner?
        if let spec = fleet.provisioner {
            provisioner = CommandProvisioner(spec: spec, directory: runDirectory, reservedNames: Set(fleet.hosts.map(\.name)),
                                             workingDirectory: fleet.sourcePath.map { URL(fileURLWithPath: $0).deletingLastPathComponent().path })
        }
        let timeouts = planned.first?.spec.timeouts ?? .defaults
        admissionTimeouts = timeouts
        // Admission runs in its own task so that Ctrl-C can cancel it (a host may be waiting for
        // another run's lease, or a provisioner may be creating a VM).
        let admission = Task {
            await withTaskGroup(of: Void.self) { group in
                for host in fleet.hosts {
                    group.addTask { await self.admit(host, runID: runID, leases: leases, timeouts: timeouts) }
                }
                if let provisioner, let spec = fleet.provisioner {
                    for index in 1...max(1, spec.count) {
                        group.addTask {
                            do {
                                let started = Date()
                                let host = try await provisioner.create(index: index)
                                await self.provisioned(host.name, seconds: Date().timeIntervalSince(started))
                                await self.note("provisioned \(host.name) at \(host.address):\(host.port)")
                                await self.admit(host, runID: runID, leases: leases, timeouts: timeouts)
                            } catch let error as ProvisionError {
                                await self.setAside(error.host, reason: error.description)
                            } catch {
                                await self.setAside("prov-\(index)", reason: "\(error)")
                            }
                        }
                    }
                }
            }
        }
        admissionTask = admission
        if wasInterrupted { admission.cancel() }
        await admission.value
        admissionTask = nil
        apply(scheduler.noMoreHosts())
        await leases.startHeartbeats()
        if !finished {
            await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
                if finished { c.resume() } else { waiter = c }
            }
        }
        // Probes of hosts that were lost stop with the run (a probe that still ends logs nothing: `finished`).
        for probe in recovering.values { probe.cancel() }
        recovering = [:]
        for host in recoveries.keys { _ = recoveries[host]?.stop() }
        self.provisioner = provisioner
    }

    /// After the verdicts (`run` returned): the attempts' cleanups still running end first, then
    /// every lease is released (normal end, error, interrupt), then the hosts the run created.
    /// Runs while the reports are written; what it logs makes the runner write them again.
    func teardown() async {
        while let (key, last) = slotTasks.first {
            await last.task.value
            if slotTasks[key]?.id == last.id { slotTasks[key] = nil }
        }
        if let leases {
            for (host, problem) in await leases.release().sorted(by: { $0.key < $1.key }) {
                log.append(.note("releasing the slot lease on \(host) failed: \(problem)"))
            }
        }
        for (_, shell) in shells { await shell.close() }
        shells = [:]
        if let provisioner {
            for problem in await provisioner.releaseAll() { log.append(.note("release failed: \(problem.description)")) }
        }
        provisioner = nil
    }

    /// The on-host slot lease behind each scheduler slot of an admitted host.
    private(set) var leaseSlots: [String: [Int]] = [:]

    private func note(_ text: String) { log.append(.note(text)) }
    private func provisioned(_ host: String, seconds: Double) { log.append(.hostProvisioned(host: host, seconds: seconds)) }

    /// Hosts set aside before connecting, by the history's health record (host → reason).
    private var heldBack: [String: String] = [:]
    func holdBack(_ hosts: [String: String]) { heldBack = hosts }
    /// The run's quarantine, for deciding whether an attempt failed (and is retried).
    private var quarantine = Quarantine()
    func use(quarantine: Quarantine?) { self.quarantine = quarantine ?? Quarantine() }

    func use(trustedBuilds: BuildTrust) { buildTrust = trustedBuilds }

    /// Connects, checks health and leases slots; the host joins the scheduler or is set aside with the reason.
    private func admit(_ host: HostSpec, runID: String, leases: HostLeaseManager, timeouts: PhaseTimeouts) async {
        if let reason = heldBack[host.name] { setAside(host.name, reason: reason); return }
        let factory = shellFactory
        let shell: any RemoteShell
        do {
            shell = try await withDeadline(timeouts.connect, phase: .connect, host: host.name) { try await factory(host, timeouts) }
        } catch {
            setAside(host.name, reason: (error as? RemoteShellError)?.description ?? "\(host.name): \(error)")
            // Unreachable now: probed with backoff while work is queued, and re-admitted when back.
            if !(error is CancellationError) { startRecovery(host) }
            return
        }
        switch await HostAdmission.admit(host, shell: shell, runID: runID, leases: leases,
                                           minimumFreeBytes: minimumFreeBytes, waitForSlots: Self.leaseWait) {
        case .admitted(let schedulerHost, let leaseSlots, let health, let acquisition):
            if let identity = health.toolchainIdentity { await toolchains.seed(host: host.name, identity: identity) }
            log.append(.hostAdmitted(HostProfile(host: host.name, health: health)))
            hosts[host.name] = host
            self.leaseSlots[host.name] = leaseSlots
            shells["\(host.name)#0"] = shell
            for r in acquisition.reclaimed { log.append(.note("\(host.name): reclaimed stale slot lease \(r.slot) of run \(r.runID)")) }
            for r in acquisition.reaped { log.append(.note("\(host.name): reaped the process record of a dead run: \(r)")) }
            for r in acquisition.ignored { log.append(.note("\(host.name): ignored the process record \(r)")) }
            noteCachedBuilds(on: host.name, keys: schedulerBuildKeys(cached: health.cachedBuildKeys, toolchain: health.toolchainIdentity))
            log.append(.note("\(host.name): admitted with \(leaseSlots.count) slot(s) (leases \(leaseSlots.map(String.init).joined(separator: ",")))"))
            apply(scheduler.hostJoined(schedulerHost))
            // Heartbeats from the first admitted host on: another host may wait for slots for
            // minutes, and a lease left without heartbeats past its TTL would be reclaimed (and its
            // running attempt's process group reaped) by the next request on a shared work root.
            await leases.startHeartbeats()
        case .setAside(let reason):
            await shell.close()
            setAside(host.name, reason: reason)
        }
    }

    /// How long a host whose slots are all leased by other runs is waited for.
    static let leaseWait: Double = 600

    func interrupt() {
        guard !wasInterrupted else { return }
        wasInterrupted = true
        log.append(.note("interrupted: no new jobs; cancelling \(running.count) running job(s)"))
        apply(scheduler.interrupt())
        admissionTask?.cancel()
        for (_, task) in running { task.cancel() }
        if running.isEmpty { finish() }
    }

    private func finish() {
        guard !finished else { return }
        finished = true
        // Every job has its final state: a host still waiting for a slot (or being provisioned) is not needed.
        admissionTask?.cancel()
        waiter?.resume()
        waiter = nil
    }

    func apply(_ actions: [Scheduler.Action]) {
        for action in actions {
            switch action {
            case .start(let jobID, let attempt, let host, let slot):
                launch(jobID: jobID, attempt: attempt, host: host, slot: slot)
            case .cancel(let jobID, _, _, _):
                running[jobID]?.cancel()
            case .jobFinished(let jobID, let state, _, let reason):
                // The collator derives final states from the attempts themselves; only a job that
                // never could run needs its own event.
                if state == .unschedulable { log.append(.jobUnschedulable(jobID: jobID, reason: reason ?? "no host can take it")) }
            case .runFinished:
                finish()
            }
        }
        if wasInterrupted && running.isEmpty { finish() }
    }

    private func launch(jobID: String, attempt: Int, host hostName: String, slot: Int) {
        guard var job = jobs[jobID], let host = hosts[hostName] else { return }
        job.rerun = reruns[jobID]
        if wasInterrupted { return }
        let ref = AttemptRef(jobID: jobID, attempt: attempt)
        let logsDirectory = runDirectory.appendingPathComponent("logs")
        let log = self.log
        let token = ProcessRecordScript.token(jobID: jobID, attempt: attempt)
        attemptTokens[jobID] = (hostName, token)
        // The slot's last attempt may still be cleaning up after its verdict: this one starts after it.
        let slotKey = "\(hostName)#\(slot)"
        let previous = slotTasks[slotKey]?.task
        slotTaskCount += 1
        let taskID = slotTaskCount
        expectBuild(job, ref: ref, host: hostName)
        let task = Task {
            await previous?.value
            log.append(.attemptStarted(ref, host: hostName, slot: slot))
            await self.runAttempt(job: job, ref: ref, host: host, slot: slot, token: token, logsDirectory: logsDirectory)
            self.fleetBuilds.ended(ref)
            self.slotFreed(slotKey, taskID: taskID)
        }
        running[jobID] = task
        slotTasks[slotKey] = (taskID, task)
    }

    /// One attempt on a slot: connect if needed, execute, and give the scheduler its outcome (at the
    /// verdict, which may come before the attempt's cleanup; this returns after the cleanup).
    private func runAttempt(job: PlannedJob, ref: AttemptRef, host: HostSpec, slot: Int, token: String, logsDirectory: URL) async {
        let jobID = ref.jobID, hostName = host.name
        do {
            let shell = try await self.shell(for: host, slot: slot, ref: ref, timeouts: job.spec.timeouts)
            var executor = AttemptExecutor(job: job, ref: ref, shell: shell, log: log, logsDirectory: logsDirectory)
            executor.record = await self.processRecord(host: host, token: token)
            executor.toolchains = self.toolchains
            executor.buildTrust = self.buildTrust
            executor.listings = self.listings
            executor.fleetBuilds = self.fleetBuilds
            let timeouts = job.spec.timeouts
            executor.openShell = { name in try await self.relayShell(name, timeouts: timeouts) }
            executor.attachmentBudget = self.attachmentBudget
            executor.quarantined = job.planned.mutant == nil ? self.quarantine.entries(suite: job.planned.suite) : []
            if let key = self.scheduledBuildKey(jobID) {
                // The build took the host's build lock: other jobs of the key wait for it there.
                executor.buildStarted = { Task { await self.noteBuild(jobID: jobID, host: hostName, key: key, started: true) } }
                // The build is there: the key's other jobs may start on the host while this one tests.
                executor.buildFinished = { Task { await self.noteBuild(jobID: jobID, host: hostName, key: key, started: false) } }
            }
            executor.verdict = { outcome, notPassed in
                await self.concluded(ref: ref, host: hostName, slot: slot, shell: shell, outcome: outcome, notPassed: notPassed)
            }
            executor.leaseRelease = .init(take: { await self.leasesToRelease(host: hostName, slot: slot) },
                                          settle: { release, reply in await self.settled(release, reply: reply) })
            _ = await executor.executeForRerun()
        } catch {
            let failure: AttemptFailure
            if let e = error as? RemoteShellError { failure = e.kind == .connect || e.kind == .timeout ? .hostLost(e.description) : .host(e.description) }
            else if error is CancellationError { failure = .cancelled }
            else { failure = .host("\(hostName): \(error)") }
            log.append(.attemptEnded(ref, AttemptEnded(infraError: failure.description)))
            if failure.suspectsHost { suspect(hostName, reason: failure.description) }
            attemptFinished(ref: ref, outcome: .infraFailure(failure))
        }
    }

    /// An attempt's verdict: what the scheduler and the build notes learn from it.
    private func concluded(ref: AttemptRef, host hostName: String, slot: Int, shell: any RemoteShell,
                           outcome: Scheduler.AttemptOutcome, notPassed: [String]?) async {
        let jobID = ref.jobID
        // A rerun after test failures runs only the tests that did not pass.
        if case .testsFailed = outcome, let notPassed, !notPassed.isEmpty { reruns[jobID] = notPassed }
        if let key = scheduledBuildKey(jobID) {
            var built = false
            switch outcome { case .passed, .testsFailed, .discoveryFailed: built = true; default: break }
            noteBuild(jobID: jobID, host: hostName, key: key, started: false, succeeded: built)
        }
        // After an infrastructure failure the connection may be broken: reconnect next time,
        // and no new attempt goes to the host until a fresh health check passes there.
        if case .infraFailure(let failure) = outcome {
            await dropShell(host: hostName, slot: slot, shell: shell)
            if failure.suspectsHost { suspect(hostName, reason: failure.description) }
        }
        attemptFinished(ref: ref, outcome: outcome)
    }

    /// The slot's attempt returned (its cleanup done): nothing of it is left to wait for.
    private func slotFreed(_ key: String, taskID: Int) {
        if slotTasks[key]?.id == taskID { slotTasks[key] = nil }
    }

    /// A connection of its own to `name`, the source of a relayed build (closed by the caller).
    func relayShell(_ name: String, timeouts: PhaseTimeouts) async throws -> any RemoteShell {
        guard let host = hosts[name] else { throw RemoteShellError(.connect, host: name, "not a host of this run") }
        let factory = shellFactory
        return try await withDeadline(timeouts.connect, phase: .connect, host: name) { try await factory(host, timeouts) }
    }

    private func shell(for host: HostSpec, slot: Int, ref: AttemptRef, timeouts: PhaseTimeouts) async throws -> any RemoteShell {
        let key = "\(host.name)#\(slot)"
        if let existing = shells[key] { return existing }
        log.append(.phaseStarted(ref, phase: .connect))
        defer { log.append(.phaseFinished(ref, phase: .connect)) }
        let factory = shellFactory
        let shell = try await withDeadline(timeouts.connect, phase: .connect, host: host.name) { try await factory(host, timeouts) }
        shells[key] = shell
        return shell
    }

    private func dropShell(host: String, slot: Int, shell: any RemoteShell) async {
        shells["\(host)#\(slot)"] = nil
        await shell.close()
    }

    func setAside(_ host: String, reason: String) {
        let fleet = fleetBuilds
        Task { await fleet.hostGone(host) }
        log.append(.hostSetAside(host: host, reason: reason))
        if hosts[host] != nil { apply(scheduler.hostLost(host, reason: reason)) }
    }

    private func attemptFinished(ref: AttemptRef, outcome: Scheduler.AttemptOutcome) {
        running[ref.jobID] = nil
        attemptTokens[ref.jobID] = nil
        apply(scheduler.attemptFinished(jobID: ref.jobID, attempt: ref.attempt, outcome: outcome))
    }
}

// MARK: - Builds: what the scheduler needs to know

extension RunCoordinator {
    /// Each SwiftPM job's build for the scheduler: a host-independent key over the package's build
    /// inputs (the toolchain part of the real key is the same for every job on one host), the
    /// unmutated gate's key as the base of its mutants, and costs from the history's recorded builds
    /// or the defaults (`BuildCostEstimate`: cold 30 s, incremental 5 s, cached 0.5 s). Xcode jobs' keys
    /// include their destination.
    static func builds(for planned: [PlannedJob], costs: BuildCostEstimate = .defaults) -> [String: SchedulerJob.Build] {
        var keys: [String: String] = [:]
        var gateKey: [String: String] = [:]
        for job in planned {
            // The destination is part of an Xcode job's key: one package built for two platforms is two builds.
            let key = BuildKey.compute(workspace: job.workspace, toolchain: "", destination: job.source.destination, buildCommand: []).hex
            keys[job.planned.jobID] = key
            if job.planned.mutant == nil, gateKey[job.planned.suite] == nil { gateKey[job.planned.suite] = key }
        }
        var out: [String: SchedulerJob.Build] = [:]
        for job in planned {
            guard let key = keys[job.planned.jobID] else { continue }
            let bases = job.planned.mutant == nil ? [] : gateKey[job.planned.suite].map { [$0] } ?? []
            out[job.planned.jobID] = SchedulerJob.Build(key: key, bases: bases, coldSeconds: costs.cold, incrementalSeconds: costs.incremental,
                                                        cachedSeconds: costs.cached)
        }
        return out
    }
}
