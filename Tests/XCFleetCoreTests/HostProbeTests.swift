import XCTest
@testable import XCFleetBasics
@testable import XCFleetModel
@testable import XCFleetCore
import XCFleetTestSupport

/// `HostProbe.judge`, check by check, on facts as the probe command prints them.
final class HostProbeTests: XCTestCase {
    private static let df = ["Filesystem     1024-blocks      Used Available Capacity  Mounted on",
                             "/dev/disk3s5     482797652 301234567 150000000    67%    /System/Volumes/Data"]
    private static let free: Int64 = 150_000_000 * 1024

    private func facts(system: String? = "Darwin arm64", disk: HostProbe.Section? = .init(status: 0, lines: df),
                       privacy: HostProbe.Section? = .init(status: 0),
                       toolchain: HostProbe.Section? = .init(status: 0, lines: ["Xcode 16.4", "Build version 16F6"])) -> HostProbe.Facts {
        HostProbe.Facts(system: system, os: "macOS 15.5", disk: disk, privacy: privacy, toolchain: toolchain)
    }

    private func mac(labels: [String] = ["platform:macos"], xcode: String? = "16.4",
                     developerDir: String? = "/Applications/Xcode_16.4.app/Contents/Developer") -> HostSpec {
        HostSpec(name: "mac-1", labels: labels, workRoot: "/Users/ci/xcfleet", toolchain: ToolchainSpec(developerDir: developerDir, xcode: xcode))
    }

    private func judge(_ facts: HostProbe.Facts, _ host: HostSpec, minimum: Int64 = 1 << 30) -> [HostProbe.Check] {
        HostProbe.judge(facts, HostProbe.Requirements(host: host, minimumFreeBytes: minimum))
    }

    private func failed(_ checks: [HostProbe.Check]) -> [String: String] {
        Dictionary(checks.filter { !$0.ok }.map { ($0.name, $0.detail) }, uniquingKeysWith: { a, _ in a })
    }

    func testAHealthyMacPassesEveryCheckInOrder() {
        var f = facts()
        f.cpu = .init(lines: ["Apple M2 Pro", "12"])
        f.latencyMs = 3.6
        let checks = judge(f, mac(labels: ["platform:macos", "xcode:16.4", "combine"]))
        XCTAssertEqual(checks.map(\.name), ["system", "labels", "disk", "workRoot", "toolchain", "xcode", "cpu", "latency"])
        XCTAssertEqual(checks.map(\.name), HostProbe.checkNames.filter { $0 != "output" })
        XCTAssertTrue(checks.allSatisfy(\.ok), "\(checks)")
        XCTAssertEqual(HostProbe.problems(checks), [])
        XCTAssertEqual(checks[0].detail, "Darwin arm64 macOS 15.5")
        XCTAssertEqual(checks[1].detail, "platform:macos, xcode:16.4 agree with the host")
        XCTAssertEqual(checks[2].detail, "146484 MB free under /Users/ci/xcfleet (needs 1024 MB)")
        XCTAssertEqual(checks[3].detail, "/Users/ci/xcfleet is private to the login user")
        XCTAssertEqual(checks[4].detail, "Xcode 16.4")
        XCTAssertEqual(checks[5].detail, "16.4 (16F6) in /Applications/Xcode_16.4.app/Contents/Developer")
        XCTAssertEqual(checks[6].detail, "Apple M2 Pro ×12")
        XCTAssertEqual(checks[7].detail, "4 ms to the first byte")
    }

    func testOutputCutShortIsTheOnlyCheck() {
        var f = facts()
        f.complete = false
        f.tail = "@@uname\nDarwin"
        let checks = judge(f, mac())
        XCTAssertEqual(checks, [HostProbe.Check("output", ok: false, "health check output was cut short: @@uname⏎Darwin; check that the host's shell runs POSIX sh")])
        XCTAssertEqual(HostProbe.parse("@@uname\nDarwin arm64\n").complete, false)
    }

