import Foundation
import XCFleetBasics

/// Reads and validates a fleet file (format: README, "Fleet file").
///
/// Same error style as `PlanLoader`: every problem is collected and thrown together as a
/// `FleetValidationError`. Relative paths (identity, known hosts, toolchain) are resolved against
/// the fleet file's folder, `~/` against the home directory. Values marked secret never appear in
/// a message.
public enum FleetLoader {
    public static let fleetKeys = ["hosts", "provisioner", "maxInfraFailureRate", "minFreeDiskBytes",
                                   "attachmentFileBytes", "attachmentRunBytes", "attachmentFilesPerAttempt"]
    public static let hostKeys = ["name", "transport", "address", "port", "user", "identityFile", "useAgent", "passphraseEnv",
                                  "knownHostsFile", "hostKeyPolicy", "labels", "slots", "workRoot", "toolchain", "environment",
                                  "deadPeerSeconds", "cache", "pricePerHour"]
    public static let provisionerKeys = ["create", "release", "count", "host"]
    public static let toolchainKeys = ["swiftPath", "developerDir", "xcode"]

    public static let portRange = 1...65_535
    public static let slotRange = 1...64
    public static let provisionerCountRange = 1...256
    /// SSH hosts: under the login user's home on the host (private; `~` is expanded there).
    public static let defaultWorkRoot = WorkRootDefaults.remote
    public static let cacheKeys = ["maxBytes", "minFreeBytes"]
    /// `deadPeerSeconds`: above two keepalive intervals of 1 s, at most a day.
    public static let deadPeerRange = 3...86_400
    /// Name given to the provisioner's host template; created hosts get their own names.
    public static let provisionedTemplateName = "provisioned"

    /// Reads `path` and validates it. Throws `FleetValidationError` (also for an unreadable file).
    public static func load(path: String, homeDirectory: String = NSHomeDirectory()) throws -> Fleet {
        var reader = SchemaReader(file: path)
        guard let data = reader.readFile(path) else { throw ValidationError(problems: reader.sortedProblems) }
        return try parse(data, path: path, homeDirectory: homeDirectory)
    }

    /// Validates a fleet held in memory. `path` names it in messages; relative paths in it are
    /// resolved against `baseDirectory` (default: the folder of `path`).
    public static func parse(_ data: Data, path: String, baseDirectory: String? = nil,
                             homeDirectory: String = NSHomeDirectory()) throws -> Fleet {
        var base = baseDirectory ?? (path as NSString).deletingLastPathComponent
        if !base.hasPrefix("/") {
            let cwd = FileManager.default.currentDirectoryPath
            base = base.isEmpty ? cwd : cwd + "/" + base
        }
        var reader = SchemaReader(file: path)
        let paths = FleetPathResolver(base: base, home: homeDirectory)
        let fleet = read(data, path: path, paths: paths, reader: &reader)
        if let fleet, reader.problems.isEmpty { return fleet }
        if reader.problems.isEmpty {
            // Not expected: every path that yields no value records a problem first.
            reader.report("the fleet could not be read", at: .root, nil)
        }
        throw ValidationError(problems: reader.sortedProblems)
    }

    // MARK: Schema

