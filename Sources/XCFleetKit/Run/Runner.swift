import Foundation

/// Everything a run needs, decided before it starts.
public struct RunConfiguration: Sendable {
    public var plan: TestPlan
    public var fleet: Fleet
    public var root: TemplateRoot
    /// Parent of run directories (default `.xcfleet/runs`).
    public var runsDirectory: URL
    /// Run every gate suite against its mutants too (`--mutants`).
    public var forceMutants: Bool
    /// Earlier test durations by `Class/test` (`--history`), for ordering and shards.
    public var history: DurationHistory?
    public var runID: String
    /// Hosts the history says to set aside at admission (`HostHealthGate`), with the reason and figures.
    public var setAsideByHistory: [String: String] = [:]

    public init(plan: TestPlan, fleet: Fleet, root: TemplateRoot, runsDirectory: URL, forceMutants: Bool = false,
                history: DurationHistory? = nil, runID: String = RunConfiguration.makeRunID()) {
        self.plan = plan
        self.fleet = fleet
        self.root = root
        self.runsDirectory = runsDirectory
        self.forceMutants = forceMutants
        self.history = history
        self.runID = runID
    }

    /// `20261129-144233-3fa2`: sortable, unique enough for one machine.
    public static func makeRunID(now: Date = Date()) -> String {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = TimeZone(identifier: "UTC")
        f.dateFormat = "yyyyMMdd-HHmmss"
        return f.string(from: now) + "-" + String(UUID().uuidString.prefix(4)).lowercased()
    }
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
        self.config = config
        runDirectory = config.runsDirectory.appendingPathComponent(config.runID)
        log = try EventLog(directory: runDirectory)
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
        let planner = JobPlanner(renderer: Renderer(root: config.root), mutants: mutants, history: config.history)
        let jobs = try planner.jobs(for: config.plan, forceMutants: config.forceMutants)
        let iso = ISO8601DateFormatter()
        iso.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        log.append(.runStarted(RunStarted(runID: config.runID, planName: config.plan.name, planPath: config.plan.sourcePath,
                                          startedAt: iso.string(from: Date()), xcfleetVersion: XCFleet.version,
                                          suites: config.plan.suites, hosts: config.fleet.hosts.map(\.name))))
        for job in jobs { log.append(.jobPlanned(job.planned)) }
        await coordinator.holdBack(config.setAsideByHistory) // history: hosts over the fleet's infra-failure threshold
        await coordinator.run(jobs: jobs, fleet: config.fleet, runID: config.runID, history: config.history)
        let interrupted = await coordinator.wasInterrupted
        log.append(.runFinished(interrupted: interrupted))
        let faults = Dictionary(mutants.map { ($0.id, $0.fault) }, uniquingKeysWith: { a, _ in a })
        let report = Collator(mutantFaults: faults).collate(try EventLog.read(log.url))
        try ReportWriter.writeAll(report, to: runDirectory)
        return report
    }

    /// Ctrl-C / SIGTERM: stop handing out jobs, cancel running ones (their process groups are
    /// killed and their directories removed), then finish with a partial report.
    public func interrupt() {
        Task { await coordinator.interrupt() }
    }
}

public enum XCFleet {
    public static let version = "0.1.0"
}

