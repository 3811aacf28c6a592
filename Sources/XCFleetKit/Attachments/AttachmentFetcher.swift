import Foundation
#if canImport(Glibc)
import Glibc
#endif
import XCFleetBasics
import XCFleetModel
import XCFleetCore
import XCFleetHostScripts

/// The bytes a run has fetched so far, shared by its attempts: what the run cap is checked against.
final class AttachmentBudget: @unchecked Sendable {
    let limits: AttachmentLimits
    private let lock = NSLock()
    private var used = 0

    init(limits: AttachmentLimits = .defaults) { self.limits = limits }

    /// The decision for `listing` with what the run already fetched; its bytes are taken at once,
    /// so two attempts deciding together never both fit under the cap.
    func reserve(_ listing: AttachmentSelection.Listing) -> AttachmentSelection.Decision {
        lock.lock(); defer { lock.unlock() }
        let d = AttachmentSelection.decide(listing, limits: limits, runBytesUsed: used)
        used += d.bytes
        return d
    }

    /// Bytes reserved and not fetched after all.
    func giveBack(_ bytes: Int) {
        lock.lock(); defer { lock.unlock() }
        used = max(0, used - bytes)
    }
}

/// Fetches one attempt's attachments folder into the run directory (docs/attachments.md): the
/// host lists it (no link followed), `AttachmentSelection` decides against the caps, one `tar -c`
/// of the chosen files comes back through the attempt's shell (`LocalShell`, `SSHShell`), and each
/// file is written under `attachments/<job>/<attempt>/` with a name of xcfleet's own, created new
/// (never through a link), its bytes redacted like the raw log. Each command has `seconds`.
struct AttachmentFetcher: Sendable {
    var shell: any RemoteShell
    var ref: AttemptRef
    var runDirectory: URL
    var budget: AttachmentBudget
    var secrets: [String]
    var seconds: Double

    /// A file's test and shown name, when the tool that wrote it said (the result bundle's manifest).
    struct Hint: Sendable {
        var test: String?
        var name: String
    }

    /// What came back, and what not; empty when the folder held nothing. Never throws: a host
    /// problem is one left-out line (the attempt's verdict does not depend on attachments).
    /// `hints`: when given, only the files they name are fetched (a result bundle's export, not its
    /// manifest), shown under their names, each given to its test; `prefix`: a folder they go under.
    func fetch(folder: String, in jobDirectory: String, events: [TestEvent],
               hints: [String: Hint]? = nil, prefix: String? = nil) async -> AttachmentsCollected {
        let deadlines = CommandDeadlines(total: seconds, silence: seconds)
        let listed = OutputSink(limit: 4 << 20)
        do {
            let t = try await shell.run(AttachmentScript.list(folder: folder), in: jobDirectory, deadlines: deadlines) { listed.add($0) }
            if t == .cancelled { return AttachmentsCollected() }
            guard t == .exited(0) else { return failed("the host could not list the folder (\(t)): \(listed.stderrTail)") }
        } catch is CancellationError {
            return AttachmentsCollected()
        } catch {
            return failed("the host could not list the folder: \(error)")
        }
        var listing = AttachmentSelection.parseListing(listed.stdoutText)
        if let hints { listing.entries = listing.entries.filter { hints[$0.name] != nil } }
        guard !listing.entries.isEmpty || listing.truncated else { return AttachmentsCollected() }
        let decision = budget.reserve(listing)
        var collected = AttachmentsCollected(leftOut: decision.leftOut)
        guard !decision.take.isEmpty else { return collected }

        let limit = decision.bytes + decision.take.count * 4096 + 64 << 10
        let packed = OutputSink(limit: limit)
        var termination: CommandTermination?
        do {
            termination = try await shell.run(AttachmentScript.pack(folder: folder, names: decision.take.map(\.name)), in: jobDirectory,
                                              deadlines: deadlines) { packed.add($0) }
        } catch {
            collected.leftOut.append(AttachmentLeftOut(name: "…", reason: "the fetch failed: \(error)"))
        }
        let entries = TarReader.entries(packed.stdout)
        let recorded = AttachmentAttribution.recorded(in: events)
        let tests = AttachmentAttribution.tests(in: events)
        let why: String = {
            switch termination {
            case .timedOut?: return "the fetch took longer than \(Int(seconds)) s"
            case nil: return "the fetch failed"
            default: return "not in what the host sent (removed, unreadable or grown since it was listed)"
            }
        }()
        let written = (try? await offPool { [self] in
            write(decision.take, from: entries, recorded: recorded, tests: tests, hints: hints ?? [:], missing: why, prefix: prefix)
        }) ?? (files: [], leftOut: decision.take.map { AttachmentLeftOut(name: $0.name, bytes: $0.bytes, reason: "could not be written into the run directory") }, listedBytes: 0)
        collected.files = written.files
        collected.leftOut += written.leftOut
        budget.giveBack(decision.bytes - written.listedBytes)
        return collected
    }

