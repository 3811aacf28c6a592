import Foundation
import XCFleetModel

/// Creates hosts on demand with the fleet's `provisioner.create` command and releases them with
/// `provisioner.release` (see docs/provisioning.md for Tart, Orka and Anka).
///
/// - create runs locally (never on the pool), once per host, with `XCFLEET_PROVISION_INDEX`
///   (1-based) and `XCFLEET_HOST_NAME` (`prov-N`) in its environment, and prints one JSON object:
///   `{"name"?, "address", "port"?, "user"?, "hostKey", "labels"?, "slots"?}` (other keys are kept
///   for release). The host is the template merged with it; its key goes into a run-private
///   known_hosts file and the host is checked strictly against it.
/// - release gets the exact JSON create printed on stdin (same environment variables).
/// - Every created host is tracked until released; `releaseAll()` releases the rest even when the
///   caller is being cancelled (interrupt), and a host whose create finishes after `releaseAll()`
///   began is released at once.
public actor CommandProvisioner {
    public let spec: ProvisionerSpec
    /// The run-private known_hosts file every created host points at.
    public let knownHostsFile: URL
    public let createDeadlines: CommandDeadlines
    public let releaseDeadlines: CommandDeadlines
    private let environment: [String: String]
    /// Where both commands run (relative program paths resolve from here); nil: xcfleet's own.
    public let workingDirectory: String?
    private var reservedNames: Set<String>
    private var created: [String: ProvisionedHost] = [:]
    private var closed = false
    private let writeQueue = DispatchQueue(label: "xcfleet.provisioner.known-hosts")

    /// - Parameters:
    ///   - directory: where the known_hosts file goes (the run directory; created if needed).
    ///   - reservedNames: names already used in the fleet (created hosts must not reuse them).
    ///   - environment: extra environment for both commands.
    ///   - workingDirectory: where the commands run; pass the fleet file's folder so `./create.sh` works.
    public init(spec: ProvisionerSpec, directory: URL, reservedNames: Set<String> = [], environment: [String: String] = [:],
                workingDirectory: String? = nil, createTimeout: Double = 900, releaseTimeout: Double = 300) {
        self.workingDirectory = workingDirectory
        self.spec = spec
        knownHostsFile = directory.appendingPathComponent("known_hosts")
        self.reservedNames = reservedNames
        self.environment = environment
        createDeadlines = CommandDeadlines(total: createTimeout, silence: createTimeout)
        releaseDeadlines = CommandDeadlines(total: releaseTimeout, silence: releaseTimeout)
    }

    /// Hosts created and not yet released, by index.
    public var hosts: [HostSpec] { created.values.sorted { $0.index < $1.index }.map(\.spec) }

    /// Creates `spec.count` hosts concurrently. One result per host, in index order (1-based).
    public func createAll() async -> [Result<HostSpec, ProvisionError>] {
        let count = min(max(0, spec.count), FleetLoader.provisionerCountRange.upperBound)
        guard count > 0 else { return [] }
        return await withTaskGroup(of: (Int, Result<HostSpec, ProvisionError>).self) { group in
            for index in 1...count {
                group.addTask {
                    do { return (index, .success(try await self.create(index: index))) } catch let error as ProvisionError {
                        return (index, .failure(error))
                    } catch {
                        return (index, .failure(ProvisionError(.create, host: "prov-\(index)", command: self.spec.create, "\(error)")))
                    }
                }
            }
            var results: [(Int, Result<HostSpec, ProvisionError>)] = []
            for await result in group { results.append(result) }
            return results.sorted { $0.0 < $1.0 }.map(\.1)
        }
    }

    /// Creates host number `index` (1-based) and returns its merged spec.
    public func create(index: Int) async throws(ProvisionError) -> HostSpec {
        let provisional = "prov-\(index)"
        let command = spec.create
        guard !closed else { throw ProvisionError(.create, host: provisional, command: command, "not started: the run is ending") }
        guard !command.isEmpty else { throw ProvisionError(.create, host: provisional, command: command, "the create command is empty") }
        let env = environment.merging(["XCFLEET_PROVISION_INDEX": String(index), "XCFLEET_HOST_NAME": provisional]) { _, new in new }
        let result: LocalCommand.Result
        do {
            result = try await LocalCommand.run(command, directory: workingDirectory, environment: env, deadlines: createDeadlines)
        } catch {
            throw ProvisionError(.create, host: provisional, command: command, "cannot run it: \(error)")
        }
        guard result.termination == .exited(0) else {
            throw ProvisionError(.create, host: provisional, command: command, "\(Self.ending(result.termination, deadlines: createDeadlines)); stderr: \(result.stderrTail)")
        }
        guard !result.stdoutTruncated else {
            throw ProvisionError(.create, host: provisional, command: command, "printed more than 1 MiB on stdout; print only the host's JSON object")
        }
        var host: ProvisionedHost
        do {
            host = try ProvisionedHost.parse(stdout: result.stdout, index: index, template: spec.template, knownHostsFile: knownHostsFile.path)
        } catch {
            throw ProvisionError(.create, host: provisional, command: command, error.problems.joined(separator: "; "))
        }
        if reservedNames.contains(host.spec.name) {
            let taken = host.spec.name
            host.spec.name = provisional
            created[provisional] = host
            await releaseNow(provisional)
            throw ProvisionError(.create, host: taken, command: command, "the name \"\(taken)\" is already used by another host; print a unique \"name\" or none (the host was released)")
        }
        reservedNames.insert(host.spec.name)
        created[host.spec.name] = host
        if closed {
            await releaseNow(host.spec.name)
            throw ProvisionError(.create, host: host.spec.name, command: command, "created while the run was ending; released it")
        }
        do {
            try await writeKnownHosts()
        } catch {
            await releaseNow(host.spec.name)
            throw ProvisionError(.create, host: host.spec.name, command: command, "cannot write \(knownHostsFile.path): \(error); released the host")
        }
        return host.spec
    }

    /// Releases one created host (by name). Runs to its end even if the caller is cancelled.
    public func release(_ host: HostSpec) async throws(ProvisionError) {
        guard let record = created.removeValue(forKey: host.name) else {
            throw ProvisionError(.release, host: host.name, command: spec.release, "this run did not create that host, or it was released already")
        }
        let failure = await Self.runRelease(record, spec: spec, environment: environment, directory: workingDirectory, deadlines: releaseDeadlines)
        if let failure { throw failure }
    }

    /// Releases every created host still held (concurrently), even when the calling task is
    /// cancelled; later creates are released as soon as they finish. Returns the failures.
    @discardableResult
    public func releaseAll() async -> [ProvisionError] {
        closed = true
        let records = created.values.sorted { $0.index < $1.index }
        created = [:]
        let spec = spec, environment = environment, directory = workingDirectory, deadlines = releaseDeadlines
        let work = Task { () -> [ProvisionError] in
            await withTaskGroup(of: ProvisionError?.self) { group in
                for record in records {
                    group.addTask { await Self.runRelease(record, spec: spec, environment: environment, directory: directory, deadlines: deadlines) }
                }
                var failures: [ProvisionError] = []
                for await failure in group { if let failure { failures.append(failure) } }
                return failures.sorted { $0.host < $1.host }
            }
        }
        return await work.value
    }

    private func releaseNow(_ name: String) async {
        guard let record = created.removeValue(forKey: name) else { return }
        let spec = spec, environment = environment, directory = workingDirectory, deadlines = releaseDeadlines
        _ = await Task { await Self.runRelease(record, spec: spec, environment: environment, directory: directory, deadlines: deadlines) }.value
    }

    private static func runRelease(_ record: ProvisionedHost, spec: ProvisionerSpec, environment: [String: String],
                                   directory: String?, deadlines: CommandDeadlines) async -> ProvisionError? {
        let name = record.spec.name
        guard !spec.release.isEmpty else { return ProvisionError(.release, host: name, command: spec.release, "the release command is empty") }
        let env = environment.merging(["XCFLEET_PROVISION_INDEX": String(record.index), "XCFLEET_HOST_NAME": name]) { _, new in new }
        do {
            let result = try await LocalCommand.run(spec.release, stdin: record.json, directory: directory, environment: env, deadlines: deadlines)
            guard result.termination == .exited(0) else {
                return ProvisionError(.release, host: name, command: spec.release, "\(ending(result.termination, deadlines: deadlines)); stderr: \(result.stderrTail)")
            }
            return nil
        } catch {
            return ProvisionError(.release, host: name, command: spec.release, "cannot run it: \(error)")
        }
    }

    /// Rewrites the known_hosts file (mode 0600) with the lines of every host created so far.
    private func writeKnownHosts() async throws {
        let text = created.values.sorted { $0.index < $1.index }.flatMap(\.knownHostsLines).joined(separator: "\n") + "\n"
        let url = knownHostsFile
        // Snapshot and enqueue happen without a suspension in between, and the queue is serial:
        // the last write always carries the latest snapshot, however creates interleave.
        try await withCheckedThrowingContinuation { (cont: CheckedContinuation<Void, Error>) in
            writeQueue.async { cont.resume(with: Result { try Self.writeAtomically(text, to: url) }) }
        }
    }

    private static func writeAtomically(_ text: String, to url: URL) throws {
        let directory = url.deletingLastPathComponent()
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let temporary = directory.appendingPathComponent(".known_hosts-\(UUID().uuidString)")
        guard FileManager.default.createFile(atPath: temporary.path, contents: Data(text.utf8), attributes: [.posixPermissions: 0o600]) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: temporary.path])
        }
        if rename(temporary.path, url.path) != 0 {
            try? FileManager.default.removeItem(at: temporary)
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: url.path])
        }
    }

    static func ending(_ termination: CommandTermination, deadlines: CommandDeadlines) -> String {
        switch termination {
        case .exited(let status): return "exited with status \(status)"
        case .signaled(let signal): return "was killed by \(signal)"
        case .timedOut: return "took longer than \(Int(deadlines.total)) s and was killed"
        case .connectionLost(let why): return "lost: \(why)"
        case .cancelled: return "was cancelled (the run is ending)"
        }
    }
}