    private static func read(_ data: Data, path: String, paths: FleetPathResolver, reader r: inout SchemaReader) -> Fleet? {
        guard let document = r.document(data),
              let root = r.object(SchemaField(node: document.root, path: .root)) else { return nil }
        r.checkKeys(root, allowed: fleetKeys)

        var hosts: [HostSpec] = []
        var hostCount = 0
        if let field = root.field("hosts") {
            if case .array(let nodes) = field.node.value {
                hostCount = nodes.count
                var seen: [String: (Int, JSONPosition)] = [:]
                for (index, node) in nodes.enumerated() {
                    guard let object = r.object(SchemaField(node: node, path: field.path / index)) else { continue }
                    if let host = readHost(object, template: false, index: index, seen: &seen, paths: paths, reader: &r) {
                        hosts.append(host)
                    }
                }
            } else {
                r.report("expected an array of hosts, got \(field.node.value.kindDescription)", field)
                hostCount = -1
            }
        }

        var provisioner: ProvisionerSpec?
        let provisionerField = root.field("provisioner")
        if let field = provisionerField, let object = r.object(field) {
            provisioner = readProvisioner(object, paths: paths, reader: &r)
        }
        if hostCount == 0 && provisionerField == nil {
            r.report("the fleet has no hosts; list at least one in \"hosts\" or add a \"provisioner\"",
                     at: JSONPath.root / "hosts", root.object["hosts"]?.keyPosition ?? root.position)
        }
        var maxRate: Double?
        if let field = root.field("maxInfraFailureRate") { maxRate = number(field, in: 0...1, what: "a rate between 0 and 1, e.g. 0.5", reader: &r) }
        var minFree: Int64?
        if let field = root.field("minFreeDiskBytes"), let n = r.int(field, in: 0...Int.max) { minFree = Int64(n) }
        let attachments = attachmentLimits(root, reader: &r)
        guard r.problems.isEmpty else { return nil }
        var fleet = Fleet(hosts: hosts, provisioner: provisioner, sourcePath: path, maxInfraFailureRate: maxRate, minFreeDiskBytes: minFree)
        fleet.attachmentLimits = attachments
        return fleet
    }

    private static func readProvisioner(_ object: SchemaObject, paths: FleetPathResolver, reader r: inout SchemaReader) -> ProvisionerSpec? {
        r.checkKeys(object, allowed: provisionerKeys)
        let create = r.required(object, "create", hint: "give the command that prints one host as JSON, e.g. [\"./make-mac.sh\", \"--json\"]")
            .flatMap { argv($0, reader: &r) }
        let release = r.required(object, "release", hint: "give the command that releases a host, e.g. [\"./release-mac.sh\"]")
            .flatMap { argv($0, reader: &r) }
        var count = 1
        if let field = object.field("count") {
            count = r.int(field, in: provisionerCountRange) ?? count
        }
        var template: HostSpec?
        if let field = r.required(object, "host", hint: "give the template for created hosts: user, identityFile or useAgent, labels, slots"),
           let hostObject = r.object(field) {
            var seen: [String: (Int, JSONPosition)] = [:]
            template = readHost(hostObject, template: true, index: 0, seen: &seen, paths: paths, reader: &r)
        }
        guard let create, let release, let template else { return nil }
        return ProvisionerSpec(create: create, release: release, count: count, template: template)
    }

    /// A plain number within `range` (prices, rates).
    private static func number(_ field: SchemaField, in range: ClosedRange<Double>, what: String, reader r: inout SchemaReader) -> Double? {
        guard case .number(let n) = field.node.value, let d = n.doubleValue else {
            r.report("expected \(what), got \(field.node.value.kindDescription)", field)
            return nil
        }
        guard range.contains(d) else {
            r.report("must be between \(range.lowerBound) and \(range.upperBound) (got \(n.literal))", field)
            return nil
        }
        return d
    }

    /// A command line: a non-empty array of strings with a non-empty program.
    private static func argv(_ field: SchemaField, reader r: inout SchemaReader) -> [String]? {
        guard let args = r.array(field, element: { r, element in r.string(element) }) else { return nil }
        guard let program = args.first, !program.isEmpty else {
            r.report("must name a program and its arguments, e.g. [\"./make-mac.sh\", \"--json\"]", field)
            return nil
        }
        return args
    }

