import XCFleetModel

/// The one host probe behind admission and `xcfleet hosts check`: `parse` reads what the probe
/// command (`HostProbeScript`) printed into facts, `judge` holds them against what the run
/// requires of the host. Pure: a host `judge` passes is a host admission lets in, and the
/// failed checks' details are the reasons admission logs, word for word.
public enum HostProbe {
    /// Below this much free disk under the work root a host is set aside (fleet key `minFreeDiskBytes`).
    public static let defaultMinimumFreeBytes: Int64 = 2 << 30

    /// One section of the probe output: `@@name STATUS` and the lines after it.
    public struct Section: Equatable, Sendable {
        public var status: Int?
        public var lines: [String]

        public init(status: Int? = nil, lines: [String] = []) {
            self.status = status
            self.lines = lines
        }
    }

    /// What the probe command printed, by section; nil: the section is missing.
    public struct Facts: Equatable, Sendable {
        /// The closing `@@end` arrived (otherwise the output was cut short).
        public var complete: Bool
        /// The end of the output, for the message when it was cut short.
        public var tail: String
        /// `uname -sm`: `Darwin arm64`, `Linux x86_64`.
        public var system: String?
        /// `macOS 15.5`, `Debian GNU/Linux 12 (bookworm)`.
        public var os: String?
        /// `df -Pk` of the work root (created first, mode 700).
        public var disk: Section?
        /// `xcf_private` over the work root and the folders under it that exist.
        public var privacy: Section?
        /// `xcodebuild -version` with `DEVELOPER_DIR`, else `swift --version`.
        public var toolchain: Section?
        /// CPU model, then count.
        public var cpu: Section?
        /// Time to the first byte of the probe's output, measured by the caller.
        public var latencyMs: Double?
        /// Keys of the finished builds in the host's build cache (64 hex digits each; a placement
        /// hint for the scheduler: whether a build is trusted is decided when it is used).
        public var builds: [String] = []

        public init(complete: Bool = true, tail: String = "", system: String? = nil, os: String? = nil, disk: Section? = nil,
                    privacy: Section? = nil, toolchain: Section? = nil, cpu: Section? = nil, latencyMs: Double? = nil) {
            self.complete = complete
            self.tail = tail
            self.system = system
            self.os = os
            self.disk = disk
            self.privacy = privacy
            self.toolchain = toolchain
            self.cpu = cpu
            self.latencyMs = latencyMs
        }
    }

    /// What the run requires of a host: its fleet entry and the fleet's minimums.
    public struct Requirements: Equatable, Sendable {
        public var host: HostSpec
        public var minimumFreeBytes: Int64

        public init(host: HostSpec, minimumFreeBytes: Int64 = HostProbe.defaultMinimumFreeBytes) {
            self.host = host
            self.minimumFreeBytes = minimumFreeBytes
        }
    }

    /// One line of `hosts check`: a check's name, whether it passed, and what was found or what to fix.
    public struct Check: Equatable, Codable, Sendable {
        public var name: String
        public var ok: Bool
        public var detail: String

        public init(_ name: String, ok: Bool, _ detail: String) {
            self.name = name
            self.ok = ok
            self.detail = detail
        }
    }

    /// Check names, in the order `judge` reports them (`hosts check` adds `connect` first; `probe`
    /// is the probe command failing to run at all).
    public static let checkNames = ["output", "system", "labels", "disk", "workRoot", "toolchain", "xcode", "cpu", "latency"]

    /// The failed checks' details: admission's reasons for setting the host aside.
    public static func problems(_ checks: [Check]) -> [String] { checks.filter { !$0.ok }.map(\.detail) }

    // MARK: Parsing

    /// Splits the probe output into sections (`@@name [STATUS]` starts one; empty lines are dropped).
    public static func parse(_ output: String) -> Facts {
        var sections: [String: Section] = [:]
        var current: String?
        for raw in output.split(separator: "\n", omittingEmptySubsequences: false) {
            let line = String(raw)
            if line.hasPrefix("@@") {
                let parts = line.dropFirst(2).split(separator: " ", maxSplits: 1).map(String.init)
                current = parts.first
                if let name = current { sections[name] = Section(status: parts.count > 1 ? Int(parts[1]) : nil) }
            } else if let name = current, !line.isEmpty {
                sections[name]?.lines.append(line)
            }
        }
        func firstLine(_ name: String) -> String? {
            sections[name]?.lines.map { $0.trimmingCharacters(in: .whitespaces) }.first { !$0.isEmpty }
        }
        var facts = Facts(complete: sections["end"] != nil, tail: String(output.suffix(300)), system: firstLine("uname"), os: firstLine("os"),
                          disk: sections["df"], privacy: sections["private"], toolchain: sections["toolchain"], cpu: sections["cpu"])
        facts.builds = (sections["builds"]?.lines ?? []).filter { $0.count == 64 && $0.allSatisfy { $0.isHexDigit && !$0.isUppercase } }
        return facts
    }