    private func failed(_ why: String) -> AttachmentsCollected {
        AttachmentsCollected(leftOut: [AttachmentLeftOut(name: "…", reason: why)])
    }

    /// Writes the chosen files that arrived whole, at their listed size.
    private func write(_ take: [AttachmentSelection.Entry], from entries: [TarReader.Entry], recorded: [String: TestIdentifier],
                       tests: [TestIdentifier], hints: [String: Hint], missing: String, prefix: String?) -> (files: [AttachmentFile], leftOut: [AttachmentLeftOut], listedBytes: Int) {
        var byName: [String: TarReader.Entry] = [:]
        for e in entries where e.kind == .file && !e.truncated { byName[e.name] = e }
        let redactor = Redactor(secrets: secrets)
        var taken = Set<String>()
        var files: [AttachmentFile] = []
        var leftOut: [AttachmentLeftOut] = []
        var listedBytes = 0
        for want in take {
            let hint = hints[want.name]
            let test = hint.map(\.test) ?? AttachmentAttribution.test(for: want.name, recorded: recorded, tests: tests)
            guard let got = byName[want.name], got.contents.count == want.bytes else {
                leftOut.append(AttachmentLeftOut(name: want.name, bytes: want.bytes, reason: missing, test: test))
                continue
            }
            let original = hint?.name ?? want.name
            let shownName = redactor.isEmpty ? original : redactor.redact(original)
            let safe = (prefix.map { $0 + "/" } ?? "") + AttachmentNames.safePath(shownName, taken: &taken)
            let relative = AttachmentNames.runPath(jobID: ref.jobID, attempt: ref.attempt, safeName: safe)
            let bytes = redactor.isEmpty ? got.contents : redactor.redact(got.contents)
            do {
                try Self.createFile(relative, in: runDirectory, contents: bytes)
                files.append(AttachmentFile(name: shownName, path: relative, bytes: bytes.count, kind: AttachmentNames.kind(of: safe), test: test))
                listedBytes += want.bytes
            } catch {
                leftOut.append(AttachmentLeftOut(name: want.name, bytes: want.bytes, reason: "could not be written: \(error)", test: test))
            }
        }
        return (files, leftOut, listedBytes)
    }

    /// Creates `relative` (components already safe) strictly inside `root`: each folder made or
    /// found as a real directory (a link is refused), the file new (`O_EXCL|O_NOFOLLOW`).
    static func createFile(_ relative: String, in root: URL, contents: [UInt8]) throws {
        var parts = relative.split(separator: "/").map(String.init)
        let name = parts.removeLast()
        var dir = root
        for part in parts {
            dir = try SafePath.child(part, of: dir, what: "attachment folder")
            if mkdir(dir.path, 0o755) != 0 && errno != EEXIST { throw SafePathError(path: dir.path, message: "cannot create \(dir.path)") }
            var info = stat()
            guard lstat(dir.path, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR else {
                throw SafePathError(path: dir.path, message: "\(dir.path) is not a plain folder")
            }
        }
        let file = try SafePath.child(name, of: dir, what: "attachment name")
        try SafePath.requireInside(file, parent: root)
        let fd = open(file.path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw SafePathError(path: file.path, message: "cannot create \(file.path): \(String(cString: strerror(errno)))") }
        let handle = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
        try handle.write(contentsOf: Data(contents))
        try handle.close()
    }
}