    /// One host; with `template` true, the provisioner's template (no name, address or port; ssh only).
    private static func readHost(_ object: SchemaObject, template: Bool, index: Int, seen: inout [String: (Int, JSONPosition)],
                                 paths: FleetPathResolver, reader r: inout SchemaReader) -> HostSpec? {
        var ok = true
        func check<T>(_ value: T?) -> T? {
            if value == nil { ok = false }
            return value
        }
        if template {
            let why = "the provisioner's create command reports it for each host"
            r.checkKeys(object, allowed: hostKeys.filter { !["name", "address", "port"].contains($0) },
                        misplaced: ["name": "created hosts are named by xcfleet", "address": why, "port": why])
        } else {
            r.checkKeys(object, allowed: hostKeys)
        }

        var name = provisionedTemplateName
        if !template {
            if let field = r.required(object, "name", hint: "give the host a name of letters, digits, '.', '_' or '-'"),
               let s = r.string(field) {
                if s.isEmpty || s.utf8.count > 100 || !s.unicodeScalars.allSatisfy(isNameScalar) {
                    r.report("must be 1 to 100 letters, digits, '.', '_' or '-' (got '\(SchemaReader.excerpt(s))')", field)
                    ok = false
                } else if let problem = PlanLoader.suiteNameProblem(s) {
                    r.report("\(problem) (got '\(SchemaReader.excerpt(s))'); host names become folder and file names", field)
                    ok = false
                } else if let (first, position) = seen[s] {
                    r.report("duplicate host name '\(s)' (also hosts[\(first)] at line \(position.line)); give each host its own name", field)
                    ok = false
                } else {
                    seen[s] = (index, field.position)
                    name = s
                }
            } else {
                ok = false
            }
        }

        var transport = HostTransport.ssh
        if let field = object.field("transport"), let t = check(r.choice(field, options: [("ssh", HostTransport.ssh), ("local", .local)])) {
            if template && t == .local {
                r.report("provisioned hosts are reached over ssh; remove \"transport\" or set it to \"ssh\"", field)
                ok = false
            } else {
                transport = t
            }
        }

        if transport == .local {
            // Keys that only mean something for ssh are mistakes on a local host.
            for key in ["address", "port", "user", "identityFile", "useAgent", "passphraseEnv", "knownHostsFile", "hostKeyPolicy", "deadPeerSeconds"] {
                if let member = object.object[key] {
                    r.report("'\(key)' applies to ssh hosts only; remove it or set \"transport\": \"ssh\"",
                             at: object.path / key, member.keyPosition)
                    ok = false
                }
            }
            var host = HostSpec(name: name, transport: .local, address: "localhost", port: 0, user: "")
            ok = readCommon(object, into: &host, paths: paths, reader: &r) && ok
            return ok ? host : nil
        }

        var host = HostSpec(name: name, transport: .ssh)
        if !template {
            if let field = r.required(object, "address", hint: "give the host name or IP address to connect to"),
               let s = check(r.nonEmptyString(field, what: "a host name or IP address")) {
                if s.hasPrefix("-") || s.unicodeScalars.contains(where: { CharacterSet.whitespacesAndNewlines.contains($0) || $0 == "/" }) {
                    r.report("must be a host name or IP address without spaces or '/', not starting with '-' (got '\(SchemaReader.excerpt(s))')", field)
                    ok = false
                }
                host.address = s
            } else {
                ok = false
            }
            if let field = object.field("port") { host.port = check(r.int(field, in: portRange)) ?? host.port }
        }
        if let field = template ? object.field("user") : r.required(object, "user", hint: "give the login user on the host") {
            host.user = check(r.nonEmptyString(field, what: "the login user")) ?? ""
        } else if !template {
            ok = false
        }
        if let field = object.field("identityFile") {
            host.identityFile = check(r.nonEmptyString(field, what: "the path of an ed25519 private key")).map(paths.resolve)
        }
        if let field = object.field("useAgent") { host.useAgent = check(r.bool(field)) ?? false }
        if let field = object.field("passphraseEnv") {
            // The value is never quoted back: it might be the passphrase itself, written here by mistake.
            if case .string(let s) = field.node.value, SchemaReader.isIdentifier(s) {
                host.passphraseEnv = s
                if object.field("identityFile") == nil {
                    r.report("passphraseEnv names the passphrase of identityFile; set \"identityFile\" too, or remove it", field)
                    ok = false
                }
            } else if case .string = field.node.value {
                r.report("must be the NAME of an environment variable holding the passphrase (letters, digits, '_'), not the passphrase itself", field)
                ok = false
            } else {
                r.report("expected a string, got \(field.node.value.kindDescription)", field)
                ok = false
            }
        }
        let agentValue = object.field("useAgent")?.node.value
        if object.field("identityFile") == nil && (agentValue == nil || agentValue == .bool(false)) {
            r.report("an ssh host needs a key: set \"identityFile\" to an ed25519 private key, or \"useAgent\": true to use ssh-agent",
                     at: object.path, object.position)
            ok = false
        }
        host.knownHostsFile = paths.resolve("~/.ssh/known_hosts")
        if let field = object.field("knownHostsFile") {
            host.knownHostsFile = check(r.nonEmptyString(field, what: "the path of an OpenSSH known_hosts file")).map(paths.resolve)
        }
        if let field = object.field("hostKeyPolicy") {
            host.hostKeyPolicy = check(r.choice(field, options: [("strict", HostKeyPolicy.strict), ("accept-new", .acceptNew)])) ?? .strict
        }
        if let field = object.field("deadPeerSeconds") {
            host.deadPeerSeconds = check(r.seconds(field, in: deadPeerRange))
        }
        ok = readCommon(object, into: &host, paths: paths, reader: &r) && ok
        return ok ? host : nil
    }

