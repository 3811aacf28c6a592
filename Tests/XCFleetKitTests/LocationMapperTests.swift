import XCTest
@testable import XCFleetKit
import XCFleetTestSupport

/// Source maps of rendered packages and the one location mapper behind every report: host paths
/// in every spelling a host prints them, mutants, generated files, free text and events alone.
final class LocationMapperTests: XCTestCase {
    private let root = TemplateRoot(url: TestPaths.packageRoot)
    private let suite = SuiteSpec(name: "cache-gate", template: "cache-contract")

    private func renderedMap(mutant: String? = nil) throws -> SourceMap {
        let m = try mutant.map { id in try XCTUnwrap(MutantSpec.all(in: root).first { $0.id == id }) }
        return try Renderer(root: root).render(suite, mutant: m).sourceMap
    }

    func testEveryRenderedFileHasAnOriginThatExistsInTheRepository() throws {
        let rendered = try Renderer(root: root).render(suite)
        XCTAssertEqual(Set(rendered.sourceMap.entries.map(\.path)), Set(rendered.workspace.files.map(\.path)))
        var generated: [String] = []
        for e in rendered.sourceMap.entries {
            switch e.origin {
            case .template(let p), .core(let p):
                XCTAssertTrue(FileManager.default.fileExists(atPath: TestPaths.packageRoot.appendingPathComponent(p).path), p)
            case .generated(let name): generated.append(name)
            case .mutant: XCTFail("no mutant asked for")
            case .repository(let p): XCTFail("no team file in a gate without a subject: \(p)")
            }
        }
        XCTAssertEqual(generated.sorted(), ["XCFleetSettings.swift", "xcfleet-manifest.json"])
        XCTAssertEqual(rendered.sourceMap.entry("Tests/CacheContractTests/MemoryKeyTests.swift")?.origin, .template("Templates/cache-contract/MemoryKeyTests.swift"))
        XCTAssertEqual(rendered.sourceMap.entry("Sources/CacheContract/MemoryKey.swift")?.origin, .core("Sources/CacheContract/MemoryKey.swift"))
        XCTAssertEqual(rendered.sourceMap.entry("Package.swift")?.origin, .template("Templates/package/Package.swift"))
        // The map survives the event log's JSON.
        let data = try JSONEncoder().encode(RunEvent(seq: 1, t: 0, body: .sourceMap(jobID: "j", map: rendered.sourceMap)))
        XCTAssertEqual(try JSONDecoder().decode(RunEvent.self, from: data).body, .sourceMap(jobID: "j", map: rendered.sourceMap))
    }

