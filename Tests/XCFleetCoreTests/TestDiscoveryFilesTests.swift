import Foundation
import XCTest
@testable import XCFleetCore
import XCFleetBasics
import XCFleetTestSupport

/// The readers of what Xcode and SwiftPM say about tests: `.xctestrun`, `.xctestplan`,
/// `.xcscheme`, `-enumerate-tests` JSON and `swift test list`. Real files from six projects
/// (`../shared/fixtures/discovery`, each with its ground truth) and small files of our own.
final class TestDiscoveryFilesTests: XCTestCase {
    // MARK: Ground truth from real projects

    func testEveryRealFileReadsAsItsGroundTruth() throws {
        let dir = try TestPaths.shared("fixtures/discovery")
        let manifest = try String(contentsOf: dir.appendingPathComponent("MANIFEST.tsv"), encoding: .utf8)
        var checked: [String: Int] = [:]
        for row in manifest.split(separator: "\n").dropFirst() {
            let columns = row.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard columns.count >= 7 else { continue }
            let (file, kind, truth) = (columns[0], columns[1], columns[6])
            let data = try Data(contentsOf: dir.appendingPathComponent(file))
            let got: String
            switch kind {
            case "xctestrun": got = Self.notation(try XCTestRunFile.parse(data, file: file))
            case "xctestplan": got = Self.notation(try XCTestPlanFile.parse(data, file: file))
            case "xcscheme": got = Self.notation(try XcodeSchemeFile.parse(data, file: file))
            default: XCTFail("unknown kind \(kind) for \(file)"); continue
            }
            XCTAssertEqual(got, truth, file)
            checked[kind, default: 0] += 1
        }
        // Every file of the folder was read: 11 run files, 9 test plans, 3 schemes.
        XCTAssertEqual(checked, ["xctestrun": 11, "xctestplan": 9, "xcscheme": 3])
    }

    /// The recorded files hold no `-enumerate-tests` output (their kinds are run files, test plans
    /// and schemes), but they hold real XCTest identifiers (`Class/testMethod`) written by Xcode and
    /// by teams. As the enumeration lists them (`Target/Class/testMethod()`) each must read as XCTest
    /// with the `-only-testing` identifier the file itself uses, and never as Swift Testing by shape.
    func testRealXCTestIdentifiersOfTheRecordedFilesReadAsXCTestInAnEnumeration() throws {
        let dir = try TestPaths.shared("fixtures/discovery")
        let manifest = try String(contentsOf: dir.appendingPathComponent("MANIFEST.tsv"), encoding: .utf8)
        var identifiers: [(target: String, id: String)] = []
        for row in manifest.split(separator: "\n").dropFirst() {
            let columns = row.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard columns.count >= 7 else { continue }
            XCTAssertNotEqual(columns[1], "enumeration", "an enumeration file was recorded: golden-test XcodeTestEnumeration against it")
            let data = try Data(contentsOf: dir.appendingPathComponent(columns[0]))
            switch columns[1] {
            case "xctestrun":
                for t in try XCTestRunFile.parse(data, file: columns[0]).targets {
                    identifiers += (t.onlyTestIdentifiers + t.skipTestIdentifiers).map { (t.name, $0) }
                }
            case "xctestplan":
                for t in try XCTestPlanFile.parse(data, file: columns[0]).targets {
                    identifiers += (t.selectedTests + t.skippedTests).map { (t.name, $0) }
                }
            default: continue
            }
        }
        let methods = identifiers.filter { $0.id.split(separator: "/").count == 2 }
        XCTAssertGreaterThan(methods.count, 50, "the recorded files name XCTest methods")
        for (target, id) in methods {
            let parts = [target] + id.split(separator: "/").map(String.init)
            XCTAssertNotEqual(XcodeTestEnumeration.library(of: parts.dropLast() + [parts[parts.count - 1] + "()"]), .swiftTesting, id)
            XCTAssertEqual(XcodeTestEnumeration.library(of: parts), .xcTest, id)
            let json = #"{"errors": [], "values": [{"enabledTests": [{"identifier": "\#(target)/\#(id)()"}]}]}"#
            let test = try XCTUnwrap(try XcodeTestEnumeration.parse(Data(json.utf8), file: "e.json").tests.first, id)
            XCTAssertFalse(test.isSwiftTesting, id)
            XCTAssertEqual(test.onlyTestingIdentifier, "\(target)/\(id)", id)
        }
    }