    /// Keys shared by local and ssh hosts: labels, slots, workRoot, toolchain, environment.
    private static func readCommon(_ object: SchemaObject, into host: inout HostSpec, paths: FleetPathResolver, reader r: inout SchemaReader) -> Bool {
        let before = r.problems.count
        if let field = object.field("labels") {
            host.labels = r.array(field) { r, element in
                guard let s = r.nonEmptyString(element, what: "a label such as 'platform:macos' or 'combine'") else { return nil }
                if s.unicodeScalars.contains(where: { CharacterSet.whitespacesAndNewlines.contains($0) }) {
                    r.report("labels contain no spaces (got '\(SchemaReader.excerpt(s))')", element)
                    return nil
                }
                return s
            } ?? []
        }
        if let field = object.field("slots") { host.slots = r.int(field, in: slotRange) ?? host.slots }
        if let field = object.field("pricePerHour") { host.pricePerHour = number(field, in: 0...10_000, what: "a price per hour, e.g. 1.08", reader: &r) }
        host.workRoot = host.transport == .local ? WorkRootDefaults.local(home: paths.home) : defaultWorkRoot
        if let field = object.field("workRoot"), let s = r.string(field) {
            let tilde = s == "~" || s.hasPrefix("~/")
            if let why = remotePathProblem(tilde ? "/home" + s.dropFirst() : s) {
                r.report(why, field)
            } else {
                host.workRoot = tilde && host.transport == .local ? paths.resolve(s) : s
            }
        }
        if let field = object.field("cache"), let cache = r.object(field) {
            r.checkKeys(cache, allowed: cacheKeys)
            var limits = CacheLimits()
            if let f = cache.field("maxBytes"), let n = r.int(f, in: 0...Int.max) { limits.maxBytes = Int64(n) }
            if let f = cache.field("minFreeBytes"), let n = r.int(f, in: 0...Int.max) { limits.minFreeBytes = Int64(n) }
            host.cache = limits
        }
        if let field = object.field("toolchain"), let toolchain = r.object(field) {
            r.checkKeys(toolchain, allowed: toolchainKeys)
            for key in ["swiftPath", "developerDir"] {
                guard let f = toolchain.field(key), let s = r.string(f) else { continue }
                if !s.hasPrefix("/") || s.unicodeScalars.contains(where: { $0.value < 0x20 }) {
                    r.report("must be an absolute path on the host, starting with '/' (got '\(SchemaReader.excerpt(s))')", f)
                } else if key == "swiftPath" {
                    host.toolchain.swiftPath = s
                } else {
                    host.toolchain.developerDir = s
                }
            }
            if let f = toolchain.field("xcode") {
                if case .number(let n) = f.node.value {
                    r.report("expected a string, got a number; write the version in quotes: \"\(n.literal)\"", f)
                } else {
                    host.toolchain.xcode = r.nonEmptyString(f, what: "an Xcode version such as '16.4'")
                }
            }
        }
        if let field = object.field("environment"), let env = r.object(field) {
            for member in env.object.members {
                let path = env.path / member.key
                guard SchemaReader.isIdentifier(member.key) else {
                    r.report("environment variable names must be identifiers (letters, digits and '_', not starting with a digit)",
                             at: path, member.keyPosition)
                    continue
                }
                if let value = environmentValue(SchemaField(node: member.value, path: path), reader: &r) {
                    host.environment[member.key] = value
                }
            }
        }
        return r.problems.count == before
    }