    /// A team's package or Xcode project is pushed as it is: its source files map to themselves,
    /// whichever spelling the host prints (its job folder, the build cache's stage, Swift Testing's
    /// bare file name), and stay repository paths even when xcfleet's own templates are installed.
    func testATeamsPackageMapsEverySourceFileToItselfInTheRepository() throws {
        let map = SourceMap.identity(of: ["Packages/Core/Package.swift", "Packages/Core/Sources/Core/Cache.swift",
                                          "Packages/Core/Tests/CoreTests/CacheTests.swift", "Packages/Core/Tests/CoreTests/fixture.json",
                                          "App/App.xcodeproj/project.pbxproj", "App/Bridge/Bridge.m", "README.md",
                                          "A/Same.swift", "B/Same.swift"])
        XCTAssertEqual(map.entries.map(\.path), ["A/Same.swift", "App/Bridge/Bridge.m", "B/Same.swift", "Packages/Core/Package.swift",
                                                 "Packages/Core/Sources/Core/Cache.swift", "Packages/Core/Tests/CoreTests/CacheTests.swift"],
                       "source files only")
        XCTAssertEqual(map.entry("Packages/Core/Sources/Core/Cache.swift")?.origin, .repository("Packages/Core/Sources/Core/Cache.swift"))
        let mapper = LocationMapper(sourceMap: map, hostPrefixes: ["/w/core-1a2b3c4d"])
        for host in ["/w/core-1a2b3c4d/Packages/Core/Tests/CoreTests/CacheTests.swift",
                     "/root/.cache/xcfleet/builds/.stage/Packages/Core/Tests/CoreTests/CacheTests.swift",
                     "CacheTests.swift"] {
            let loc = mapper.map(file: host, line: 12)
            XCTAssertEqual(loc.kind, .repository, host)
            XCTAssertEqual(loc.path, "Packages/Core/Tests/CoreTests/CacheTests.swift", host)
            XCTAssertEqual(loc.line, 12, host)
        }
        XCTAssertEqual(mapper.map(file: "Same.swift", line: 1).kind, .host, "an ambiguous bare name stays as printed")
        XCTAssertEqual(mapper.map(file: "/usr/lib/swift/Other.swift", line: 1).kind, .host)
        var installed = map
        installed.base = .templates
        XCTAssertEqual(LocationMapper(sourceMap: installed).map(file: "/x/Packages/Core/Sources/Core/Cache.swift", line: 3).display,
                       "Packages/Core/Sources/Core/Cache.swift:3")
        let data = try JSONEncoder().encode(RunEvent(seq: 1, t: 0, body: .sourceMap(jobID: "j", map: map)))
        XCTAssertEqual(try JSONDecoder().decode(RunEvent.self, from: data).body, .sourceMap(jobID: "j", map: map))
    }

    func testAMutatedFileNamesTheMutantAndMapsLinesToTheOriginal() throws {
        // key-without-account deletes `hasher.combine(account)` (line 28) and joins lines 36–37 into one.
        let map = try renderedMap(mutant: "key-without-account")
        let entry = try XCTUnwrap(map.entry("Sources/CacheContract/MemoryKey.swift"))
        XCTAssertEqual(entry.origin, .mutant(id: "key-without-account", original: "Sources/CacheContract/MemoryKey.swift", replacement: nil))
        XCTAssertEqual(entry.edits, [LineEdit(renderedStart: 28, renderedCount: 0, originalStart: 28, originalCount: 1),
                                     LineEdit(renderedStart: 35, renderedCount: 1, originalStart: 36, originalCount: 2)])
        XCTAssertEqual(map.entry("Sources/CacheContract/CachedLoader.swift")?.origin, .core("Sources/CacheContract/CachedLoader.swift"))
        let mapper = LocationMapper(sourceMap: map, hostPrefixes: ["/w/jobs/j"])
        let file = "/w/jobs/j/Sources/CacheContract/MemoryKey.swift"
        XCTAssertEqual(mapper.map(file: file, line: 20).display, "Sources/CacheContract/MemoryKey.swift:20 (mutant key-without-account)")
        XCTAssertEqual(mapper.map(file: file, line: 36).line, 38)
        XCTAssertEqual(mapper.map(file: file, line: 36).repositoryPath, "Sources/CacheContract/MemoryKey.swift")
        let inside = mapper.map(file: file, line: 35)
        XCTAssertNil(inside.repositoryPath)
        XCTAssertEqual(inside.display, "mutant key-without-account of Sources/CacheContract/MemoryKey.swift (in the mutant's edit)")
        // The line really is the original's: same text on both sides.
        let original = try String(contentsOf: TestPaths.packageRoot.appendingPathComponent("Sources/CacheContract/MemoryKey.swift"), encoding: .utf8)
            .split(separator: "\n", omittingEmptySubsequences: false)
        let rendered = try Renderer(root: root).render(suite, mutant: XCTUnwrap(MutantSpec.all(in: root).first { $0.id == "key-without-account" }))
        let renderedLines = String(decoding: try XCTUnwrap(rendered.workspace.file("Sources/CacheContract/MemoryKey.swift")).contents, as: UTF8.self)
            .split(separator: "\n", omittingEmptySubsequences: false)
        for l in 1...renderedLines.count {
            if case .some(let o?) = entry.originalLine(l) { XCTAssertEqual(renderedLines[l - 1], original[o - 1], "rendered line \(l)") }
        }
    }

