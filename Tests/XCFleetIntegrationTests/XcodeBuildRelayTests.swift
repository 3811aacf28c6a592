import Foundation
import XCTest
@testable import XCFleetKit
import XCFleetTestSupport

/// Build once per fleet for Xcode jobs, between two real loopback sshd hosts: the relayed product
/// is a build's `DerivedData/Build/Products` folder. No Mac here: the folder is laid out by hand as
/// build-for-testing writes it — two real recorded `.xctestrun` files (`../shared/fixtures/discovery`)
/// and a stand-in bundle or executable at every path they name under `__TESTROOT__` — next to an
/// intermediates folder that must not travel. The real relay (`BuildRelay`, `build-relay.sh`) and
/// the real cache script on the receiving host decide.
final class XcodeBuildRelayTests: XCTestCase {
    private static let xctestruns = ["flank__Sample iOS_iphoneos13.2-arm64.xctestrun", "go-ios__format_version_2_multiple.xctestrun"]
    private static let identity = XcodeCachedBuild.identity(versionOutput: "Xcode 16.4\nBuild version 16F6\n",
                                                            developerDir: "/Applications/Xcode_16.4.app/Contents/Developer")
    private static let build = XcodeCachedBuild.buildForTesting(scheme: "App", destination: "generic/platform=iOS", developerDir: nil)

    private func workspace() throws -> Workspace {
        let manifest = SuiteManifest(suite: "app", template: "cache-contract", testTarget: "AppTests", mutant: nil)
        return Workspace(files: [WorkspaceFile(path: "Package.swift", contents: Data("// swift-tools-version:5.9\n".utf8)),
                                 WorkspaceFile(path: "Sources/App/App.swift", contents: Data("let app = 1\n".utf8)),
                                 WorkspaceFile(path: "xcfleet-manifest.json", contents: try JSONEncoder().encode(manifest))])
    }