/// The run's mutable heart: owns the scheduler state and the host slots' shells.
actor RunCoordinator {
    private let log: EventLog
    private let runDirectory: URL
    private let shellFactory: ShellFactory
    private var scheduler = Scheduler(jobs: [], hosts: [])
    private var jobs: [String: PlannedJob] = [:]
    private var hosts: [String: HostSpec] = [:]
    private var shells: [String: any RemoteShell] = [:]
    private var running: [String: Task<Void, Never>] = [:]
    private var finished = false
    private var waiter: CheckedContinuation<Void, Never>?
    private(set) var wasInterrupted = false
    private var admissionTask: Task<Void, Never>?

    init(log: EventLog, runDirectory: URL, shellFactory: @escaping ShellFactory) {
        self.log = log
        self.runDirectory = runDirectory
        self.shellFactory = shellFactory
    }

    func run(jobs planned: [PlannedJob], fleet: Fleet, runID: String, history: DurationHistory?) async {
        for job in planned { jobs[job.planned.jobID] = job }
        let schedJobs = planned.map { job in
            SchedulerJob(id: job.planned.jobID, suite: job.planned.suite, requires: job.requires,
                         expectedSeconds: history?.expectedSeconds(suite: job.planned.suite, tests: job.planned.expectedTests),
                         infraRetries: job.spec.retries.infrastructure, testRetries: job.spec.retries.testFailures)
        }
        // Hosts join as they pass their health check and lease their slots; until every host has
        // been admitted or set aside, nothing is declared unschedulable.
        scheduler = Scheduler(jobs: schedJobs, hosts: [], options: .init(expectingMoreHosts: true))
        apply(scheduler.start())
        let leases = HostLeaseManager()
        await leases.setLostHandler { host, slots in
            Task { await self.setAside(host, reason: "slot lease \(slots.map(String.init).joined(separator: ",")) was taken over by another run") }
        }
        var provisioner: CommandProvisioner?
        if let spec = fleet.provisioner {
            provisioner = CommandProvisioner(spec: spec, directory: runDirectory, reservedNames: Set(fleet.hosts.map(\.name)),
                                             workingDirectory: fleet.sourcePath.map { URL(fileURLWithPath: $0).deletingLastPathComponent().path })
        }
        let timeouts = planned.first?.spec.timeouts ?? .defaults
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
                                let host = try await provisioner.create(index: index)
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
        // Release in every case (normal end, error, interrupt): leases first, then hosts we created.
        for (host, problem) in await leases.release().sorted(by: { $0.key < $1.key }) {
            log.append(.note("releasing the slot lease on \(host) failed: \(problem)"))
        }
        for (_, shell) in shells { await shell.close() }
        shells = [:]
        if let provisioner {
            for problem in await provisioner.releaseAll() { log.append(.note("release failed: \(problem.description)")) }
        }
    }

    private func note(_ text: String) { log.append(.note(text)) }

    /// Hosts set aside before connecting, by the history's health record (host → reason).
    private var heldBack: [String: String] = [:]
    func holdBack(_ hosts: [String: String]) { heldBack = hosts }

    /// Connects, checks health and leases slots; the host joins the scheduler or is set aside with the reason.
    private func admit(_ host: HostSpec, runID: String, leases: HostLeaseManager, timeouts: PhaseTimeouts) async {
        if let reason = heldBack[host.name] { setAside(host.name, reason: reason); return }
        let factory = shellFactory
        let shell: any RemoteShell
        do {
            shell = try await withDeadline(timeouts.connect, phase: .connect, host: host.name) { try await factory(host, timeouts) }
        } catch {
            setAside(host.name, reason: (error as? RemoteShellError)?.description ?? "\(host.name): \(error)")
            return
        }
        switch await HostAdmission.admit(host, shell: shell, runID: runID, leases: leases, waitForSlots: Self.leaseWait) {
        case .admitted(let schedulerHost, let leaseSlots, _, let acquisition):
            hosts[host.name] = host
            shells["\(host.name)#0"] = shell
            for r in acquisition.reclaimed { log.append(.note("\(host.name): reclaimed stale slot lease \(r.slot) of run \(r.runID)")) }
            log.append(.note("\(host.name): admitted with \(leaseSlots.count) slot(s) (leases \(leaseSlots.map(String.init).joined(separator: ",")))"))
            apply(scheduler.hostJoined(schedulerHost))
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
        waiter?.resume()
        waiter = nil
    }

    private func apply(_ actions: [Scheduler.Action]) {
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
        guard let job = jobs[jobID], let host = hosts[hostName] else { return }
        if wasInterrupted { return }
        let ref = AttemptRef(jobID: jobID, attempt: attempt)
        log.append(.attemptStarted(ref, host: hostName, slot: slot))
        let logsDirectory = runDirectory.appendingPathComponent("logs")
        let log = self.log
        running[jobID] = Task {
            let outcome: Scheduler.AttemptOutcome
            do {
                let shell = try await self.shell(for: host, slot: slot, ref: ref, timeouts: job.spec.timeouts)
                let executor = AttemptExecutor(job: job, ref: ref, shell: shell, log: log, logsDirectory: logsDirectory)
                outcome = await executor.execute()
                // After an infrastructure failure the connection may be broken: reconnect next time.
                if case .infraFailure = outcome { await self.dropShell(host: hostName, slot: slot, shell: shell) }
            } catch {
                let message = (error as? RemoteShellError)?.description ?? "\(hostName): \(error)"
                log.append(.attemptEnded(ref, AttemptEnded(infraError: message)))
                outcome = .infraFailure(message)
                self.setAside(hostName, reason: message)
            }
            self.attemptFinished(ref: ref, outcome: outcome)
        }
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

    private func setAside(_ host: String, reason: String) {
        log.append(.hostSetAside(host: host, reason: reason))
        if hosts[host] != nil { apply(scheduler.hostLost(host, reason: reason)) }
    }

    private func attemptFinished(ref: AttemptRef, outcome: Scheduler.AttemptOutcome) {
        running[ref.jobID] = nil
        apply(scheduler.attemptFinished(jobID: ref.jobID, attempt: ref.attempt, outcome: outcome))
    }
}
