import Foundation
import XCFleetBasics
import XCFleetModel

/// `xcfleet hosts check --deep`: runs the whole test path once on a tiny generated package and
/// says, step by step, what is proven on this host — with the exact command and the first lines
/// of its output — so that a team's first real Mac tells us and them which Apple-side code paths
/// hold. A pure machine: `next()` gives the step to run, `record` judges what it printed; a
/// step whose input an earlier failure took away is reported as not tried, never as proven.
public struct DeepCheck: Sendable {
    public enum Platform: Equatable, Sendable {
        case linux(swiftPath: String)
        /// `simulator`: the configured simulator destination to boot under a deadline, if any.
        case apple(developerDir: String?, simulator: XcodeDestination?)
    }

    public struct Step: Equatable, Sendable {
        public var name: String
        public var command: ShellCommand
        public var deadlines: CommandDeadlines
    }

    public struct Outcome: Equatable, Sendable, Codable {
        public var name: String
        public var proven: Bool
        /// The command as a shell line (for the user to run by hand).
        public var command: String
        /// The first lines the command printed (sanitized by the caller before a terminal).
        public var firstLines: [String]
        /// What was found, or what failed.
        public var detail: String

        public init(name: String, proven: Bool, command: String, firstLines: [String], detail: String) {
            self.name = name
            self.proven = proven
            self.command = command
            self.firstLines = firstLines
            self.detail = detail
        }
    }

    /// The generated package: one XCTest and one Swift Testing test that must both be found and pass.
    public static let packageName = "XCFleetProbe"
    public static let expectedTests: Set<String> = ["XCFleetProbeTests/ProbeXCTests/testAdds", "XCFleetProbeTests/probeAdds()"]
    public static let package = Workspace(files: [
        WorkspaceFile(path: "Package.swift", contents: Data("""
            // swift-tools-version:5.9
            import PackageDescription

            let package = Package(
                name: "XCFleetProbe",
                products: [.library(name: "XCFleetProbe", targets: ["XCFleetProbe"])],
                targets: [
                    .target(name: "XCFleetProbe"),
                    .testTarget(name: "XCFleetProbeTests", dependencies: ["XCFleetProbe"]),
                ]
            )

            """.utf8)),
        WorkspaceFile(path: "Sources/XCFleetProbe/Probe.swift", contents: Data("""
            public func probeAdd(_ a: Int, _ b: Int) -> Int { a + b }

            """.utf8)),
        WorkspaceFile(path: "Tests/XCFleetProbeTests/ProbeTests.swift", contents: Data("""
            import Testing
            import XCTest
            @testable import XCFleetProbe

            final class ProbeXCTests: XCTestCase {
                func testAdds() { XCTAssertEqual(probeAdd(2, 3), 5) }
            }

            @Test func probeAdds() { #expect(probeAdd(2, 3) == 5) }

            """.utf8)),
    ])

    public static let outputLines = 6
    static let derivedData = "DerivedData"
    static let resultBundle = "probe.xcresult"
    static let enumeration = "tests.json"

    private enum Stage: Equatable {
        case linuxVersion, linuxBuild, linuxList, linuxTest
        case xcodeVersion, xcodeList, xcodeBuild, xcodeProducts, xcodeEnumerate, xcodeReadEnumeration, xcodeTest, xcodeResults
        case simulatorList, simulatorBoot(udid: String), simulatorShutdown(udid: String)
        case done
    }

    private let platform: Platform
    private let chooseScheme: @Sendable (String) -> String
    private var stage: Stage
    private var scheme = DeepCheck.packageName
    private var xctestrun: String?
    /// The booted simulator (a simulator destination is tested on it, then shut down).
    private var udid: String?
    private var current: Step?
    public private(set) var outcomes: [Outcome] = []

    /// `chooseScheme` picks the package's test scheme from `xcodebuild -list -json` output.
    public init(platform: Platform, chooseScheme: @escaping @Sendable (String) -> String = { _ in DeepCheck.packageName }) {
        self.platform = platform
        self.chooseScheme = chooseScheme
        switch platform {
        case .linux: stage = .linuxVersion
        case .apple: stage = .xcodeVersion
        }
    }

    /// Every step was proven (and there was at least one).
    public var allProven: Bool { !outcomes.isEmpty && outcomes.allSatisfy(\.proven) }

    /// The configured simulator, else this Mac.
    private var target: XcodeDestination {
        if case .apple(_, let sim?) = platform { return sim }
        return .macOS(arch: nil, variant: nil)
    }
    private var destination: String { target.xcodebuildValue(udid: udid) }

    private func swift(_ args: [String]) -> ShellCommand {
        if case .linux(let path) = platform { return ShellCommand([path] + args) }
        return ShellCommand(["swift"] + args)
    }

