import XCTest
@testable import XCFleetBasics
@testable import XCFleetModel
@testable import XCFleetCore
import XCFleetTestSupport

final class FleetLoaderTests: XCTestCase {
    static let fixtures = TestPaths.fixtures.appendingPathComponent("fleets")

    func fleet(_ text: String) throws -> Fleet {
        try FleetLoader.parse(Data(text.utf8), path: "fleet.json", baseDirectory: "/etc/xcfleet", homeDirectory: "/home/ci")
    }

    /// Problem lines for `text`, or [] when it loads.
    func problems(_ text: String) -> [String] {
        do {
            _ = try fleet(text)
            return []
        } catch let error as FleetValidationError {
            return error.problems.map(\.description)
        } catch {
            return ["unexpected error type: \(error)"]
        }
    }

    // MARK: Valid fleets

    func testLabFleetLoadsWithResolvedPaths() throws {
        let path = Self.fixtures.appendingPathComponent("lab.json").path
        let fleet = try FleetLoader.load(path: path, homeDirectory: "/home/ci")
        let folder = Self.fixtures.path
        XCTAssertEqual(fleet.sourcePath, path)
        XCTAssertNil(fleet.provisioner)
        XCTAssertEqual(fleet.hosts.map(\.name), ["mac-mini-1", "mac-mini-2", "here"])

        XCTAssertEqual(fleet.hosts[0], HostSpec(
            name: "mac-mini-1", transport: .ssh, address: "10.0.0.11", port: 22, user: "ci",
            identityFile: folder + "/keys/id_ed25519", useAgent: false, passphraseEnv: "XCFLEET_KEY_PASSPHRASE",
            knownHostsFile: folder + "/known_hosts", hostKeyPolicy: .strict,
            labels: ["platform:macos", "combine", "xcode:16.4"], slots: 2, workRoot: "/Users/ci/xcfleet",
            toolchain: ToolchainSpec(developerDir: "/Applications/Xcode-16.4.app/Contents/Developer", xcode: "16.4"),
            environment: ["CI": EnvironmentValue("1"), "API_TOKEN": EnvironmentValue("not-a-real-token", secret: true)]))
        XCTAssertEqual(fleet.hosts[0].secrets, ["not-a-real-token"])

        XCTAssertEqual(fleet.hosts[1], HostSpec(
            name: "mac-mini-2", transport: .ssh, address: "mac-mini-2.lab.example", port: 2222, user: "ci",
            useAgent: true, knownHostsFile: "/home/ci/.ssh/known_hosts", hostKeyPolicy: .acceptNew,
            labels: ["platform:macos"]))

        XCTAssertEqual(fleet.hosts[2], HostSpec(
            name: "here", transport: .local, address: "localhost", port: 0, user: "",
            labels: ["platform:linux", "swift"], slots: 2, workRoot: WorkRootDefaults.local(home: "/home/ci")))
    }

