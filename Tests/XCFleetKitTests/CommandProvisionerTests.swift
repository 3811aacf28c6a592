import XCTest
@testable import XCFleetKit
import XCFleetTestSupport

/// The command provisioner against a real script (`Fixtures/provisioner/fake-provisioner.sh`):
/// hosts created concurrently and merged into the template, the run-private known_hosts file,
/// release with the created JSON on stdin, clear errors for bad output and failing commands,
/// and release of everything created when the run is interrupted.
final class CommandProvisionerTests: XCTestCase {
    /// The commands are relative (`./fake-provisioner.sh`), run from the fixture folder as from a fleet file's folder.
    private let fixtures = TestPaths.packageRoot.appendingPathComponent("Tests/Fixtures/provisioner").path
    private let key = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIAM+oU2s1zSsulJzAqSls6QCAVgCUq+LCjWM9E4GbMUs"

    private struct Setup {
        var provisioner: CommandProvisioner
        var state: URL
        var runDirectory: URL
    }

    private func setup(_ behaviour: String = "ok", count: Int = 3, reserved: Set<String> = [], name: String = #function) throws -> Setup {
        let base = try TestPaths.temporaryDirectory(name)
        let state = base.appendingPathComponent("state"), run = base.appendingPathComponent("run")
        try FileManager.default.createDirectory(at: state, withIntermediateDirectories: true)
        let template = HostSpec(name: FleetLoader.provisionedTemplateName, user: "template-user", identityFile: "/keys/id_ed25519",
                                hostKeyPolicy: .acceptNew, labels: ["platform:macos", "vm"], slots: 1, workRoot: "/Users/ci/xcfleet")
        let spec = ProvisionerSpec(create: ["./fake-provisioner.sh", "create"], release: ["./fake-provisioner.sh", "release"], count: count, template: template)
        let provisioner = CommandProvisioner(spec: spec, directory: run, reservedNames: reserved,
                                             environment: ["FAKE_STATE": state.path, "FAKE_BEHAVIOUR": behaviour], workingDirectory: fixtures, createTimeout: 60, releaseTimeout: 30)
        return Setup(provisioner: provisioner, state: state, runDirectory: run)
    }