    func testAPatchedFileMapsLinesAroundItsEditsToTheOriginal() {
        // Lines 10–11 of the original became lines 10–12: after the edit, lines shift by one.
        let entry = SourceMapEntry(path: "Sources/CacheContract/MemoryKey.swift",
                                   origin: .mutant(id: "m", original: "Sources/CacheContract/MemoryKey.swift", replacement: nil),
                                   edits: [LineEdit(renderedStart: 10, renderedCount: 3, originalStart: 10, originalCount: 2)])
        let mapper = LocationMapper(sourceMap: SourceMap(base: .repository, entries: [entry]), hostPrefixes: ["/j"])
        let before = mapper.map(file: "/j/Sources/CacheContract/MemoryKey.swift", line: 4)
        XCTAssertEqual(before.display, "Sources/CacheContract/MemoryKey.swift:4 (mutant m)")
        XCTAssertEqual(mapper.map(file: "/j/Sources/CacheContract/MemoryKey.swift", line: 20).line, 19)
        let inside = mapper.map(file: "/j/Sources/CacheContract/MemoryKey.swift", line: 11)
        XCTAssertNil(inside.path)
        XCTAssertNil(inside.repositoryPath)
        XCTAssertEqual(inside.display, "mutant m of Sources/CacheContract/MemoryKey.swift (in the mutant's edit)")
    }

    func testEverySpellingOfAHostPathMapsToTheRepositoryFile() throws {
        let map = try renderedMap()
        let mapper = LocationMapper(sourceMap: map, hostPrefixes: ["/var/folders/7k/T/xcfleet/jobs/cache-gate-1a2b", "/home/ci/builds/.stage"])
        let want = "Templates/cache-contract/MemoryKeyTests.swift"
        for (spelling, line, column) in [
            ("/var/folders/7k/T/xcfleet/jobs/cache-gate-1a2b/Tests/CacheContractTests/MemoryKeyTests.swift", 72, nil as Int?),
            ("/private/var/folders/7k/T/xcfleet/jobs/cache-gate-1a2b/Tests/CacheContractTests/MemoryKeyTests.swift", 72, nil),
            ("/var/folders/7k/T/xcfleet//jobs/./cache-gate-1a2b/Tests/CacheContractTests/MemoryKeyTests.swift", 72, nil),
            ("file:///private/var/folders/7k/T/xcfleet/jobs/cache-gate-1a2b/Tests/CacheContractTests/MemoryKeyTests.swift#EndingLineNumber=71&StartingColumnNumber=4&StartingLineNumber=71", 72, 5),
            ("/home/ci/builds/.stage/Tests/CacheContractTests/MemoryKeyTests.swift", 72, nil),
            // Prefixes nobody recorded: a build cache folder, a symlinked work root, a bare file name.
            ("/Users/ci/xcfleet/builds/5f0c2a/Tests/CacheContractTests/MemoryKeyTests.swift", 72, nil),
            ("/Volumes/ssd/work root/jobs/other/Tests/CacheContractTests/MemoryKeyTests.swift", 72, nil),
            ("MemoryKeyTests.swift", 72, nil),
        ] {
            let loc = mapper.map(file: spelling, line: spelling.hasPrefix("file:") ? nil : 72)
            XCTAssertEqual(loc.kind, .repository, spelling)
            XCTAssertEqual(loc.path, want, spelling)
            XCTAssertEqual(loc.line, line, spelling)
            XCTAssertEqual(loc.column, column, spelling)
            XCTAssertEqual(loc.hostFile, spelling)
        }
        XCTAssertEqual(mapper.map(file: "/w/jobs/x/Sources/CacheContract/MemoryKey.swift", line: 3).path, "Sources/CacheContract/MemoryKey.swift")
        XCTAssertEqual(mapper.map(file: "CacheContract/MemoryKey.swift", line: 3).path, "Sources/CacheContract/MemoryKey.swift")
        // Not a file of the package: stays the host's path, never guessed from its name alone.
        XCTAssertEqual(mapper.map(file: "/usr/lib/swift/XCTest/XCTAssert.swift", line: 9).kind, .host)
        XCTAssertEqual(mapper.map(file: "/elsewhere/Other/MemoryKeyTests.swift", line: 9).kind, .host)
        XCTAssertEqual(mapper.map(file: "/var/folders/7k/T/xcfleet/jobs/cache-gate-1a2b/.build/debug/X.swift", line: 1).kind, .host)
    }