    private func workRoot(_ path: String) throws -> String {
        for d in [path, path + "/builds", path + "/builds/.pins", path + "/jobs"] {
            try FileManager.default.createDirectory(atPath: d, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        }
        return path
    }

    /// A finished Xcode build as the source host's cache holds it: the package's files, and
    /// DerivedData with the products folder and intermediates. Returns the product digest as the
    /// cache script computes it (every regular file of the products folder, path and contents).
    private func finishedBuild(_ entry: String, _ ws: Workspace) throws -> String {
        let fm = FileManager.default
        try ws.write(to: URL(fileURLWithPath: entry))
        try fm.removeItem(atPath: entry + "/xcfleet-manifest.json") // steering files are not in a build
        let products = entry + "/DerivedData/Build/Products"
        try fm.createDirectory(atPath: products, withIntermediateDirectories: true)
        for name in Self.xctestruns {
            let recorded = try TestPaths.shared("fixtures/discovery/" + name)
            let text = try String(contentsOf: recorded, encoding: .utf8)
            // As Xcode names it in the products folder (the fixture's name has its project in front).
            try fm.copyItem(at: recorded, to: URL(fileURLWithPath: products + "/" + name.components(separatedBy: "__")[1]))
            let regex = try NSRegularExpression(pattern: "__TESTROOT__/([^<:]+)")
            for m in regex.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                let path = products + "/" + String(text[Range(m.range(at: 1), in: text)!])
                let last = (path as NSString).lastPathComponent
                if last.hasSuffix(".app") || last.hasSuffix(".xctest") {
                    // A bundle: its Info.plist and its executable, named after it.
                    try fm.createDirectory(atPath: path, withIntermediateDirectories: true)
                    try Data("<plist><dict><key>CFBundleName</key><string>\(last)</string></dict></plist>\n".utf8)
                        .write(to: URL(fileURLWithPath: path + "/Info.plist"))
                    try executable(path + "/" + (last as NSString).deletingPathExtension)
                } else {
                    try fm.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
                    try executable(path)
                }
            }
        }
        let intermediates = entry + "/DerivedData/Build/Intermediates.noindex/App.build"
        try fm.createDirectory(atPath: intermediates, withIntermediateDirectories: true)
        try Data(repeating: 7, count: 4096).write(to: URL(fileURLWithPath: intermediates + "/App.o"))
        return try TestShell.run("cd \(ShellQuote.quote(entry)) && find DerivedData/Build/Products -type f | LC_ALL=C sort | while IFS= read -r f; do sha256sum \"$f\"; done | sha256sum | cut -c1-64")
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    private func executable(_ path: String) throws {
        try Data("\u{7F}ELF stand-in for \((path as NSString).lastPathComponent)\n".utf8).write(to: URL(fileURLWithPath: path))
        XCTAssertEqual(chmod(path, 0o755), 0)
    }

    /// Regular files under `dir` (relative path → contents and executable bit).
    private func tree(_ dir: String) throws -> [String: (Data, Bool)] {
        var out: [String: (Data, Bool)] = [:]
        let e = FileManager.default.enumerator(atPath: dir)
        while let p = e?.nextObject() as? String {
            let full = dir + "/" + p
            var isDir: ObjCBool = false
            guard FileManager.default.fileExists(atPath: full, isDirectory: &isDir), !isDir.boolValue else { continue }
            out[p] = (try Data(contentsOf: URL(fileURLWithPath: full)), FileManager.default.isExecutableFile(atPath: full))
        }
        return out
    }

    private func refused(_ relay: BuildRelay, _ source: SSHShell, _ target: SSHShell, because why: String) async throws {
        do {
            _ = try await relay.run(from: source, to: target, deadlines: CommandDeadlines(total: 120, silence: 120))
            XCTFail("relayed, but should be refused: \(why)")
        } catch let e as BuildRelayError {
            XCTAssertTrue(e.description.contains(why), e.description)
        }
    }

    func testAnXcodeProductsFolderIsRelayedVerifiedAndUsedWithoutABuild() async throws {
        _ = try TestPaths.shared("fixtures/discovery")
        let dir = try TestPaths.temporaryDirectory("xcode-relay")
        defer { try? FileManager.default.removeItem(at: dir) }
        let source = try await TestHosts.shell(0, workRoot: try workRoot(dir.appendingPathComponent("mac-a").path))
        let target = try await TestHosts.shell(1, workRoot: try workRoot(dir.appendingPathComponent("mac-b").path))
        defer { Task { await source.close(); await target.close() } }
        let a = source.host, b = target.host

        let ws = try workspace()
        let cache = XcodeCachedBuild(workspace: ws, workRoot: b.workRoot, limits: CacheLimits(), jobDirectory: "")
        let key = cache.key(toolchain: Self.identity, build: Self.build, destination: "generic/platform=iOS")
        let entry = a.workRoot + "/builds/" + key.hex
        let digest = try finishedBuild(entry, ws)
        let products = entry + "/DerivedData/Build/Products"
        let built = try tree(products)
        XCTAssertGreaterThan(built.count, 25, "two .xctestrun files and the bundles they name")
        func relay(_ digest: String) -> BuildRelay {
            BuildRelay(key: key, digest: digest, toolchainDigest: BuildKey.toolchainDigest(Self.identity), productGlob: XcodeCachedBuild.productGlob,
                       workspace: ws, readOnly: false)
        }
        let deadlines = CommandDeadlines(total: 120, silence: 120)
        let installed = b.workRoot + "/builds/" + key.hex

        // A product that is not the one recorded (a file changed on the building host after its
        // digest was recorded) is refused by the receiving host, and nothing is installed.
        let app = products + "/Debug-iphoneos/FakeCounterApp.app/FakeCounterApp"
        let original = try Data(contentsOf: URL(fileURLWithPath: app))
        try Data("tampered\n".utf8).write(to: URL(fileURLWithPath: app))
        try await refused(relay(digest), source, target, because: "the test product differs from the SHA-256 xcfleet recorded")
        XCTAssertFalse(FileManager.default.fileExists(atPath: installed))
        try original.write(to: URL(fileURLWithPath: app))

        // The recorded product: installed as builds/<key> with every file of the products folder,
        // contents and executable bits, and nothing else of DerivedData.
        let done = try await relay(digest).run(from: source, to: target, deadlines: deadlines)
        XCTAssertEqual(done.files, built.count + 2, "the products and the two source files")
        let received = try tree(installed + "/DerivedData/Build/Products")
        XCTAssertEqual(Set(received.keys), Set(built.keys))
        for (path, (data, x)) in built {
            XCTAssertEqual(received[path]?.0, data, path)
            XCTAssertEqual(received[path]?.1, x, "executable bit of \(path)")
        }
        XCTAssertTrue(received.keys.contains("Sample iOS_iphoneos13.2-arm64.xctestrun"), "\(received.keys.sorted())")
        XCTAssertFalse(FileManager.default.fileExists(atPath: installed + "/DerivedData/Build/Intermediates.noindex"), "intermediates stay behind")

        // The receiving host's build step: the cache script finds the relayed build, trusts it by
        // the recorded digest and builds nothing (there is no xcodebuild on this PATH).
        let job = try await target.makeJobDirectory(jobID: "app-2")
        _ = try await target.push(ws, to: job)
        var receiving = cache
        receiving.jobDirectory = job
        receiving.trusted = [key.hex: digest]
        var command = receiving.command(toolchain: Self.identity, build: Self.build, destination: "generic/platform=iOS")
        command.environment["PATH"] = "/usr/bin:/bin"
        let out = OutputSink(limit: 1 << 20)
        let t = try await target.run(command, in: job, deadlines: deadlines) { out.add($0) }
        XCTAssertEqual(t, .exited(0), out.stdoutText + out.stderrText)
        XCTAssertTrue(out.stdoutText.contains("XCFLEET-BUILD origin cached"), out.stdoutText)
        XCTAssertTrue(out.stdoutText.contains("XCFLEET-BUILD digest \(digest)"), out.stdoutText)
        XCTAssertEqual(cache.derivedDataPath(key: key), installed + "/DerivedData")
        try? await target.removeJobDirectory(job)

        // A symbolic link in the products (a macOS framework's `Versions/Current`): the relay
        // carries regular files only, so it is refused before anything is sent.
        try FileManager.default.createSymbolicLink(atPath: products + "/Debug-iphoneos/Current", withDestinationPath: "FakeCounterApp.app")
        try FileManager.default.removeItem(atPath: installed)
        try await refused(relay(digest), source, target, because: "symbolic link (DerivedData/Build/Products/Debug-iphoneos/Current)")
        XCTAssertFalse(FileManager.default.fileExists(atPath: installed))
    }
}