    /// Available KiB of the last data line of `df -Pk`, in bytes: the column before the capacity
    /// (`67%`), so a mount point with spaces (`/Volumes/CI Disk`) still reads.
    public static func freeBytes(dfLines: [String]) -> Int64? {
        guard dfLines.count >= 2, let last = dfLines.last else { return nil }
        let columns = last.split(whereSeparator: { $0 == " " || $0 == "\t" })
        guard columns.count >= 6,
              let capacity = columns.indices.dropFirst(4).first(where: { i in
                  columns[i].hasSuffix("%") && columns[i].dropLast().allSatisfy { $0.isASCII && $0.isNumber }
              }),
              let kib = Int64(columns[capacity - 1]) else { return nil }
        let (bytes, overflow) = kib.multipliedReportingOverflow(by: 1024)
        return overflow ? Int64.max : bytes
    }

    /// `Apple M2 Pro ×12` from the `cpu` section, when the host told.
    public static func cpu(_ facts: Facts) -> String? {
        guard let lines = facts.cpu?.lines.map({ $0.trimmingCharacters(in: .whitespaces) }).filter({ !$0.isEmpty }),
              let model = lines.first else { return nil }
        let count = lines.count > 1 ? Int(lines[1]) : nil
        return String(model.prefix(120)) + (count.map { " ×\($0)" } ?? "")
    }