    func testPlatformLabelsAgainstTheSystem() {
        XCTAssertEqual(failed(judge(facts(system: "Linux x86_64"), mac(developerDir: nil)))["labels"],
                       "labelled platform:macos but the host runs Linux x86_64; fix the host's labels")
        XCTAssertEqual(failed(judge(facts(), mac(labels: ["platform:linux"])))["labels"],
                       "labelled platform:linux but the host runs Darwin arm64; fix the host's labels")
        XCTAssertEqual(failed(judge(facts(), mac(labels: ["platform:linux", "platform:macos"])))["labels"],
                       "labelled platform:linux but the host runs Darwin arm64; fix the host's labels", "both labels cannot be right")
        XCTAssertNil(failed(judge(facts(), mac(labels: ["platform:ios"])))["labels"], "a platform xcfleet does not know is not held against the host")
        XCTAssertNil(failed(judge(facts(system: nil), mac()))["labels"], "no system reported: nothing to compare")
        XCTAssertEqual(judge(facts(), mac(labels: []))[1], HostProbe.Check("labels", ok: true, "no platform: or xcode: labels to check"))
    }

    func testXcodeLabelsAgainstTheFleetsXcodeAndTheReportedOne() {
        XCTAssertEqual(failed(judge(facts(), mac(labels: ["xcode:15.2"])))["labels"],
                       "labelled xcode:15.2 but \"toolchain.xcode\" is 16.4; fix the host's labels or \"toolchain.xcode\"")
        XCTAssertEqual(failed(judge(facts(), mac(labels: ["xcode:15.2"])))["xcode"],
                       "labelled xcode:15.2 but /Applications/Xcode_16.4.app/Contents/Developer has Xcode 16.4; fix the host's labels or \"developerDir\"")
        XCTAssertEqual(failed(judge(facts(), mac(labels: ["xcode:16"]))), [:], "xcode:16 accepts 16.4")
        XCTAssertEqual(failed(judge(facts(), mac(labels: ["xcode:16F6"], xcode: nil))), [:], "a build number matches the build")
        XCTAssertEqual(failed(judge(facts(), mac(xcode: "15.2")))["xcode"],
                       "expected Xcode 15.2 but /Applications/Xcode_16.4.app/Contents/Developer has Xcode 16.4; fix \"toolchain.xcode\" or \"developerDir\"")
        XCTAssertEqual(failed(judge(facts(), mac(labels: ["xcode:15.2"], xcode: "15.2")))["xcode"],
                       "expected Xcode 15.2 but /Applications/Xcode_16.4.app/Contents/Developer has Xcode 16.4; fix \"toolchain.xcode\" or \"developerDir\"; "
                       + "labelled xcode:15.2 but /Applications/Xcode_16.4.app/Contents/Developer has Xcode 16.4; fix the host's labels or \"developerDir\"")
        let odd = facts(toolchain: .init(status: 0, lines: ["xcodebuild: warning: odd output"]))
        XCTAssertNotNil(failed(judge(odd, mac()))["xcode"], "no Xcode version in the output satisfies nothing")
        let swiftHost = HostSpec(name: "l", labels: ["xcode:16.4"], toolchain: ToolchainSpec(swiftPath: "/usr/bin/swift"))
        let linux = facts(system: "Linux x86_64", toolchain: .init(status: 0, lines: ["Swift version 6.3.1"]))
        XCTAssertFalse(judge(linux, swiftHost).map(\.name).contains("xcode"), "no DEVELOPER_DIR: the Xcode in use is not known from the probe")
    }

    func testFreeDiskAgainstTheMinimum() {
        XCTAssertEqual(failed(judge(facts(), mac(), minimum: Self.free + 1))["disk"],
                       "only 146484 MB free under /Users/ci/xcfleet (needs 146484 MB); free some disk space or lower the fleet's \"minFreeDiskBytes\"")
        XCTAssertNil(failed(judge(facts(), mac(), minimum: Self.free))["disk"], "exactly the minimum is enough")
        XCTAssertNil(failed(judge(facts(), mac(), minimum: 0))["disk"])
        XCTAssertEqual(failed(judge(facts(disk: .init(status: 1, lines: ["cannot create /Users/ci/xcfleet"])), mac()))["disk"],
                       "cannot read free disk space under /Users/ci/xcfleet: cannot create /Users/ci/xcfleet; check the host's \"workRoot\"")
        XCTAssertNotNil(failed(judge(facts(disk: .init(status: 0, lines: ["garbage"])), mac()))["disk"], "unreadable df output")
        XCTAssertFalse(judge(facts(disk: nil), mac()).map(\.name).contains("disk"), "a missing section is not judged")
        XCTAssertNil(HostProbe.freeBytes(dfLines: ["Filesystem 1024-blocks Used Available Capacity Mounted on", "garbage"]))
        XCTAssertEqual(HostProbe.freeBytes(dfLines: ["h", "fs 1 1 99999999999999999 1% /"]), Int64.max)
        XCTAssertEqual(HostProbe.freeBytes(dfLines: ["h", "/dev/x 1 1 5 1% /Volumes/CI Disk"]), 5 * 1024, "a mount point with a space")
        XCTAssertNil(HostProbe.freeBytes(dfLines: ["h", "/dev/x 1 1 five 1% /"]))
    }