    func testGeneratedFilesAreLabelledNotPassedOffAsRepositoryFiles() throws {
        let mapper = LocationMapper(sourceMap: try renderedMap(), hostPrefixes: ["/w/jobs/j"])
        let loc = mapper.map(file: "/w/jobs/j/Tests/CacheContractTests/XCFleetSettings.swift", line: 3)
        XCTAssertEqual(loc.kind, .generated)
        XCTAssertNil(loc.repositoryPath)
        XCTAssertEqual(loc.display, "generated: XCFleetSettings.swift:3")
        let d = mapper.map(FailureDetail(file: loc.hostFile, line: 3, message: "boom"))
        XCTAssertEqual(d.file, loc.hostFile, "file keeps the host path; location says it is generated")
        XCTAssertEqual(ReportText.failureLine(d), "generated: XCFleetSettings.swift:3: boom")
    }

    func testFreeTextKeepsWordsAndRewritesPackagePaths() throws {
        let mapper = LocationMapper(sourceMap: try renderedMap(), hostPrefixes: ["/tmp/xcfleet-local/jobs/cache-gate-3c"])
        XCTAssertEqual(mapper.rewrite("CacheContract/SessionCoordinator.swift:66: Fatal error: boom"),
                       "Sources/CacheContract/SessionCoordinator.swift:66: Fatal error: boom")
        XCTAssertEqual(mapper.rewrite("error: Process '/tmp/xcfleet-local/jobs/cache-gate-3c/.build/debug/x.xctest' exited with unexpected signal code 4"),
                       "error: Process '(job folder)/.build/debug/x.xctest' exited with unexpected signal code 4")
        XCTAssertEqual(mapper.rewrite("at /tmp/xcfleet-local/jobs/cache-gate-3c/Tests/CacheContractTests/MemoryKeyTests.swift:12:5."),
                       "at Templates/cache-contract/MemoryKeyTests.swift:12.")
        XCTAssertEqual(mapper.rewrite("expected 1/2 at /usr/lib/x.swift:3, got Other.swift"), "expected 1/2 at /usr/lib/x.swift:3, got Other.swift")
        // A crash line glued to the end of a half-flushed stdout line.
        XCTAssertEqual(mapper.rewrite("Test Case 'x' started at 12:00:00.123CacheContract/SessionCoordinator.swift:66: Fatal error: boom"),
                       "Test Case 'x' started at 12:00:00.123Sources/CacheContract/SessionCoordinator.swift:66: Fatal error: boom")
        XCTAssertEqual(LocationMapper().rewrite("/tmp/a/Tests/CacheContractTests/MemoryKeyTests.swift:1"), "/tmp/a/Tests/CacheContractTests/MemoryKeyTests.swift:1")
    }