    /// `"value"` or `{"value": "…", "secret": true}`. Messages never quote the value.
    private static func environmentValue(_ field: SchemaField, reader r: inout SchemaReader) -> EnvironmentValue? {
        switch field.node.value {
        case .string(let s):
            return EnvironmentValue(s)
        case .object:
            guard let object = r.object(field) else { return nil }
            r.checkKeys(object, allowed: ["value", "secret"])
            let secret = object.field("secret").flatMap { r.bool($0) } ?? false
            guard let valueField = r.required(object, "value", hint: "give the variable's value as a string") else { return nil }
            guard case .string(let s) = valueField.node.value else {
                r.report("expected a string, got \(valueField.node.value.kindDescription)\(secret ? " (secret value)" : "")", valueField)
                return nil
            }
            if secret && s.count < Redactor.minimumLength {
                r.report("a secret value must be at least \(Redactor.minimumLength) characters (shorter ones cannot be told apart from ordinary output, so they could not be redacted); use a longer value or drop \"secret\"", valueField)
                return nil
            }
            return EnvironmentValue(s, secret: secret)
        case .null, .bool, .number, .array:
            r.report("expected a string or {\"value\": \"…\", \"secret\": true}, got \(field.node.value.kindDescription)", field)
            return nil
        }
    }

    /// Why `path` is not acceptable as a work root on a host, or nil.
    package static func remotePathProblem(_ path: String) -> String? {
        if !path.hasPrefix("/") {
            return "must be an absolute path on the host, starting with '/' or '~/' (got '\(SchemaReader.excerpt(path))')"
        }
        if path.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
            return "must not contain control characters"
        }
        let parts = path.split(separator: "/")
        if parts.isEmpty {
            return "must not be '/'; use a folder of its own such as /tmp/xcfleet (job folders under it are deleted)"
        }
        if parts.contains("..") || parts.contains(".") {
            return "must not contain '.' or '..' components (got '\(SchemaReader.excerpt(path))')"
        }
        return nil
    }

    private static func isNameScalar(_ s: Unicode.Scalar) -> Bool {
        s.isASCIILetterOrUnderscore || ("0"..."9").contains(s) || s == "." || s == "-"
    }

    /// `attachmentFileBytes`, `attachmentRunBytes`, `attachmentFilesPerAttempt` (docs/attachments.md):
    /// nil when none is given; each one given replaces its default (0 fetches nothing).
    private static func attachmentLimits(_ root: SchemaObject, reader r: inout SchemaReader) -> AttachmentLimits? {
        var limits = AttachmentLimits.defaults
        var given = false
        if let field = root.field("attachmentFileBytes"), let n = r.int(field, in: 0...Int.max) { limits.fileBytes = n; given = true }
        if let field = root.field("attachmentRunBytes"), let n = r.int(field, in: 0...Int.max) { limits.runBytes = n; given = true }
        if let field = root.field("attachmentFilesPerAttempt"), let n = r.int(field, in: 0...100_000) { limits.filesPerAttempt = n; given = true }
        return given ? limits : nil
    }
}

/// Resolves local paths written in a fleet file: `~/` against the home directory, relative paths
/// against the fleet file's folder; `.` and `..` components are removed.
package struct FleetPathResolver {
    package let base: String
    package let home: String

    package func resolve(_ path: String) -> String {
        let joined: String
        if path == "~" {
            joined = home
        } else if path.hasPrefix("~/") {
            joined = home + "/" + path.dropFirst(2)
        } else if path.hasPrefix("/") {
            joined = path
        } else {
            joined = base + "/" + path
        }
        var parts: [Substring] = []
        for part in joined.split(separator: "/") {
            switch part {
            case ".": continue
            case "..": if !parts.isEmpty { parts.removeLast() }
            default: parts.append(part)
            }
        }
        return "/" + parts.joined(separator: "/")
    }

    package init(base: String, home: String) {
        self.base = base
        self.home = home
    }
}