    /// First non-empty line of a toolchain that answered (status 0), else nil.
    public static func toolchainVersion(_ facts: Facts) -> String? {
        guard let tool = facts.toolchain, tool.status == 0 else { return nil }
        return tool.lines.first { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
    }

    /// Free bytes under the work root, when `df` answered.
    public static func freeBytes(_ facts: Facts) -> Int64? {
        guard let disk = facts.disk, disk.status == 0 else { return nil }
        return freeBytes(dfLines: disk.lines)
    }

    // MARK: Judging

    /// Every check, passed or failed, in `checkNames` order. A check whose section is missing is
    /// left out; output cut short yields that one failed check only.
    public static func judge(_ facts: Facts, _ requirements: Requirements) -> [Check] {
        let host = requirements.host
        guard facts.complete else {
            return [Check("output", ok: false, "health check output was cut short: \(excerpt(facts.tail)); check that the host's shell runs POSIX sh")]
        }
        var checks: [Check] = []
        let system = [facts.system, facts.os].compactMap { $0 }.joined(separator: " ")
        checks.append(Check("system", ok: true, system.isEmpty ? "not reported" : system))
        checks.append(labels(facts, host: host))
        if let disk = disk(facts, requirements) { checks.append(disk) }
        if let privacy = facts.privacy {
            if privacy.status == 0 {
                checks.append(Check("workRoot", ok: true, "\(host.workRoot) is private to the login user"))
            } else {
                let line = privacy.lines.first.map { $0.hasPrefix("xcfleet: ") ? String($0.dropFirst(9)) : $0 }
                    ?? "the work root \(host.workRoot) is not private; run chmod 700 on it or choose another workRoot"
                checks.append(Check("workRoot", ok: false, String(line.prefix(400))))
            }
        }
        checks += toolchain(facts, host: host)
        if let cpu = cpu(facts) { checks.append(Check("cpu", ok: true, cpu)) }
        if let ms = facts.latencyMs { checks.append(Check("latency", ok: true, "\(Int(ms.rounded())) ms to the first byte")) }
        return checks
    }

    /// `platform:` labels against the system, `xcode:` labels against `toolchain.xcode` (pure) —
    /// the reported Xcode is held against them in the `xcode` check.
    private static func labels(_ facts: Facts, host: HostSpec) -> Check {
        var problems: [String] = []
        let platforms = host.labels.filter { $0.hasPrefix("platform:") }
        if let system = facts.system {
            let os = system.split(separator: " ").first.map(String.init) ?? ""
            for label in platforms {
                let expected: String? = label == "platform:macos" ? "Darwin" : label == "platform:linux" ? "Linux" : nil
                if let expected, os != expected {
                    problems.append("labelled \(label) but the host runs \(system); fix the host's labels")
                }
            }
        }
        let xcodeLabels = host.labels.filter { $0.hasPrefix("xcode:") }
        if let pinned = host.toolchain.xcode.flatMap({ $0.isEmpty ? nil : $0 }) {
            for label in xcodeLabels {
                let wanted = String(label.dropFirst(6))
                if !XcodeVersion(version: pinned).satisfies(wanted) && !XcodeVersion(version: wanted).satisfies(pinned) {
                    problems.append("labelled \(label) but \"toolchain.xcode\" is \(pinned); fix the host's labels or \"toolchain.xcode\"")
                }
            }
        }
        if !problems.isEmpty { return Check("labels", ok: false, problems.joined(separator: "; ")) }
        let checked = platforms + xcodeLabels
        return Check("labels", ok: true, checked.isEmpty ? "no platform: or xcode: labels to check" : checked.joined(separator: ", ") + (checked.count == 1 ? " agrees" : " agree") + " with the host")
    }

    private static func disk(_ facts: Facts, _ requirements: Requirements) -> Check? {
        guard let disk = facts.disk else { return nil }
        let root = requirements.host.workRoot
        guard disk.status == 0, let free = freeBytes(dfLines: disk.lines) else {
            return Check("disk", ok: false, "cannot read free disk space under \(root): \(disk.lines.suffix(2).joined(separator: " | ")); check the host's \"workRoot\"")
        }
        let minimum = requirements.minimumFreeBytes
        if free < minimum {
            return Check("disk", ok: false, "only \(megabytes(free)) MB free under \(root) (needs \(megabytes(minimum)) MB); free some disk space or lower the fleet's \"minFreeDiskBytes\"")
        }
        return Check("disk", ok: true, "\(megabytes(free)) MB free under \(root) (needs \(megabytes(minimum)) MB)")
    }

    private static func toolchain(_ facts: Facts, host: HostSpec) -> [Check] {
        guard let tool = facts.toolchain else { return [] }
        let developerDir = (host.toolchain.developerDir ?? "")
        let usesXcode = !developerDir.isEmpty
        guard let first = toolchainVersion(facts) else {
            let what = usesXcode ? "xcodebuild -version with DEVELOPER_DIR=\(developerDir)" : "\(host.toolchain.swiftPath ?? "swift") --version"
            let detail = tool.lines.suffix(2).joined(separator: " | ")
            return [Check("toolchain", ok: false, "toolchain missing: \(what) failed (status \(tool.status.map(String.init) ?? "?"))\(detail.isEmpty ? "" : ": \(excerpt(detail))"); fix \"toolchain\" for this host")]
        }
        var checks = [Check("toolchain", ok: true, first)]
        guard usesXcode else { return checks }
        let found = XcodeVersion.parse(tool.lines.joined(separator: "\n"))
        var problems: [String] = []
        if let pinned = host.toolchain.xcode.flatMap({ $0.isEmpty ? nil : $0 }), !(found?.satisfies(pinned) ?? false) {
            problems.append("expected Xcode \(pinned) but \(developerDir) has \(first); fix \"toolchain.xcode\" or \"developerDir\"")
        }
        for label in host.labels where label.hasPrefix("xcode:") {
            let wanted = String(label.dropFirst(6))
            if !(found?.satisfies(wanted) ?? false) {
                problems.append("labelled \(label) but \(developerDir) has \(first); fix the host's labels or \"developerDir\"")
            }
        }
        checks.append(problems.isEmpty ? Check("xcode", ok: true, "\(found.map(\.description) ?? first) in \(developerDir)")
                                       : Check("xcode", ok: false, problems.joined(separator: "; ")))
        return checks
    }

    private static func megabytes(_ bytes: Int64) -> Int64 { bytes / 1_048_576 }

    /// One line of at most 160 characters.
    static func excerpt(_ s: String) -> String {
        let flat = s.replacingOccurrences(of: "\n", with: "⏎")
        return flat.count > 160 ? String(flat.prefix(160)) + "…" : flat
    }
}