    func testSourceBaseIsTheGitTopLevelOrTheCheckoutOrLabelledTemplates() throws {
        let tmp = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("srcbase-\(UUID().uuidString.prefix(8))")
        defer { try? FileManager.default.removeItem(at: tmp) }
        let nested = tmp.appendingPathComponent("mono/tools/xcfleet")
        try FileManager.default.createDirectory(at: nested, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: tmp.appendingPathComponent("mono/.git"), withIntermediateDirectories: true)
        XCTAssertEqual(TemplateRoot(url: nested).sourceBase().base, .repository)
        XCTAssertEqual(TemplateRoot(url: nested).sourceBase().prefix, "tools/xcfleet/")
        let checkout = tmp.appendingPathComponent("copy")
        try FileManager.default.createDirectory(at: checkout, withIntermediateDirectories: true)
        try Data().write(to: checkout.appendingPathComponent("Package.swift"))
        XCTAssertEqual(TemplateRoot(url: checkout).sourceBase().base, .repository)
        XCTAssertEqual(TemplateRoot(url: checkout).sourceBase().prefix, "")
        let installed = tmp.appendingPathComponent("share/xcfleet")
        try FileManager.default.createDirectory(at: installed, withIntermediateDirectories: true)
        XCTAssertEqual(TemplateRoot(url: installed).sourceBase().base, .templates)
        // Installed: locations say so and are never annotated as repository files.
        let map = SourceMap(base: .templates, entries: [SourceMapEntry(path: "Sources/CacheContract/K.swift", origin: .core("Sources/CacheContract/K.swift"))])
        let loc = LocationMapper(sourceMap: map).map(file: "/j/Sources/CacheContract/K.swift", line: 2)
        XCTAssertEqual(loc.display, "xcfleet templates: Sources/CacheContract/K.swift:2")
        XCTAssertNil(loc.repositoryPath)
    }

    func testTheCollatorMapsFromTheEventsAloneAndOldLogsStayAsTheyWere() throws {
        let map = try renderedMap()
        let ref = AttemptRef(jobID: "cache-gate", attempt: 1)
        let id = TestIdentifier(suite: "CacheContractTests.MemoryKeyTests", name: "testC1_x")
        let host = "/private/tmp/w/jobs/cache-gate-1/Tests/CacheContractTests/MemoryKeyTests.swift"
        func events(mapped: Bool) -> [RunEvent] {
            var bodies: [RunEvent.Body] = [
                .runStarted(RunStarted(runID: "r", planName: "p", planPath: "p.json", startedAt: "", xcfleetVersion: "0", suites: [suite], hosts: ["h"])),
                .jobPlanned(JobPlanned(jobID: "cache-gate", suite: "cache-gate", kind: .gate, expectedTests: ["MemoryKeyTests/testC1_x"])),
            ]
            if mapped { bodies.append(.sourceMap(jobID: "cache-gate", map: map)) }
            bodies.append(.attemptStarted(ref, host: "h", slot: 0))
            if mapped { bodies.append(.hostPaths(ref, prefixes: ["/tmp/w/jobs/cache-gate-1"])) }
            bodies += [
                .test(ref, event: .testStarted(id, framework: .xctest)),
                .test(ref, event: .testFailure(id, file: host, line: 72, message: "XCTAssertFalse failed")),
                .test(ref, event: .testFinished(id, status: .failed, seconds: 0, framework: .xctest, clone: nil)),
                .test(ref, event: .buildError(file: "/tmp/w/jobs/cache-gate-1/Tests/CacheContractTests/XCFleetSettings.swift", line: 4, message: "warning as error")),
                .test(ref, event: .crash(message: "CacheContract/MemoryKey.swift:30: Fatal error: x")),
                .attemptEnded(ref, AttemptEnded(termination: .exited(1))), .runFinished(interrupted: false),
            ]
            return bodies.enumerated().map { RunEvent(seq: $0.offset + 1, t: 0, body: $0.element) }
        }
        let report = Collator().collate(events(mapped: true))
        let attempt = try XCTUnwrap(report.suites[0].jobs[0].decisive)
        let f = try XCTUnwrap(attempt.tests.first?.failures.first)
        XCTAssertEqual(f.file, "Templates/cache-contract/MemoryKeyTests.swift")
        XCTAssertEqual(f.line, 72)
        XCTAssertEqual(f.location?.hostFile, host)
        XCTAssertEqual(attempt.buildErrors.first.flatMap(ReportText.location), "generated: XCFleetSettings.swift:4")
        XCTAssertEqual(attempt.crashes, ["Sources/CacheContract/MemoryKey.swift:30: Fatal error: x"])
        XCTAssertTrue(attempt.problems.contains { $0.contains("Sources/CacheContract/MemoryKey.swift:30") }, "\(attempt.problems)")
        // The report rebuilds byte-identically from the same events.
        XCTAssertEqual(try JSONReportRenderer().render(report), try JSONReportRenderer().render(Collator().collate(events(mapped: true))))
        // A log written before source maps: nothing mapped, nothing lost.
        let old = Collator().collate(events(mapped: false))
        XCTAssertEqual(old.suites[0].jobs[0].decisive?.tests.first?.failures.first, FailureDetail(file: host, line: 72, message: "XCTAssertFalse failed"))
        let oldStart = #"{"runID":"r","planName":"p","planPath":"p","startedAt":"","xcfleetVersion":"0","suites":[],"hosts":[]}"#
        XCTAssertNil(try JSONDecoder().decode(RunStarted.self, from: Data(oldStart.utf8)).forge)
    }

