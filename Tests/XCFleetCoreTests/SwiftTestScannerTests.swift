import XCTest
@testable import XCFleetCore
import XCFleetTestSupport

/// The manifest of a rendered template is read from its test files: ordinary Swift must not fool it.
final class SwiftTestScannerTests: XCTestCase {
    func testWhatXCTestRunsAndNothingElse() {
        let source = #"""
        import XCTest

        final class
            TwoLineTests: XCTestCase
        {
            func testA() {}
            func testAsyncThrows() async throws {}
            func testReturnsVoid() -> Void {}
            @MainActor override func testWithAttributes() {}
            private func testPrivate() {}
            fileprivate func testFilePrivate() {}
            static func testStatic() {}
            class func testClassFunc() {}
            func testWithArgs(_ x: Int) {}
            func testGeneric<T>() {}
            func testReturnsInt() -> Int { 1 }
            func helper() { func testNested() {} }
            struct Inner { func testInStruct() {} }
            let text = "func testInString() {}"
            let block = """
                func testInMultiline() {}
                """
            // func testInLineComment() {}
            /* func testInBlock() {} /* nested */ func testStillInBlock() {} */
        #if false
            func testInIfFalse() {}
        #elseif DEBUG
            func testInElseifDebug() {}
        #else
            func testInElse() {}
        #endif
        #if 0
            func testInIfZero() {}
        #endif
        }
        class OneLine: XCTestCase { func testOne() {} }
        class NotATestCase { func testNot() {} }
        class Generic<T>: XCTest.XCTestCase where T: Equatable { func testGenericClass() {} }
        open class Base: XCTestCase {}
        class Derived: Base { func testDerived() {} }
        extension OneLine { func testInExtension() {} }
        extension NotATestCase { func testNotEither() {} }
        """#
        XCTAssertEqual(SwiftTestScanner.tests(in: source), [
            "TwoLineTests/testA", "TwoLineTests/testAsyncThrows", "TwoLineTests/testReturnsVoid", "TwoLineTests/testWithAttributes",
            "TwoLineTests/testInElseifDebug", "TwoLineTests/testInElse",
            "OneLine/testOne", "Generic/testGenericClass", "Derived/testDerived", "OneLine/testInExtension",
        ])
    }

    func testOurOwnTemplatesReadAsBefore() throws {
        // The cache-contract template's tests: every `func test` line of the files is a test.
        let dir = TestPaths.packageRoot.appendingPathComponent("Templates/cache-contract")
        guard let files = try? FileManager.default.contentsOfDirectory(atPath: dir.path).filter({ $0.hasSuffix("Tests.swift") }).sorted(), !files.isEmpty else {
            throw XCTSkip("no template test files at \(dir.path)")
        }
        var scanned = 0, lines = 0
        for f in files {
            let text = try String(contentsOf: dir.appendingPathComponent(f), encoding: .utf8)
            scanned += SwiftTestScanner.tests(in: text).count
            lines += text.split(separator: "\n").filter { $0.trimmingCharacters(in: .whitespaces).hasPrefix("func test") }.count
        }
        XCTAssertEqual(scanned, lines)
        XCTAssertGreaterThan(scanned, 20)
    }

    func testUnterminatedInputNeverTraps() {
        for s in ["class A: XCTestCase { func test", "\"unterminated", "/* open", "#if", "class", "#\"raw", "`", "func test() {", "class A: XCTestCase { func testA() {"] {
            _ = SwiftTestScanner.tests(in: s)
        }
        XCTAssertEqual(SwiftTestScanner.tests(in: "class A: XCTestCase { func testA() {"), ["A/testA"])
    }

    /// A raw identifier in backticks may hold a `/` (found by the discovery fuzz target): such a
    /// class or method cannot be named `Class/test`, so it is not listed; the rest still are.
    func testRawIdentifiersWithASlashAreNotListed() {
        let source = "class `A/B`: XCTestCase { func testOne() {} }\nclass C: XCTestCase { func `test/x`() {}\n func testY() {} }"
        XCTAssertEqual(SwiftTestScanner.tests(in: source), ["C/testY"])
        let fuzzed = "class`A: XC>(A: XCTestCasening bui\u{FFFD}\u{FFFD}/\u{FFFD}` { func testZ() {} }"
        for name in SwiftTestScanner.tests(in: fuzzed) {
            XCTAssertEqual(name.split(separator: "/", omittingEmptySubsequences: false).count, 2, name)
        }
    }

    /// Empty or unclosed raw identifiers cannot be named `Class/test` either.
    func testNamesThatCannotBeSplitAgainAreNotListed() {
        let empty = "class ``: XCTestCase { func testA() {} }\nclass D: XCTestCase { func testB() {} }"
        XCTAssertEqual(SwiftTestScanner.tests(in: empty), ["D/testB"])
        let unclosed = "class G: XCTestCase { func testE() {} }\n`class H: XCTestCase { func testF() {} }"
        for name in SwiftTestScanner.tests(in: unclosed) {
            XCTAssertEqual(name.split(separator: "/", omittingEmptySubsequences: false).count, 2, name)
        }
        XCTAssertEqual(SwiftTestScanner.tests(in: unclosed).first, "G/testE")
    }
}