    /// What the shape of an enumerated identifier can and cannot say (docs/discovery.md, "Names").
    func testEnumerationShapesTellTheLibrariesApartWhereTheyCan() {
        func library(_ id: String) -> XcodeTestEnumeration.Library { XcodeTestEnumeration.library(of: id.split(separator: "/").map(String.init)) }
        XCTAssertEqual(library("T/C/testNoParens"), .xcTest, "Objective-C, or an older Xcode")
        XCTAssertEqual(library("T/freeFunction()"), .swiftTesting)
        XCTAssertEqual(library("T/Outer/Inner/nested()"), .swiftTesting, "XCTest has no nested suites")
        XCTAssertEqual(library("T/Outer/Inner/testNested()"), .swiftTesting)
        XCTAssertEqual(library("T/S/checksOrder()"), .swiftTesting, "XCTest runs only test… methods")
        XCTAssertEqual(library("T/S/testArgs(x:)"), .swiftTesting, "XCTest methods take no arguments")
        XCTAssertEqual(library("T/S/testLooksLikeXCTest()"), .either, "nothing in the JSON tells these apart")
        let json = #"{"errors": [], "values": [{"enabledTests": [{"identifier": "T/Outer/Inner/nested()"}, {"identifier": "T/S/checksOrder()"}]}]}"#
        let e = try? XcodeTestEnumeration.parse(Data(json.utf8), file: "e.json")
        XCTAssertEqual(e?.errors, [])
        XCTAssertEqual(e?.tests.map(\.onlyTestingIdentifier), ["T/Outer/Inner/nested()", "T/S/checksOrder()"])
        XCTAssertEqual(e?.tests.map(\.isSwiftTesting), [true, true])
    }

    static func list(_ items: [String]) -> String { "[" + items.joined(separator: ",") + "]" }
    static func yesNo(_ b: Bool) -> String { b ? "yes" : "no" }
    static func tri(_ b: Bool?) -> String { b.map(yesNo) ?? "unset" }

    static func notation(_ f: XCTestRunFile) -> String {
        var parts = ["format=\(f.formatVersion)"]
        if f.formatVersion == 1 { parts.append("metadata=" + (f.metadataFormatVersion.map { "FormatVersion=\($0)" } ?? "absent")) }
        parts.append("configurations=" + list(f.configurations))
        parts.append("targets=" + list(f.targets.map { t in
            "\(t.name)(" + (t.configuration.map { "config=\($0), " } ?? "")
                + "ui=\(yesNo(t.isUITestBundle)), only=\(list(t.onlyTestIdentifiers)), skip=\(list(t.skipTestIdentifiers)), module=\(t.productModuleName ?? "")"
                + ")"
        }))
        if let plan = f.testPlan { parts.append("testplan=\(plan.name)(default=\(yesNo(plan.isDefault)))") }
        return parts.joined(separator: "; ")
    }

    static func notation(_ p: XCTestPlanFile) -> String {
        var parts = ["version=\(p.version)", "configurations=" + list(p.configurations)]
        parts.append("targets=" + list(p.targets.map { t in
            "\(t.name)(enabled=\(yesNo(t.enabled)), parallelizable=\(tri(t.parallelizable)), skipped=\(list(t.skippedTests)), selected=\(list(t.selectedTests)))"
        }))
        if !p.environment.isEmpty {
            parts.append("env=" + list(p.environment.map { "\($0.scope):\($0.key)" + ($0.enabled ? "" : " (disabled)") }))
        }
        return parts.joined(separator: "; ")
    }

    static func notation(_ s: XcodeSchemeFile) -> String {
        let plans = list(s.testPlans.map { "\($0.reference)(default=\(yesNo($0.isDefault)))" })
        let targets = list(s.testables.map { t in
            "\(t.name)(enabled=\(yesNo(t.enabled)), parallelizable=\(tri(t.parallelizable)), skipped=\(list(t.skippedTests)), selected=\(list(t.selectedTests))"
                + (t.testExecutionOrdering.map { ", testExecutionOrdering=\($0)" } ?? "") + ")"
        })
        return "testplans=\(plans); targets=\(targets)"
    }

    // MARK: Our own files, every format