    func testWorkRootPrivacy() {
        let line = "xcfleet: refusing work directory /Users/ci/xcfleet: group- or world-writable; run chmod go-w '/Users/ci/xcfleet' or choose another workRoot"
        XCTAssertEqual(failed(judge(facts(privacy: .init(status: 1, lines: [line])), mac()))["workRoot"],
                       "refusing work directory /Users/ci/xcfleet: group- or world-writable; run chmod go-w '/Users/ci/xcfleet' or choose another workRoot")
        XCTAssertEqual(failed(judge(facts(privacy: .init(status: 1)), mac()))["workRoot"],
                       "the work root /Users/ci/xcfleet is not private; run chmod 700 on it or choose another workRoot")
        XCTAssertFalse(judge(facts(privacy: nil), mac()).map(\.name).contains("workRoot"))
    }

    func testToolchain() {
        let missing = facts(toolchain: .init(status: 127, lines: ["sh: 1: /opt/swift/bin/swift: not found"]))
        let linux = HostSpec(name: "l", toolchain: ToolchainSpec(swiftPath: "/opt/swift/bin/swift"))
        XCTAssertEqual(failed(judge(missing, linux))["toolchain"],
                       "toolchain missing: /opt/swift/bin/swift --version failed (status 127): sh: 1: /opt/swift/bin/swift: not found; fix \"toolchain\" for this host")
        XCTAssertEqual(failed(judge(facts(toolchain: .init(status: 1)), mac()))["toolchain"],
                       "toolchain missing: xcodebuild -version with DEVELOPER_DIR=/Applications/Xcode_16.4.app/Contents/Developer failed (status 1); fix \"toolchain\" for this host")
        XCTAssertNotNil(failed(judge(facts(toolchain: .init(status: 0, lines: [" "])), linux))["toolchain"], "status 0 but nothing printed")
        XCTAssertEqual(judge(facts(toolchain: .init(status: 1)), mac()).map(\.name).contains("xcode"), false, "no Xcode check without a toolchain")
    }

    func testEveryProblemIsOneLineThatSaysWhatToFix() {
        var f = facts(system: "Linux x86_64", disk: .init(status: 0, lines: Self.df),
                      privacy: .init(status: 1, lines: ["xcfleet: refusing work directory /w: group- or world-writable; run chmod go-w '/w' or choose another workRoot"]),
                      toolchain: .init(status: 0, lines: ["Xcode 15.0"]))
        f.latencyMs = 1
        let problems = HostProbe.problems(judge(f, mac(labels: ["platform:macos", "xcode:16.4"]), minimum: .max))
        XCTAssertEqual(problems.count, 4, "labels, disk, workRoot, xcode: \(problems)")
        for p in problems {
            XCTAssertFalse(p.contains("\n"), p)
            XCTAssertTrue(p.contains("fix") || p.contains("free some") || p.contains("chmod"), p)
        }
    }

    func testParseReadsEverySection() {
        let out = "noise before\n@@uname\nDarwin arm64\n@@os\nmacOS 15.5\n@@df 0\n\(Self.df.joined(separator: "\n"))\n@@private 0\n"
            + "@@toolchain 0\nXcode 16.4\nBuild version 16F6\n@@cpu\nApple M2 Pro\n12\n@@end\n"
        let f = HostProbe.parse(out)
        XCTAssertEqual(f, HostProbe.Facts(complete: true, tail: String(out.suffix(300)), system: "Darwin arm64", os: "macOS 15.5",
                                          disk: .init(status: 0, lines: Self.df), privacy: .init(status: 0, lines: []),
                                          toolchain: .init(status: 0, lines: ["Xcode 16.4", "Build version 16F6"]),
                                          cpu: .init(lines: ["Apple M2 Pro", "12"])))
        XCTAssertEqual(HostProbe.freeBytes(f), Self.free)
        XCTAssertEqual(HostProbe.cpu(f), "Apple M2 Pro ×12")
        XCTAssertEqual(HostProbe.toolchainVersion(f), "Xcode 16.4")
        XCTAssertEqual(HostProbe.parse("@@df x\n@@end\n").disk, .init(status: nil, lines: []), "a status that is not a number")
        XCTAssertEqual(HostProbe.parse("").complete, false)
    }
}