    private func apple(_ args: [String]) -> ShellCommand {
        if case .apple(let dir?, _) = platform { return ShellCommand(args, environment: ["DEVELOPER_DIR": dir]) }
        return ShellCommand(args)
    }

    /// The next command to run in the job directory holding `package`; nil when done.
    public mutating func next() -> Step? {
        let minute = CommandDeadlines(total: 60, silence: 60)
        let build = CommandDeadlines(total: 900, silence: 600)
        let step: Step?
        switch stage {
        case .linuxVersion: step = Step(name: "toolchain", command: swift(["--version"]), deadlines: minute)
        case .linuxBuild: step = Step(name: "build for testing", command: swift(["build", "--build-tests"]), deadlines: build)
        case .linuxList: step = Step(name: "test discovery", command: swift(["test", "list", "--skip-build"]), deadlines: build)
        case .linuxTest: step = Step(name: "test run", command: swift(["test", "--skip-build"]), deadlines: build)
        case .xcodeVersion: step = Step(name: "xcode", command: apple(["xcodebuild", "-version"]), deadlines: minute)
        case .xcodeList: step = Step(name: "schemes", command: apple(["xcodebuild", "-list", "-json"]), deadlines: minute)
        case .xcodeBuild:
            var args = ["xcodebuild", "build-for-testing", "-scheme", scheme, "-destination", destination,
                        "-derivedDataPath", Self.derivedData, "CODE_SIGNING_ALLOWED=NO"]
            if case .apple(_, let sim?) = platform { args[5] = sim.buildValue }
            step = Step(name: "build-for-testing", command: apple(args), deadlines: build)
        case .xcodeProducts:
            step = Step(name: "xctestrun", command: ShellCommand(["ls", "-1t", "\(Self.derivedData)/Build/Products"]), deadlines: minute)
        case .xcodeEnumerate:
            var c = XcodeProjectCommands.enumerateTests(xctestrun: xctestrun ?? "", destination: destination, outputPath: Self.enumeration)
            if case .apple(let dir?, _) = platform { c.environment["DEVELOPER_DIR"] = dir }
            step = Step(name: "test enumeration", command: c, deadlines: build)
        case .xcodeReadEnumeration:
            step = Step(name: "enumerated tests", command: ShellCommand(["cat", Self.enumeration]), deadlines: minute)
        case .xcodeTest:
            var c = XcodeProjectCommands.testWithoutBuilding(xctestrun: xctestrun ?? "", destination: destination, resultBundlePath: Self.resultBundle)
            if case .apple(let dir?, _) = platform { c.environment["DEVELOPER_DIR"] = dir }
            step = Step(name: "test-without-building", command: c, deadlines: build)
        case .xcodeResults:
            let dir: String? = { if case .apple(let d, _) = platform { return d }; return nil }()
            step = Step(name: "xcresulttool", command: XCResultParser.testResultsCommand(bundle: Self.resultBundle, developerDir: dir), deadlines: minute)
        case .simulatorList:
            step = Step(name: "simulators", command: apple(["xcrun", "simctl", "list", "devices", "available", "-j"]), deadlines: minute)
        case .simulatorBoot(let udid):
            step = Step(name: "simulator boot", command: apple(["xcrun", "simctl", "bootstatus", udid, "-b"]), deadlines: CommandDeadlines(total: 300, silence: 300))
        case .simulatorShutdown(let udid):
            step = Step(name: "simulator shutdown", command: apple(["xcrun", "simctl", "shutdown", udid]), deadlines: minute)
        case .done: step = nil
        }
        current = step
        return step
    }