    func testRunFileOfFormatOneKeepsTargetsInFileOrder() throws {
        let plist = """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">
        <dict>
        \t<key>Zeta Tests</key>
        \t<dict><key>ProductModuleName</key><string>ZetaTests</string><key>SkipTestIdentifiers</key><array><string>A/b</string></array></dict>
        \t<key>AlphaUITests</key>
        \t<dict><key>IsUITestBundle</key><true/><key>ProductModuleName</key><string>Alpha&amp;UI</string></dict>
        \t<key>__xctestrun_metadata__</key>
        \t<dict><key>FormatVersion</key><integer>1</integer></dict>
        </dict>
        </plist>
        """
        let file = try XCTestRunFile.parse(Data(plist.utf8), file: "a.xctestrun")
        XCTAssertEqual(Self.notation(file), "format=1; metadata=FormatVersion=1; configurations=[]; targets=[Zeta Tests(ui=no, only=[], skip=[A/b], module=ZetaTests),AlphaUITests(ui=yes, only=[], skip=[], module=Alpha&UI)]")
    }

    func testRunFileOfFormatTwoWithConfigurationsAndPlan() throws {
        let plist = """
        <plist version="1.0"><dict>
        <key>TestConfigurations</key><array>
          <dict><key>Name</key><string>English</string><key>TestTargets</key><array>
            <dict><key>BlueprintName</key><string>AppTests</string><key>OnlyTestIdentifiers</key><array><string>C/testA</string></array></dict>
          </array></dict>
          <dict><key>Name</key><string>German</string><key>TestTargets</key><array>
            <dict><key>BlueprintName</key><string>AppTests</string></dict>
          </array></dict>
        </array>
        <key>TestPlan</key><dict><key>IsDefault</key><false/><key>Name</key><string>Nightly</string></dict>
        <key>__xctestrun_metadata__</key><dict><key>FormatVersion</key><integer>2</integer></dict>
        </dict></plist>
        """
        let file = try XCTestRunFile.parse(Data(plist.utf8), file: "b.xctestrun")
        XCTAssertEqual(Self.notation(file), "format=2; configurations=[English,German]; targets=[AppTests(config=English, ui=no, only=[C/testA], skip=[], module=),AppTests(config=German, ui=no, only=[], skip=[], module=)]; testplan=Nightly(default=no)")
    }

    func testBrokenRunFilesNameTheFileAndLine() {
        let cases: [(String, String)] = [
            ("bplist00\u{1}\u{2}", "binary property list"),
            ("<plist><dict><key>A</key></dict></plist>", "the key 'A' has no value"),
            ("<plist>\n<dict>\n<key>A</key><string>x</dict></plist>", "line 3"),
            ("<plist><dict><key>__xctestrun_metadata__</key><dict><key>FormatVersion</key><integer>9</integer></dict></dict></plist>", "FormatVersion 9"),
            ("<html/>", "not <plist>"),
            ("", "empty"),
            ("<plist><dict><key>A</key><string>&bogus;</string></dict></plist>", "unknown entity"),
            (String(repeating: "<array>", count: 500), "nested deeper"),
        ]
        for (text, expected) in cases {
            XCTAssertThrowsError(try XCTestRunFile.parse(Data(text.utf8), file: "host/x.xctestrun"), expected) { error in
                let e = error as? DiscoveryFileError
                XCTAssertEqual(e?.exitCode, UserFacingErrors.ExitCode.infrastructure)
                XCTAssertTrue(e?.userMessage.hasPrefix("host/x.xctestrun") == true, e?.userMessage ?? "")
                XCTAssertTrue(e?.userMessage.contains(expected) == true, "\(e?.userMessage ?? "nil") lacks \(expected)")
            }
        }
    }

    func testTestPlanReadsSelectionsEnvironmentAndSwiftTestingObjects() throws {
        let json = """
        {
          "configurations" : [ { "id" : "1", "name" : "Fast", "options" : {
              "environmentVariableEntries" : [ { "key" : "MODE", "value" : "fast", "enabled" : false } ] } } ],
          "defaultOptions" : { "testRepetitionMode" : "retryOnFailure",
              "environmentVariableEntries" : [ { "key" : "API", "value" : "stage" } ] },
          "testTargets" : [
            { "parallelizable" : true, "skippedTests" : [ "Slow\\/testBig", { "identifier" : "Suite\\/check()" } ],
              "target" : { "containerPath" : "container:App.xcodeproj", "identifier" : "ABC", "name" : "AppTests" } },
            { "enabled" : false, "target" : { "containerPath" : "container:Kit", "identifier" : "KitTests", "name" : "KitTests" } }
          ],
          "version" : 1
        }
        """
        let plan = try XCTestPlanFile.parse(Data(json.utf8), file: "App.xctestplan")
        XCTAssertEqual(Self.notation(plan), "version=1; configurations=[Fast]; targets=[AppTests(enabled=yes, parallelizable=yes, skipped=[Slow/testBig,Suite/check()], selected=[]),KitTests(enabled=no, parallelizable=unset, skipped=[], selected=[])]; env=[default:API,Fast:MODE (disabled)]")
        XCTAssertEqual(plan.testRepetitionMode, "retryOnFailure")
        XCTAssertEqual(plan.targets.map(\.containerPath), ["container:App.xcodeproj", "container:Kit"])
    }