    func testAnXcodeResultBundleWithPrivateVarPathsMapsToTheRepository() throws {
        let results = try XCResultParser.parseLegacy(invocation: XcodeFixtures.data("xcresult-legacy-invocation-private-var.json"),
                                                     tests: XcodeFixtures.data("xcresult-legacy-tests.json"))
        let ref = AttemptRef(jobID: "cache-gate", attempt: 1)
        var bodies: [RunEvent.Body] = [
            .runStarted(RunStarted(runID: "r", planName: "p", planPath: "p.json", startedAt: "", xcfleetVersion: "0", suites: [suite], hosts: ["mac"])),
            .jobPlanned(JobPlanned(jobID: "cache-gate", suite: "cache-gate", kind: .gate, expectedTests: [])),
            .sourceMap(jobID: "cache-gate", map: try renderedMap()),
            .attemptStarted(ref, host: "mac", slot: 0),
            // As the Mac's shell reports its job folder: /var/… (a symlink to /private/var/…), a space in the work root.
            .hostPaths(ref, prefixes: ["/var/folders/7k/x2_ab/T/xcfleet work/jobs/cache-gate-9f8e"]),
        ]
        bodies += XCResultParser.events(results).map { .test(ref, event: $0) }
        bodies += [.attemptEnded(ref, AttemptEnded(termination: .exited(65))), .runFinished(interrupted: false)]
        let report = Collator().collate(bodies.enumerated().map { RunEvent(seq: $0.offset + 1, t: 0, body: $0.element) })
        let failed = try XCTUnwrap(report.suites[0].jobs[0].decisive?.tests.first { $0.status == .failed })
        let f = try XCTUnwrap(failed.failures.first)
        XCTAssertEqual(f.file, "Templates/cache-contract/MemoryKeyTests.swift")
        XCTAssertEqual(f.line, 72, "StartingLineNumber=71 is 0-based")
        XCTAssertEqual(f.location?.hostFile, "/private/var/folders/7k/x2_ab/T/xcfleet work/jobs/cache-gate-9f8e/Tests/CacheContractTests/MemoryKeyTests.swift")
        let annotations = GitHubAnnotations.lines(report)
        XCTAssertTrue(annotations.contains { $0.hasPrefix("::error file=Templates/cache-contract/MemoryKeyTests.swift,line=72,") }, annotations.joined(separator: "\n"))
        // Xcode 16's test-results shape names only the file: the bare name still finds it.
        let modern = try XCResultParser.parseTestResults(XcodeFixtures.data("xcresult-test-results.json"))
        let bare = try XCTUnwrap(modern.flatMap(\.failures).first)
        XCTAssertEqual(LocationMapper(sourceMap: try renderedMap()).map(bare).file, "Templates/cache-contract/MemoryKeyTests.swift")
    }

