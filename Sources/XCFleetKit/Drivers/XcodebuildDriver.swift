import Foundation
import XCFleetModel
import XCFleetCore

/// Builds the `xcodebuild` command lines for a rendered package pushed to a Mac. Pure.
///
/// The package is opened by xcodebuild straight from its `Package.swift` (the job directory is the
/// working directory; no `-workspace`/`-project`). Scheme choice: xcodebuild names the schemes of
/// a package after its products; unless the only product has the package's own name it adds
/// `<PackageName>-Package`, which builds and tests every target (the rendered `xcfleet-<suite>`
/// package with its `CacheContract` product gets one). xcfleet asks `xcodebuild -list -json`
/// and takes, in order: `<PackageName>-Package`; a scheme named like the test target; the only
/// scheme. When the listing is unreadable it falls back to `<PackageName>-Package`.
public struct XcodebuildDriver: Equatable, Sendable {
    /// `DEVELOPER_DIR` (nil: the host's selected Xcode).
    public var developerDir: String?

    public init(developerDir: String?) {
        self.developerDir = developerDir
    }

    /// Result bundle and derived data live in the job directory, so removing it removes them.
    public static let resultBundleName = "result.xcresult"
    public static let derivedDataName = "DerivedData"

    /// `xcodebuild -list -json`, run in the package directory.
    public var listCommand: ShellCommand { command(["xcodebuild", "-list", "-json"]) }

    /// `xcodebuild test` for the package in `jobDirectory` (build and test in one; `XcodebuildJob`
    /// uses `buildForTestingCommand`, then `XcodeProjectCommands.testWithoutBuilding` of the discovered tests).
    ///
    /// - Parameters:
    ///   - destination: the `-destination` value (`platform=iOS Simulator,id=…` or `platform=macOS`).
    ///   - onlyTesting: `Class/test` names of a shard (nil or empty: every test).
    public func testCommand(scheme: String, destination: String, jobDirectory: String, testTarget: String,
                            onlyTesting: [String]? = nil) -> ShellCommand {
        var args = ["xcodebuild", "test",
                    "-scheme", scheme,
                    "-destination", destination,
                    "-derivedDataPath", XcodebuildDriver.join(jobDirectory, XcodebuildDriver.derivedDataName),
                    "-resultBundlePath", resultBundlePath(jobDirectory: jobDirectory)]
        if let onlyTesting, !onlyTesting.isEmpty {
            // `Module.Class/test` and `Class/test` give the same argument: keep one, in sorted order.
            args += Array(Set(ShardFilter.xcodebuildOnlyTesting(tests: onlyTesting, target: testTarget))).sorted()
        }
        args.append("CODE_SIGNING_ALLOWED=NO")
        return command(args)
    }

    /// `xcodebuild build-for-testing` into `derivedDataPath` (the host build cache's
    /// `<workRoot>/builds/<key>/DerivedData`, or the job's own): builds the package and its test
    /// bundles once and writes the `.xctestrun` into `<derivedDataPath>/Build/Products`.
    /// `destination` is the build destination (`XcodeDestination.buildValue`: generic for simulators).
    public func buildForTestingCommand(scheme: String, destination: String, derivedDataPath: String) -> ShellCommand {
        command(["xcodebuild", "build-for-testing",
                 "-scheme", scheme,
                 "-destination", destination,
                 "-derivedDataPath", derivedDataPath,
                 "CODE_SIGNING_ALLOWED=NO"])
    }

    /// `<derivedDataPath>/Build/Products`, where the `.xctestrun` and the built products are.
    public static func productsPath(derivedDataPath: String) -> String {
        join(join(derivedDataPath, "Build"), "Products")
    }

    /// Lists the products folder newest first, one name per line (for `XctestrunPicker`).
    public static func productsListingCommand(derivedDataPath: String) -> ShellCommand {
        ShellCommand(["ls", "-1t", productsPath(derivedDataPath: derivedDataPath)])
    }

    public func resultBundlePath(jobDirectory: String) -> String {
        XcodebuildDriver.join(jobDirectory, XcodebuildDriver.resultBundleName)
    }

    /// The scheme to test, from `xcodebuild -list -json` output (see the type's comment).
    public static func chooseScheme(listOutput: String, packageName: String, testTarget: String) -> String {
        let fallback = packageName + "-Package"
        guard let schemes = schemes(listOutput: listOutput), !schemes.isEmpty else { return fallback }
        if schemes.contains(fallback) { return fallback }
        if schemes.contains(testTarget) { return testTarget }
        if schemes.count == 1, let only = schemes.first { return only }
        return fallback
    }

    /// Scheme names from `xcodebuild -list -json` (`{"workspace":{"schemes":[…]}}` for a package,
    /// `{"project":{"schemes":[…]}}` for a project). xcodebuild may print notes before the JSON.
    public static func schemes(listOutput: String) -> [String]? {
        guard let start = listOutput.firstIndex(of: "{"), let end = listOutput.lastIndex(of: "}"), start < end,
              let object = try? JSONSerialization.jsonObject(with: Data(listOutput[start...end].utf8)) as? [String: Any] else { return nil }
        for key in ["workspace", "project"] {
            if let container = object[key] as? [String: Any], let schemes = container["schemes"] as? [String] { return schemes }
        }
        return nil
    }

    private func command(_ args: [String]) -> ShellCommand {
        ShellCommand(args, environment: developerDir.map { ["DEVELOPER_DIR": $0] } ?? [:])
    }

    static func join(_ dir: String, _ name: String) -> String {
        dir.hasSuffix("/") ? dir + name : dir + "/" + name
    }
}