    func testBrokenTestPlansSayWhereAndAreUsageErrors() {
        let cases: [(String, String)] = [
            ("[1]", "a test plan is a JSON object"),
            ("{\"testTargets\": 3}", "testTargets is a number"),
            ("{\n\"testTargets\": [\n{\"target\": {}}]}", "App.xctestplan:3: a test target without target.name"),
            ("{\"configurations\": [{}]}", "a configuration without a name"),
            ("{", "App.xctestplan:1"),
        ]
        for (text, expected) in cases {
            XCTAssertThrowsError(try XCTestPlanFile.parse(Data(text.utf8), file: "App.xctestplan")) { error in
                let e = error as? DiscoveryFileError
                XCTAssertEqual(e?.exitCode, UserFacingErrors.ExitCode.usage)
                XCTAssertTrue(e?.userMessage.contains(expected) == true, "\(e?.userMessage ?? "nil") lacks \(expected)")
            }
        }
    }

    func testSchemeReadsPlansAndTestables() throws {
        let xml = """
        <?xml version="1.0" encoding="UTF-8"?>
        <Scheme LastUpgradeVersion = "1500" version = "1.7">
           <BuildAction><BuildActionEntries><BuildActionEntry><BuildableReference BlueprintName = "App"/></BuildActionEntry></BuildActionEntries></BuildAction>
           <TestAction buildConfiguration = "Debug">
              <TestPlans>
                 <TestPlanReference reference = "container:Plans/Unit.xctestplan" default = "YES"></TestPlanReference>
                 <TestPlanReference reference = "container:Plans/UI.xctestplan"/>
              </TestPlans>
              <Testables>
                 <!-- a comment -->
                 <TestableReference skipped = "YES" parallelizable = "YES">
                    <BuildableReference BlueprintName = "AppTests" ReferencedContainer = "container:App.xcodeproj"></BuildableReference>
                    <SelectedTests><Test Identifier = "AppTests/testA"/></SelectedTests>
                 </TestableReference>
              </Testables>
           </TestAction>
        </Scheme>
        """
        let scheme = try XcodeSchemeFile.parse(Data(xml.utf8), file: "App.xcscheme")
        XCTAssertEqual(Self.notation(scheme), "testplans=[container:Plans/Unit.xctestplan(default=yes),container:Plans/UI.xctestplan(default=no)]; targets=[AppTests(enabled=no, parallelizable=yes, skipped=[], selected=[AppTests/testA])]")
        XCTAssertEqual(scheme.testables.first?.container, "container:App.xcodeproj")
        XCTAssertThrowsError(try XcodeSchemeFile.parse(Data("<Scheme><TestAction><Testables><TestableReference/></Testables></TestAction></Scheme>".utf8), file: "S.xcscheme")) {
            XCTAssertTrue(($0 as? DiscoveryFileError)?.userMessage.contains("without BuildableReference") == true)
        }
        XCTAssertThrowsError(try XcodeSchemeFile.parse(Data("<Scheme><a></b></Scheme>".utf8), file: "S.xcscheme")) {
            XCTAssertTrue(($0 as? DiscoveryFileError)?.userMessage.contains("</b> closes <a>") == true)
        }
    }

    // MARK: What was built