    func testFleetSecretsCoverHostsAndTemplate() throws {
        let f = try fleet("""
        {"hosts": [
          {"name": "a", "transport": "local", "environment": {"A": {"value": "aaaa", "secret": true}, "B": "public", "C": {"value": "ccc", "secret": true}}},
          {"name": "b", "transport": "local", "environment": {"A": {"value": "aaaa", "secret": true}, "D": {"value": "ddd", "secret": true}}}],
         "provisioner": {"create": ["c"], "release": ["r"], "host": {"useAgent": true, "environment": {"E": {"value": "eeeeee", "secret": true}}}}}
        """)
        XCTAssertEqual(f.secrets, ["eeeeee", "aaaa", "ccc", "ddd"])
        XCTAssertEqual(try fleet(#"{"hosts": [{"name": "a", "transport": "local"}]}"#).secrets, [])
    }

    func testProvisionerFleet() throws {
        let fleet = try FleetLoader.load(path: Self.fixtures.appendingPathComponent("provisioned.json").path, homeDirectory: "/home/ci")
        XCTAssertEqual(fleet.hosts, [])
        let p = try XCTUnwrap(fleet.provisioner)
        XCTAssertEqual(p.create, ["./scripts/create-mac.sh", "--json"])
        XCTAssertEqual(p.release, ["./scripts/release-mac.sh"])
        XCTAssertEqual(p.count, 4)
        XCTAssertEqual(p.template, HostSpec(
            name: FleetLoader.provisionedTemplateName, transport: .ssh, address: "", port: 22, user: "ec2-user",
            identityFile: "/home/ci/.ssh/fleet_ed25519", knownHostsFile: "/home/ci/.ssh/known_hosts",
            hostKeyPolicy: .acceptNew, labels: ["platform:macos", "combine"], slots: 1,
            toolchain: ToolchainSpec(swiftPath: "/usr/bin/swift")))
    }

    func testRelativePathsResolveAgainstTheFleetFolder() throws {
        let f = try fleet(#"{"hosts": [{"name": "a", "address": "h", "user": "u", "identityFile": "../keys/./id", "knownHostsFile": "/abs/kh"}]}"#)
        XCTAssertEqual(f.hosts[0].identityFile, "/etc/keys/id")
        XCTAssertEqual(f.hosts[0].knownHostsFile, "/abs/kh")
        let resolver = FleetPathResolver(base: "/a/b", home: "/home/u")
        XCTAssertEqual(resolver.resolve("~"), "/home/u")
        XCTAssertEqual(resolver.resolve("~/k"), "/home/u/k")
        XCTAssertEqual(resolver.resolve("k"), "/a/b/k")
        XCTAssertEqual(resolver.resolve("../../../../k"), "/k")
        XCTAssertEqual(resolver.resolve("/x//y/../z/"), "/x/z")
        // parse() without a base directory uses the folder of the path.
        let g = try FleetLoader.parse(Data(#"{"hosts": [{"name": "a", "address": "h", "user": "u", "identityFile": "id"}]}"#.utf8),
                                      path: "/srv/fleets/f.json", homeDirectory: "/h")
        XCTAssertEqual(g.hosts[0].identityFile, "/srv/fleets/id")
    }

    // MARK: Problems

    func testBrokenFleetReportsEveryProblem() throws {
        let data = try Data(contentsOf: Self.fixtures.appendingPathComponent("broken.json"))
        XCTAssertThrowsError(try FleetLoader.parse(data, path: "fleets/broken.json", homeDirectory: "/h")) { error in
            XCTAssertEqual((error as? FleetValidationError)?.problems.map(\.description), [
                "fleets/broken.json:3:5: hosts[0]: an ssh host needs a key: set \"identityFile\" to an ed25519 private key, or \"useAgent\": true to use ssh-agent",
                "fleets/broken.json:7:7: hosts[0].prot: unknown key 'prot'; did you mean 'port'?",
                "fleets/broken.json:8:16: hosts[0].slots: must be between 1 and 64 (got 65)",
                "fleets/broken.json:9:19: hosts[0].workRoot: must be an absolute path on the host, starting with '/' or '~/' (got 'relative/dir')",
                "fleets/broken.json:11:9: hosts[0].environment[\"1BAD\"]: environment variable names must be identifiers (letters, digits and '_', not starting with a digit)",
                "fleets/broken.json:12:29: hosts[0].environment.TOKEN.value: expected a string, got a number (secret value)",
                "fleets/broken.json:15:5: hosts[1].user: missing required key 'user'; give the login user on the host",
                "fleets/broken.json:16:15: hosts[1].name: duplicate host name 'mac-1' (also hosts[0] at line 4); give each host its own name",
                "fleets/broken.json:18:15: hosts[1].port: must be between 1 and 65535 (got 70000)",
                "fleets/broken.json:20:24: hosts[1].passphraseEnv: must be the NAME of an environment variable holding the passphrase (letters, digits, '_'), not the passphrase itself",
                "fleets/broken.json:21:24: hosts[1].hostKeyPolicy: must be one of 'strict', 'accept-new' (got 'accept-any'); did you mean 'accept-new'?",
                "fleets/broken.json:23:44: hosts[2].port: 'port' applies to ssh hosts only; remove it or set \"transport\": \"ssh\"",
            ])
        }
    }

    func testAFleetNeedsHostsOrAProvisioner() {
        XCTAssertEqual(problems("{}"), ["fleet.json:1:1: hosts: the fleet has no hosts; list at least one in \"hosts\" or add a \"provisioner\""])
        XCTAssertEqual(problems(#"{"hosts": []}"#), ["fleet.json:1:2: hosts: the fleet has no hosts; list at least one in \"hosts\" or add a \"provisioner\""])
        XCTAssertEqual(problems(#"{"hosts": {}}"#), ["fleet.json:1:11: hosts: expected an array of hosts, got an object"])
        XCTAssertEqual(problems("[]"), ["fleet.json:1:1: expected an object, got an array"])
        XCTAssertEqual(problems(#"{"hots": []}"#), [
            "fleet.json:1:1: hosts: the fleet has no hosts; list at least one in \"hosts\" or add a \"provisioner\"",
            "fleet.json:1:2: hots: unknown key 'hots'; did you mean 'hosts'?",
        ])
    }

    func testSSHHostRequirements() {
        XCTAssertEqual(problems(#"{"hosts": [{"name": "a"}]}"#), [
            "fleet.json:1:12: hosts[0].address: missing required key 'address'; give the host name or IP address to connect to",
            "fleet.json:1:12: hosts[0].user: missing required key 'user'; give the login user on the host",
            "fleet.json:1:12: hosts[0]: an ssh host needs a key: set \"identityFile\" to an ed25519 private key, or \"useAgent\": true to use ssh-agent",
        ])
        XCTAssertEqual(problems(#"{"hosts": [{"address": "h h", "user": "", "useAgent": false, "passphraseEnv": "KEY_PW"}]}"#), [
            "fleet.json:1:12: hosts[0].name: missing required key 'name'; give the host a name of letters, digits, '.', '_' or '-'",
            "fleet.json:1:12: hosts[0]: an ssh host needs a key: set \"identityFile\" to an ed25519 private key, or \"useAgent\": true to use ssh-agent",
            "fleet.json:1:24: hosts[0].address: must be a host name or IP address without spaces or '/', not starting with '-' (got 'h h')",
            "fleet.json:1:39: hosts[0].user: must not be empty; give the login user",
            "fleet.json:1:79: hosts[0].passphraseEnv: passphraseEnv names the passphrase of identityFile; set \"identityFile\" too, or remove it",
        ])
        XCTAssertEqual(problems(#"{"hosts": [{"name": "a", "transport": "telnet", "address": "h", "user": "u", "useAgent": "yes"}]}"#), [
            "fleet.json:1:39: hosts[0].transport: must be one of 'ssh', 'local' (got 'telnet')",
            "fleet.json:1:90: hosts[0].useAgent: expected true or false, got a string",
        ])
    }

    func testAddressCannotLookLikeAnOption() {
        XCTAssertEqual(problems(#"{"hosts": [{"name": "a", "address": "-oProxyCommand=x", "user": "u", "useAgent": true}]}"#), [
            "fleet.json:1:37: hosts[0].address: must be a host name or IP address without spaces or '/', not starting with '-' (got '-oProxyCommand=x')",
        ])
        XCTAssertEqual(try fleet(#"{"hosts": [{"name": "a", "address": "::1", "user": "u", "useAgent": true}]}"#).hosts.first?.address, "::1")
    }

    func testLocalHostRejectsSSHKeys() throws {
        XCTAssertEqual(problems(#"{"hosts": [{"name": "l", "transport": "local", "user": "me", "useAgent": true}]}"#), [
            "fleet.json:1:48: hosts[0].user: 'user' applies to ssh hosts only; remove it or set \"transport\": \"ssh\"",
            "fleet.json:1:62: hosts[0].useAgent: 'useAgent' applies to ssh hosts only; remove it or set \"transport\": \"ssh\"",
        ])
        let f = try fleet(#"{"hosts": [{"name": "l", "transport": "local"}]}"#)
        XCTAssertEqual(f.hosts, [HostSpec(name: "l", transport: .local, address: "localhost", port: 0, user: "",
                                          workRoot: WorkRootDefaults.local(home: "/home/ci"))])
    }

    func testCommonHostKeys() {
        XCTAssertEqual(problems("""
        {"hosts": [{"name": "a", "transport": "local", "labels": ["ok", "two words", 3], "slots": 0, "workRoot": "/",
          "toolchain": {"swiftPath": "usr/bin/swift", "developerDir": "/Applications/Xcode.app", "xcode": 16.4, "sdk": "x"}},
          {"name": "b", "transport": "local", "workRoot": "/tmp/../etc", "environment": {"A B": "x", "OK": true}}]}
        """), [
            "fleet.json:1:65: hosts[0].labels[1]: labels contain no spaces (got 'two words')",
            "fleet.json:1:78: hosts[0].labels[2]: expected a string, got a number",
            "fleet.json:1:91: hosts[0].slots: must be between 1 and 64 (got 0)",
            "fleet.json:1:106: hosts[0].workRoot: must not be '/'; use a folder of its own such as /tmp/xcfleet (job folders under it are deleted)",
            "fleet.json:2:30: hosts[0].toolchain.swiftPath: must be an absolute path on the host, starting with '/' (got 'usr/bin/swift')",
            "fleet.json:2:99: hosts[0].toolchain.xcode: expected a string, got a number; write the version in quotes: \"16.4\"",
            "fleet.json:2:105: hosts[0].toolchain.sdk: unknown key 'sdk'; allowed keys are swiftPath, developerDir, xcode",
            "fleet.json:3:51: hosts[1].workRoot: must not contain '.' or '..' components (got '/tmp/../etc')",
            "fleet.json:3:82: hosts[1].environment[\"A B\"]: environment variable names must be identifiers (letters, digits and '_', not starting with a digit)",
            "fleet.json:3:100: hosts[1].environment.OK: expected a string or {\"value\": \"…\", \"secret\": true}, got a bool",
        ])
    }

    func testDeadPeerSecondsIsReadAndBounded() throws {
        let host = #"{"name": "a", "address": "10.0.0.7", "user": "u", "useAgent": true, "deadPeerSeconds": %@}"#
        XCTAssertEqual(try fleet(#"{"hosts": [\#(host.replacingOccurrences(of: "%@", with: "6.5"))]}"#).hosts.first?.deadPeerSeconds, 6.5)
        XCTAssertNil(try fleet(#"{"hosts": [{"name": "a", "address": "h", "user": "u", "useAgent": true}]}"#).hosts.first?.deadPeerSeconds)
        XCTAssertEqual(problems(#"{"hosts": [\#(host.replacingOccurrences(of: "%@", with: "1"))]}"#), [
            "fleet.json:1:99: hosts[0].deadPeerSeconds: must be between 3 and 86400 (got 1)",
        ])
        XCTAssertEqual(problems(#"{"hosts": [\#(host.replacingOccurrences(of: "%@", with: "\"30\""))]}"#).count, 1)
        XCTAssertEqual(problems(#"{"hosts": [{"name": "l", "transport": "local", "deadPeerSeconds": 5}]}"#), [
            "fleet.json:1:48: hosts[0].deadPeerSeconds: 'deadPeerSeconds' applies to ssh hosts only; remove it or set \"transport\": \"ssh\"",
        ])
    }

    func testProvisionerProblems() {
        XCTAssertEqual(problems("""
        {"provisioner": {"create": [], "release": ["./r", 1], "count": 0,
          "host": {"name": "x", "address": "h", "port": 22, "transport": "local", "user": "u", "useAgent": true}}}
        """), [
            "fleet.json:1:28: provisioner.create: must name a program and its arguments, e.g. [\"./make-mac.sh\", \"--json\"]",
            "fleet.json:1:51: provisioner.release[1]: expected a string, got a number",
            "fleet.json:1:64: provisioner.count: must be between 1 and 256 (got 0)",
            "fleet.json:2:12: provisioner.host.name: 'name' is not allowed here; created hosts are named by xcfleet",
            "fleet.json:2:25: provisioner.host.address: 'address' is not allowed here; the provisioner's create command reports it for each host",
            "fleet.json:2:41: provisioner.host.port: 'port' is not allowed here; the provisioner's create command reports it for each host",
            "fleet.json:2:66: provisioner.host.transport: provisioned hosts are reached over ssh; remove \"transport\" or set it to \"ssh\"",
        ])
        XCTAssertEqual(problems(#"{"provisioner": {"create": ["c"]}}"#), [
            "fleet.json:1:17: provisioner.release: missing required key 'release'; give the command that releases a host, e.g. [\"./release-mac.sh\"]",
            "fleet.json:1:17: provisioner.host: missing required key 'host'; give the template for created hosts: user, identityFile or useAgent, labels, slots",
        ])
        XCTAssertEqual(problems(#"{"provisioner": {"create": ["c"], "release": ["r"], "host": {"labels": []}}}"#), [
            "fleet.json:1:61: provisioner.host: an ssh host needs a key: set \"identityFile\" to an ed25519 private key, or \"useAgent\": true to use ssh-agent",
        ])
    }

    func testSecretValuesNeverAppearInMessages() {
        let secret = "s3cr3t-Value-123"
        let texts = [
            #"{"hosts": [{"name": "a", "address": "h", "user": "u", "useAgent": true, "environment": {"T": {"value": "\#(secret)", "secret": "yes", "secrte": 1}}}]}"#,
            #"{"hosts": [{"name": "a", "address": "h", "user": "u", "identityFile": "k", "passphraseEnv": "\#(secret)"}]}"#,
            #"{"hosts": [{"name": "a", "address": "h", "user": "u", "useAgent": true, "environment": {"T": \#(secret)}}]}"#,
            #"{"hosts": [{"name": "a", "address": "h", "user": "u", "useAgent": true, "environment": {"T": {"value": ["\#(secret)"], "secret": true}}}]}"#,
        ]
        for text in texts {
            let lines = problems(text)
            XCTAssertFalse(lines.isEmpty, text)
            for line in lines { XCTAssertFalse(line.contains(secret), line) }
        }
        XCTAssertEqual(problems(texts[3]), [
            "fleet.json:1:104: hosts[0].environment.T.value: expected a string, got an array (secret value)",
        ])
    }

    /// The ```jsonc examples in the README must load.
    func testDocumentedExamplesLoad() throws {
        var root = Self.fixtures
        while root.path != "/" && !FileManager.default.fileExists(atPath: root.appendingPathComponent("Package.swift").path) {
            root = root.deletingLastPathComponent()
        }
        var blocks: [String] = []
        for name in ["README.md"] {
            guard let text = try? String(contentsOf: root.appendingPathComponent(name), encoding: .utf8) else { continue }
            for part in text.components(separatedBy: "```jsonc\n").dropFirst() {
                blocks.append(part.components(separatedBy: "```").first ?? "")
            }
        }
        guard !blocks.isEmpty else { return XCTFail("no ```jsonc examples in README.md under \(root.path)") }
        var fleets = 0
        var plans = 0
        var quarantines = 0
        for block in blocks {
            if block.contains("\"tests\"") {
                // A quarantine file; checked on a fixed day so the example's expiry date cannot lapse the test.
                let day = ISO8601DateFormatter().date(from: "2026-11-15T00:00:00Z")!
                XCTAssertNoThrow(try QuarantineLoader.parse(Data(block.utf8), path: "quarantine.json", suites: nil, today: day))
                quarantines += 1
            } else if block.contains("\"suites\"") {
                // Packages, workspaces and projects the example names are made in a repository of
                // its own (the plan in its `ci/` folder), as a team's repository holds them.
                let repo = FileManager.default.temporaryDirectory.appendingPathComponent("xcfleet-example-\(UUID().uuidString.prefix(8))")
                let ci = repo.appendingPathComponent("ci")
                try FileManager.default.createDirectory(at: ci, withIntermediateDirectories: true)
                try FileManager.default.createDirectory(at: repo.appendingPathComponent(".git"), withIntermediateDirectories: true)
                defer { try? FileManager.default.removeItem(at: repo) }
                let named = try NSRegularExpression(pattern: #""(package|workspace|project)"\s*:\s*"([^"]+)""#)
                for m in named.matches(in: block, range: NSRange(block.startIndex..., in: block)) {
                    guard let kind = Range(m.range(at: 1), in: block), let path = Range(m.range(at: 2), in: block) else { continue }
                    let dir = ci.appendingPathComponent(String(block[path])).standardizedFileURL
                    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
                    if block[kind] == "package" { try Data("// swift-tools-version:5.9\n".utf8).write(to: dir.appendingPathComponent("Package.swift")) }
                }
                XCTAssertNoThrow(try PlanLoader.parse(Data(block.utf8), path: ci.appendingPathComponent("example.json").path,
                                                      knownTemplates: ["cache-contract", "pressure-probes", "combine-lifetime"]))
                plans += 1
            } else {
                let f = try fleet(block)
                XCTAssertFalse(f.hosts.isEmpty && f.provisioner == nil)
                fleets += 1
            }
        }
        XCTAssertGreaterThan(fleets, 0)
        XCTAssertGreaterThan(plans, 0)
        XCTAssertGreaterThan(quarantines, 0)
    }

    func testUnreadableFleetFile() {
        let missing = "/nonexistent-\(UUID().uuidString)/fleet.json"
        XCTAssertThrowsError(try FleetLoader.load(path: missing)) { error in
            XCTAssertEqual((error as? FleetValidationError)?.description, "\(missing): cannot read the file: no such file; check the path")
        }
    }

    func testMutatedFleetsNeverTrap() throws {
        let original = [UInt8](try Data(contentsOf: Self.fixtures.appendingPathComponent("lab.json")))
        var rng = SeededGenerator(seed: 0xF1EE7)
        let alphabet = Array("{}[],:\"0-e/*~.".utf8)
        var rejected = 0
        for _ in 0..<2000 {
            var bytes = original
            for _ in 0..<Int(rng.next() % 4 + 1) where !bytes.isEmpty {
                let i = Int(rng.next() % UInt64(bytes.count))
                switch rng.next() % 3 {
                case 0: bytes[i] = UInt8(truncatingIfNeeded: rng.next())
                case 1: bytes.remove(at: i)
                default: bytes.insert(alphabet[Int(rng.next() % UInt64(alphabet.count))], at: i)
                }
            }
            do {
                _ = try FleetLoader.parse(Data(bytes), path: "m.json", baseDirectory: "/b", homeDirectory: "/h")
            } catch let error as FleetValidationError {
                XCTAssertFalse(error.problems.isEmpty)
                for p in error.problems { XCTAssertFalse(p.message.contains("not-a-real-token"), p.description) }
                rejected += 1
            }
        }
        XCTAssertGreaterThan(rejected, 500)
    }
}