    private func released(_ setup: Setup) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: setup.state.path)) ?? []).filter { $0.hasPrefix("released-") }.sorted()
    }

    func testCreatesHostsConcurrentlyMergesThemAndReleasesWithTheirJSON() async throws {
        let s = try setup()
        let results = await s.provisioner.createAll()
        let hosts = try results.map { try $0.get() }
        XCTAssertEqual(hosts.map(\.name), ["vm-1", "vm-2", "vm-3"])
        let first = try XCTUnwrap(hosts.first)
        XCTAssertEqual(first.address, "127.0.0.1")
        XCTAssertEqual(first.port, 2201)
        XCTAssertEqual(first.user, "tester")
        XCTAssertEqual(first.transport, .ssh)
        XCTAssertEqual(first.labels, ["platform:macos", "vm", "tart"], "template labels first, no duplicates")
        XCTAssertEqual(first.slots, 2)
        XCTAssertEqual(first.identityFile, "/keys/id_ed25519", "kept from the template")
        XCTAssertEqual(first.workRoot, "/Users/ci/xcfleet")
        XCTAssertEqual(first.hostKeyPolicy, .strict, "a key the provisioner vouched for is checked strictly")
        XCTAssertEqual(first.knownHostsFile, s.runDirectory.appendingPathComponent("known_hosts").path)

        let knownHosts = try String(contentsOfFile: s.runDirectory.appendingPathComponent("known_hosts").path, encoding: .utf8)
        XCTAssertEqual(knownHosts.split(separator: "\n").map(String.init),
                       ["[127.0.0.1]:2201 \(key)", "[127.0.0.2]:2202 \(key)", "[127.0.0.3]:2203 \(key)"])
        let mode = try FileManager.default.attributesOfItem(atPath: s.runDirectory.appendingPathComponent("known_hosts").path)[.posixPermissions] as? Int
        XCTAssertEqual(mode, 0o600)

        try await s.provisioner.release(first)
        XCTAssertEqual(released(s), ["released-vm-1.json"])
        let given = try JSONSerialization.jsonObject(with: Data(contentsOf: s.state.appendingPathComponent("released-vm-1.json"))) as? [String: Any]
        XCTAssertEqual(given?["vmID"] as? String, "tart-1", "release gets the JSON create printed, extra keys included")
        XCTAssertEqual(given?["address"] as? String, "127.0.0.1")
        do {
            try await s.provisioner.release(first)
            XCTFail("a host is released once")
        } catch {
            XCTAssertTrue(error.description.contains("released already"), error.description)
        }
        let failures = await s.provisioner.releaseAll()
        XCTAssertEqual(failures, [])
        XCTAssertEqual(released(s), ["released-vm-1.json", "released-vm-2.json", "released-vm-3.json"])
        let left = await s.provisioner.hosts
        XCTAssertEqual(left, [])
    }

    func testOutputThatIsNotOneJSONObjectIsAClearErrorNamingTheCommand() async throws {
        let s = try setup("badjson", count: 1)
        let results = await s.provisioner.createAll()
        guard case .failure(let error)? = results.first else { return XCTFail("bad JSON must fail: \(results)") }
        XCTAssertEqual(error.stage, .create)
        XCTAssertEqual(error.host, "prov-1")
        XCTAssertTrue(error.description.contains("fake-provisioner.sh create"), error.description)
        XCTAssertTrue(error.message.contains("stdout is not one JSON object"), error.message)
        XCTAssertTrue(error.message.contains("print progress to stderr"), error.message)
        XCTAssertTrue(error.message.contains("Booting VM"), "shows what was printed: \(error.message)")
        let left = await s.provisioner.hosts
        XCTAssertEqual(left, [])
    }

    func testEveryBadFieldIsReportedAtOnce() async throws {
        let s = try setup("badfields", count: 1)
        let results = await s.provisioner.createAll()
        guard case .failure(let error)? = results.first else { return XCTFail("bad fields must fail: \(results)") }
        for field in ["\"address\"", "\"port\" must be an integer from 1 to 65535, got 70000", "\"user\"", "\"hostKey\" has key type \"ssh-dss\"", "\"slots\""] {
            XCTAssertTrue(error.message.contains(field), "\(field) missing from: \(error.message)")
        }
    }

    func testAFailingCreateCommandReportsItsStatusAndStderrAndTheOthersStillWork() async throws {
        let s = try setup("failsecond", count: 3)
        let results = await s.provisioner.createAll()
        XCTAssertEqual(results.count, 3)
        XCTAssertEqual(try results[0].get().name, "vm-1")
        XCTAssertEqual(try results[2].get().name, "vm-3")
        guard case .failure(let error) = results[1] else { return XCTFail("host 2 must fail") }
        XCTAssertEqual(error.host, "prov-2")
        XCTAssertTrue(error.message.contains("exited with status 5"), error.message)
        XCTAssertTrue(error.message.contains("orka3: no capacity left in namespace ci"), error.message)
        let all = try setup("fail", count: 1, name: "all")
        let failed = await all.provisioner.createAll()
        guard case .failure(let e)? = failed.first else { return XCTFail("must fail") }
        XCTAssertTrue(e.message.contains("exited with status 4; stderr: cloning image for prov-1 | tart: not enough disk space"), e.message)
        await s.provisioner.releaseAll()
        XCTAssertEqual(released(s), ["released-vm-1.json", "released-vm-3.json"])
    }

    func testInterruptKillsPendingCreatesAndReleasesEveryCreatedHost() async throws {
        let s = try setup("slowsecond", count: 2)
        let provisioner = s.provisioner
        let creating = Task { await provisioner.createAll() }
        // Wait (bounded) until host 1 exists and host 2's create is in progress.
        let slowMarker = s.state.appendingPathComponent("slow-started-2").path
        for _ in 0..<200 {
            let created = await provisioner.hosts.count
            if created == 1 && FileManager.default.fileExists(atPath: slowMarker) { break }
            try await Task.sleep(nanoseconds: 50_000_000)
        }
        let created = await provisioner.hosts.map(\.name)
        XCTAssertEqual(created, ["vm-1"])
        let started = Date()
        creating.cancel()
        let results = await creating.value
        XCTAssertLessThan(Date().timeIntervalSince(started), 15, "the pending create is killed, not awaited")
        XCTAssertEqual(try results[0].get().name, "vm-1")
        guard case .failure(let error) = results[1] else { return XCTFail("the pending create ends cancelled") }
        XCTAssertTrue(error.message.contains("cancelled"), error.message)

        // The interrupt handler itself runs in a cancelled task: release must still happen.
        let releasing = Task { await provisioner.releaseAll() }
        releasing.cancel()
        let failures = await releasing.value
        XCTAssertEqual(failures, [])
        XCTAssertEqual(released(s), ["released-vm-1.json"])
        // After the run began ending, nothing new is created.
        do {
            _ = try await provisioner.create(index: 3)
            XCTFail("no create after releaseAll")
        } catch {
            XCTAssertTrue(error.message.contains("the run is ending"), error.message)
        }
    }

    func testAHostCreatedAfterReleaseAllBeganIsReleasedAtOnce() async throws {
        let s = try setup("slow", count: 1)
        let provisioner = s.provisioner
        let creating = Task { await provisioner.createAll() }
        let marker = s.state.appendingPathComponent("slow-started-1").path
        for _ in 0..<200 where !FileManager.default.fileExists(atPath: marker) { try await Task.sleep(nanoseconds: 25_000_000) }
        XCTAssertTrue(FileManager.default.fileExists(atPath: marker))
        let failures = await provisioner.releaseAll()
        XCTAssertEqual(failures, [])
        XCTAssertEqual(released(s), [], "nothing was created yet")
        let results = await creating.value
        guard case .failure(let error)? = results.first else { return XCTFail("a late host is not handed out") }
        XCTAssertTrue(error.message.contains("created while the run was ending; released it"), error.message)
        XCTAssertEqual(released(s), ["released-vm-1.json"])
    }

    func testANameAlreadyInTheFleetIsRefusedAndTheHostReleased() async throws {
        let s = try setup(count: 1, reserved: ["vm-1"])
        let results = await s.provisioner.createAll()
        guard case .failure(let error)? = results.first else { return XCTFail("duplicate name must fail") }
        XCTAssertTrue(error.message.contains("already used"), error.message)
        XCTAssertEqual(released(s), ["released-prov-1.json"])
    }

    func testParsingDefaultsAndKeyChecks() throws {
        let template = HostSpec(name: "provisioned", user: "admin")
        let json = #"{"address": "[fd00::5]", "hostKey": "\#(key) comment"}"#
        let host = try ProvisionedHost.parse(stdout: Array(json.utf8), index: 4, template: template, knownHostsFile: "/run/known_hosts")
        XCTAssertEqual(host.spec.name, "prov-4")
        XCTAssertEqual(host.spec.address, "fd00::5")
        XCTAssertEqual(host.spec.port, 22)
        XCTAssertEqual(host.spec.user, "admin")
        XCTAssertEqual(host.knownHostsLines, ["fd00::5 \(key)", "[fd00::5]:22 \(key)"])
        // An ed25519 blob labelled as RSA, truncated base64, and no user anywhere.
        let blob = String(key.split(separator: " ")[1])
        XCTAssertThrowsError(try ProvisionedHost.parse(stdout: Array(#"{"address": "h", "hostKey": "ssh-rsa \#(blob)"}"#.utf8), index: 1,
                                                       template: HostSpec(name: "t"), knownHostsFile: "/k")) { error in
            let problems = (error as? ProvisionFieldErrors)?.problems ?? []
            XCTAssertTrue(problems.contains { $0.contains("does not match its type ssh-rsa") }, "\(problems)")
            XCTAssertTrue(problems.contains { $0.contains("\"user\" is missing") }, "\(problems)")
        }
        XCTAssertThrowsError(try ProvisionedHost.parse(stdout: Array(#"[1, 2]"#.utf8), index: 1, template: template, knownHostsFile: "/k"))
        XCTAssertThrowsError(try ProvisionedHost.parse(stdout: [], index: 1, template: template, knownHostsFile: "/k")) { error in
            XCTAssertTrue((error as? ProvisionFieldErrors)?.problems.first?.contains("printed nothing") ?? false)
        }
    }
}