    func testSwiftTestListReadsXCTestAndSwiftTestingLines() {
        let output = """
        warning: 'pkg': Invalid Exclude 'Tests/X/CMakeLists.txt': File not found.
        [0/1] Planning build
        Build complete! (0.12s)
        CacheTests.MemoryKeyTests/testC1_freshEqualKeyHits
        CacheTests.MemoryKeyTests/testC1_freshEqualKeyHits
        LoggingTests.GlobalLoggerTest/errorAndAbove()
        LoggingTests.LoggingTest/logLevelDescription(level:)
        LoggingTests.Outer/Inner/nested()
        LoggingTests.freeFunction()
        Compiling something else
        """
        let tests = SwiftTestList.parse(output)
        XCTAssertEqual(tests.map(\.target), ["CacheTests", "LoggingTests", "LoggingTests", "LoggingTests", "LoggingTests"])
        XCTAssertEqual(tests.map(\.name), ["MemoryKeyTests/testC1_freshEqualKeyHits", "GlobalLoggerTest/errorAndAbove()",
                                           "LoggingTest/logLevelDescription(level:)", "Outer/Inner/nested()", "freeFunction()"])
        XCTAssertEqual(tests.map(\.isSwiftTesting), [false, true, true, true, true])
        XCTAssertEqual(tests[0].swiftTestFilter, "^CacheTests\\.MemoryKeyTests/testC1_freshEqualKeyHits$")
        XCTAssertEqual(tests[2].swiftTestFilter, "^LoggingTests\\.LoggingTest/logLevelDescription\\(level:\\)$")
        XCTAssertEqual(SwiftTestList.parse("").count, 0)
        XCTAssertEqual(SwiftTestList.parse("error: no tests found\n1bad.Name/x\nMod.A/B/c\n").count, 0)
    }

    func testEnumerationReadsEnabledDisabledAndErrors() throws {
        let json = """
        {"errors": [], "values": [{"testPlan": "App", "enabledTests": [
            {"identifier": "AppTests/CacheTests/testHit()"},
            {"identifier": "AppTests/LegacyObjC/testNoParens"},
            {"identifier": "AppTests/freeFunction()"},
            {"identifier": "AppTests/Suite/withArgs(_:label:)"}],
          "disabledTests": [{"identifier": "AppTests/CacheTests/testOff()"}]}]}
        """
        let e = try XcodeTestEnumeration.parse(Data(json.utf8), file: "enum.json")
        XCTAssertEqual(e.errors, [])
        XCTAssertEqual(e.plans.first?.testPlan, "App")
        XCTAssertEqual(e.tests.map(\.onlyTestingIdentifier), ["AppTests/CacheTests/testHit", "AppTests/LegacyObjC/testNoParens",
                                                              "AppTests/freeFunction()", "AppTests/Suite/withArgs(_:label:)",
                                                              "AppTests/CacheTests/testOff"])
        XCTAssertEqual(e.tests.map(\.enabled), [true, true, true, true, false])
        XCTAssertEqual(e.tests.map(\.isSwiftTesting), [false, false, true, true, false])
        // A target known to hold Swift Testing keeps the parentheses `-only-testing` needs.
        let st = try XcodeTestEnumeration.parse(Data(json.utf8), file: "enum.json", swiftTestingTargets: ["AppTests"])
        XCTAssertEqual(st.tests.first?.onlyTestingIdentifier, "AppTests/CacheTests/testHit()")

        let errors = try XcodeTestEnumeration.parse(Data(#"{"errors": ["Scheme App is not configured for testing", {"description": "target Missing not found"}], "values": []}"#.utf8), file: "e.json")
        XCTAssertEqual(errors.errors, ["Scheme App is not configured for testing", "target Missing not found"])
        let odd = try XcodeTestEnumeration.parse(Data(#"{"errors": [], "values": [{"enabledTests": [{"identifier": "JustATarget"}]}]}"#.utf8), file: "e.json")
        XCTAssertEqual(odd.tests, [])
        XCTAssertEqual(odd.errors.count, 1, "an identifier that is not Target/Suite/test is an error, not a test")
        XCTAssertThrowsError(try XcodeTestEnumeration.parse(Data("{}".utf8), file: "e.json")) {
            XCTAssertTrue(($0 as? DiscoveryFileError)?.userMessage == "e.json:1: the enumeration has no \"values\" list")
        }
    }

    func testXMLReaderHandlesTheRestOfTheGrammarAndRejectsJunk() throws {
        let doc = try MiniXML.parse("\u{FEFF}<?xml version='1.0'?><!-- c --><r a='1' b=\"&lt;&#65;&#x42;\"><![CDATA[<raw>]]>t<e/></r>")
        XCTAssertEqual(doc.attribute("b"), "<AB")
        XCTAssertEqual(doc.text, "<raw>t")
        XCTAssertEqual(doc.children.map(\.name), ["e"])
        for junk in ["<r a=1/>", "<r a='1' a='2'/>", "<r>", "<r/><s/>", "<!DOCTYPE r [<!ENTITY x 'y'>]><r/>", "<r>&#0;</r>", "<r><!-- x</r>"] {
            XCTAssertThrowsError(try MiniXML.parse(junk), junk)
        }
    }
}