    /// Judges what the current step printed and moves on.
    @discardableResult
    public mutating func record(_ termination: CommandTermination, output: String) -> Outcome? {
        guard let step = current else { return nil }
        current = nil
        let lines = output.split(whereSeparator: \.isNewline).map(String.init).filter { !$0.allSatisfy(\.isWhitespace) }
        let exitedZero = termination == .exited(0)
        var proven = exitedZero
        var detail = exitedZero ? "exit 0" : "\(termination)"
        var next: Stage
        switch stage {
        case .linuxVersion:
            proven = exitedZero && lines.first?.contains("Swift version") == true
            detail = lines.first ?? detail
            next = proven ? .linuxBuild : .done
        case .linuxBuild:
            next = proven ? .linuxList : .done
        case .linuxList, .xcodeReadEnumeration:
            var found: Set<String> = []
            if stage == .linuxList {
                found = Set(SwiftTestList.parse(output).map(\.onlyTestingIdentifier))
            } else {
                do {
                    let e = try XcodeTestEnumeration.parse(Data(output.utf8), file: Self.enumeration, swiftTestingTargets: [])
                    if !e.errors.isEmpty { proven = false; detail = "errors: " + e.errors.joined(separator: "; ") }
                    // The enumeration writes XCTest methods as `test()` too; compare without parentheses for XCTest.
                    found = Set(e.tests.map { $0.onlyTestingIdentifier.hasSuffix("/testAdds()") ? String($0.onlyTestingIdentifier.dropLast(2)) : $0.onlyTestingIdentifier })
                } catch {
                    proven = false; detail = error.userMessage
                }
            }
            if proven {
                proven = found == Self.expectedTests
                detail = proven ? "found both tests (XCTest and Swift Testing)"
                    : "expected \(Self.expectedTests.sorted().joined(separator: ", ")), found \(found.sorted().joined(separator: ", "))"
            }
            next = proven ? (stage == .linuxList ? .linuxTest : .xcodeTest) : (stage == .linuxList ? .done : shutdownOrDone())
        case .linuxTest, .xcodeTest:
            if exitedZero {
                let passed = Self.passedTests(output)
                proven = passed.count >= 2
                detail = proven ? "\(passed.count) tests passed" : "exit 0 but the output showed \(passed.count) passing tests of 2"
            }
            if stage == .linuxTest { next = .done } else { next = proven ? .xcodeResults : shutdownOrDone() }
        case .xcodeVersion:
            proven = exitedZero && lines.first?.hasPrefix("Xcode ") == true
            detail = lines.first ?? detail
            next = proven ? .xcodeList : .done
        case .xcodeList:
            if proven { scheme = chooseScheme(output); detail = "scheme \(scheme)" }
            next = proven ? .xcodeBuild : .done
        case .xcodeBuild:
            next = proven ? .xcodeProducts : .done
        case .xcodeProducts:
            if proven {
                do {
                    let file = try XctestrunPicker.choose(listing: output, destination: target,
                                                          preferredSchemes: [scheme, Self.packageName + "-Package", Self.packageName],
                                                          productsPath: "\(Self.derivedData)/Build/Products")
                    xctestrun = "\(Self.derivedData)/Build/Products/\(file)"
                    detail = file
                } catch {
                    proven = false; detail = "\(error)"
                }
            }
            next = proven ? (needsSimulator ? .simulatorList : .xcodeEnumerate) : .done
        case .xcodeEnumerate:
            next = proven ? .xcodeReadEnumeration : shutdownOrDone()
        case .xcodeResults:
            if proven {
                do {
                    let results = try XCResultParser.parseTestResults(Data(output.utf8))
                    let passed = results.filter { $0.status == .passed }.count
                    proven = passed >= 2
                    detail = "\(results.count) tests in the result bundle, \(passed) passed"
                } catch {
                    proven = false; detail = "\(error)"
                }
            }
            next = shutdownOrDone()
        case .simulatorList:
            next = .done
            if proven {
                guard case .apple(_, let sim?) = platform, let devices = try? SimctlJSON.devices(Data(output.utf8)) else {
                    proven = false; detail = "simctl printed no device list"; break
                }
                let wanted: SimDevice?
                switch sim {
                case .simulatorID(_, let udid): wanted = devices.first { $0.udid == udid }
                case .simulator(_, let name, _): wanted = devices.first { $0.name == name && $0.isAvailable }
                case .macOS: wanted = nil
                }
                if let d = wanted { detail = "\(d.name) \(d.udid) (\(d.state))"; next = .simulatorBoot(udid: d.udid) }
                else { proven = false; detail = "no available simulator for \(sim.xcodebuildValue(udid: nil))" }
            }
        case .simulatorBoot(let booted):
            if proven { udid = booted; detail = "booted within \(Int(step.deadlines.total)) s"; next = .xcodeEnumerate }
            else { next = .simulatorShutdown(udid: booted) }
        case .simulatorShutdown, .done:
            next = .done
        }
        stage = next
        let outcome = Outcome(name: step.name, proven: proven, command: XcodeCommandLine.render(step.command),
                              firstLines: Array(lines.prefix(Self.outputLines)), detail: detail)
        outcomes.append(outcome)
        return outcome
    }

    private var needsSimulator: Bool {
        if case .apple(_, let sim?) = platform { return sim.needsSimulator }
        return false
    }

    /// After the tests: the booted simulator is shut down again.
    private func shutdownOrDone() -> Stage { udid.map { .simulatorShutdown(udid: $0) } ?? .done }

    /// Tests the output shows passing (XCTest and Swift Testing, through the one parser).
    static func passedTests(_ output: String) -> Set<String> {
        var parser = OutputParser()
        var events = parser.consume(Array(output.utf8))
        events += parser.finish()
        var passed: Set<String> = []
        for e in events {
            if case .testFinished(let id, let status, _, _, _) = e, status == .passed { passed.insert(id.description) }
        }
        return passed
    }
}