    func testParseSourceRootArgument() throws {
        let tmp = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("srcroot-\(UUID().uuidString.prefix(8))").resolvingSymlinksInPath()
        defer { try? FileManager.default.removeItem(at: tmp) }
        try FileManager.default.createDirectory(at: tmp.appendingPathComponent(".git"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: tmp.appendingPathComponent("ios/App"), withIntermediateDirectories: true)
        XCTAssertEqual(LogParse.sourceRoot(argument: "/Users/runner/work/app/app=.", currentDirectory: tmp.path),
                       LocationMapper.SourceRoot(hostPrefix: "/Users/runner/work/app/app", repository: ""))
        XCTAssertEqual(LogParse.sourceRoot(argument: "/Users/runner/work/app/app/ios=ios/App", currentDirectory: tmp.path)?.repository, "ios/App")
        XCTAssertEqual(LogParse.sourceRoot(argument: "/x=\(tmp.path)/ios", currentDirectory: "/"), LocationMapper.SourceRoot(hostPrefix: "/x", repository: "ios"))
        XCTAssertNil(LogParse.sourceRoot(argument: "relative=.", currentDirectory: tmp.path))
        XCTAssertNil(LogParse.sourceRoot(argument: "/x=missing", currentDirectory: tmp.path))
        XCTAssertNil(LogParse.sourceRoot(argument: "/x", currentDirectory: tmp.path))
        let events: [TestEvent] = [
            .testFailure(TestIdentifier(suite: "AppTests", name: "testA"), file: "/private/Users/runner/work/app/app/ios/App/Tests/AppTests.swift", line: 9, message: "nope 1"),
            .testFailure(TestIdentifier(suite: "AppTests", name: "testA"), file: "/Users/runner/work/app/app/ios/App/Tests/AppTests.swift", line: 10, message: "nope 2"),
            .testFinished(TestIdentifier(suite: "AppTests", name: "testA"), status: .failed, seconds: nil, framework: .xctest, clone: nil),
        ]
        let report = LogParse.report(events: events, name: "log", sourceRoots: [LocationMapper.SourceRoot(hostPrefix: "/Users/runner/work/app/app/ios", repository: "ios")])
        let fs = report.suites[0].jobs[0].decisive?.tests.first?.failures ?? []
        XCTAssertEqual(fs.map(\.file), ["/private/Users/runner/work/app/app/ios/App/Tests/AppTests.swift", "ios/App/Tests/AppTests.swift"])
    }
}

extension LocationMapperTests {
    func testAJobFolderReachedThroughASymlinkStillMaps() throws {
        // The work root is a symlink: the fleet says …/link/…, the toolchain prints …/real/….
        let mapper = LocationMapper(sourceMap: try renderedMap(), hostPrefixes: ["/srv/link/cache-gate.Ab3dE9xZ"])
        XCTAssertEqual(mapper.map(file: "/srv/real/cache-gate.Ab3dE9xZ/Tests/CacheContractTests/XCFleetSettings.swift", line: 2).kind, .generated)
        XCTAssertEqual(mapper.rewrite("Process '/srv/real/cache-gate.Ab3dE9xZ/.build/debug/t.xctest' exited"), "Process '(job folder)/.build/debug/t.xctest' exited")
        // A generic folder name only matches as a whole prefix.
        let generic = LocationMapper(sourceMap: try renderedMap(), hostPrefixes: ["/srv/link/.stage"])
        XCTAssertEqual(generic.rewrite("'/srv/real/.stage/.build/t.xctest'"), "'/srv/real/.stage/.build/t.xctest'")
    }
}
