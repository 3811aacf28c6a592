import XCTest
@testable import XCFleetBasics
@testable import XCFleetModel
@testable import XCFleetCore
import XCFleetTestSupport

final class JSONDocumentTests: XCTestCase {
    func parse(_ text: String, maxDepth: Int = JSONDocument.defaultMaxDepth) throws -> JSONNode {
        try JSONDocument(text: text, maxDepth: maxDepth).root
    }

    /// "line:column: message" of the syntax error, or "no error".
    func syntaxError(_ text: String) -> String {
        syntaxError(Data(text.utf8))
    }

    func syntaxError(_ data: Data, maxDepth: Int = JSONDocument.defaultMaxDepth) -> String {
        do {
            _ = try JSONDocument(data: data, maxDepth: maxDepth)
            return "no error"
        } catch {
            return error.description
        }
    }

    func object(_ node: JSONNode, file: StaticString = #filePath, line: UInt = #line) throws -> JSONObject {
        guard case .object(let o) = node.value else {
            XCTFail("expected an object, got \(node.value.kindDescription)", file: file, line: line)
            throw XCTSkip("not an object")
        }
        return o
    }

    // MARK: Values and positions

    func testValuesAndPositions() throws {
        let root = try parse("""
        {
          "s": "a\\"b\\\\c\\/\\n\\t\\u00e9",
          "n": -12.5e+3,
          "t": true, "f": false, "z": null,
          "a": [1, [], {}]
        }
        """)
        XCTAssertEqual(root.position, JSONPosition(line: 1, column: 1))
        let o = try object(root)
        XCTAssertEqual(o.keys, ["s", "n", "t", "f", "z", "a"])
        XCTAssertEqual(o["s"]?.value.value, .string("a\"b\\c/\n\té"))
        XCTAssertEqual(o["s"]?.keyPosition, JSONPosition(line: 2, column: 3))
        XCTAssertEqual(o["s"]?.value.position, JSONPosition(line: 2, column: 8))
        XCTAssertEqual(o["n"]?.value.value, .number(JSONNumber(literal: "-12.5e+3")))
        XCTAssertEqual(o["n"]?.value.position, JSONPosition(line: 3, column: 8))
        XCTAssertEqual(o["t"]?.value.value, .bool(true))
        XCTAssertEqual(o["f"]?.keyPosition, JSONPosition(line: 4, column: 14))
        XCTAssertEqual(o["f"]?.value.value, .bool(false))
        XCTAssertEqual(o["z"]?.value.value, .null)
        guard case .array(let a)? = o["a"]?.value.value else { return XCTFail("expected an array") }
        XCTAssertEqual(a.map(\.position.column), [9, 12, 16])
        XCTAssertEqual(a.map(\.value.kindDescription), ["a number", "an array", "an object"])
        XCTAssertNil(o["missing"])
    }

    func testColumnsCountScalarsNotBytes() throws {
        let o = try object(try parse("{\"é😀\": 1, \"k\": 2}"))
        XCTAssertEqual(o["é😀"]?.value.position, JSONPosition(line: 1, column: 8))
        XCTAssertEqual(o["k"]?.keyPosition, JSONPosition(line: 1, column: 11))
        XCTAssertEqual(syntaxError("{\"é\": 1 x}"), "1:9: expected ',' or '}' after a member, got 'x'")
    }

    func testUnicodeEscapesAndSurrogatePairs() throws {
        XCTAssertEqual(try parse(#""\ud83d\ude00 \u0041""#).value, .string("😀 A"))
        XCTAssertEqual(syntaxError(#""\ude00""#), "1:2: unpaired surrogate \\uDE00; a low surrogate must follow a high one")
        XCTAssertEqual(syntaxError(#""\ud83d x""#), "1:2: unpaired surrogate \\uD83D; a high surrogate must be followed by a low one")
        XCTAssertEqual(syntaxError(#""\ud83d\u0041""#), "1:2: unpaired surrogate \\uD83D; a high surrogate must be followed by a low one")
        XCTAssertEqual(syntaxError(#""\u12G4""#), "1:2: \\u must be followed by four hex digits")
        XCTAssertEqual(syntaxError(#""\x""#), "1:2: invalid escape '\\x'; valid escapes are \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX")
    }

    func testCommentsAndTrailingCommas() throws {
        let root = try parse("""
        // leading comment
        /* block
           comment */ {
          "a": [1, 2,], // trailing comma in an array
          "b": {"c": 3,}, /* and in an object */
        }
        // trailing comment
        """)
        let o = try object(root)
        XCTAssertEqual(root.position, JSONPosition(line: 3, column: 15))
        XCTAssertEqual(o.keys, ["a", "b"])
        XCTAssertEqual(o["b"]?.keyPosition, JSONPosition(line: 5, column: 3))
        XCTAssertEqual(syntaxError("[,]"), "1:2: unexpected ','; expected a value")
        XCTAssertEqual(syntaxError("[1,,2]"), "1:4: unexpected ','; expected a value")
        XCTAssertEqual(syntaxError("{,}"), "1:2: unexpected ','; expected a key in double quotes")
        XCTAssertEqual(syntaxError("{\"a\": 1,,}"), "1:9: unexpected ','; expected a key in double quotes")
        XCTAssertEqual(syntaxError("{} /* open"), "1:4: unterminated /* comment; close it with */")
        XCTAssertEqual(syntaxError("{} / x"), "1:4: unexpected '/'; comments start with // or /*")
    }

    func testDuplicateKeysAreRejected() {
        XCTAssertEqual(syntaxError("{\"a\": 1,\n \"a\": 2}"), "2:2: duplicate key \"a\" (first at line 1); each key may appear once")
        XCTAssertEqual(syntaxError("{\"a\": {\"b\": 1, \"b\": 1}}"), "1:16: duplicate key \"b\" (first at line 1); each key may appear once")
        XCTAssertEqual(syntaxError("[{\"a\": 1}, {\"a\": 1}]"), "no error")
    }

    func testSyntaxErrorsSayWhereAndWhat() {
        let cases: [(String, String)] = [
            ("", "1:1: the file is empty; expected a JSON object"),
            ("  // only a comment\n", "2:1: the file is empty; expected a JSON object"),
            ("{\"a\" 1}", "1:6: expected ':' after the key \"a\", got '1'"),
            ("{a: 1}", "1:2: expected a key in double quotes or '}', got 'a'"),
            ("{'a': 1}", "1:2: expected a key in double quotes or '}', got '''"),
            ("['a']", "1:2: strings must use double quotes, not single quotes"),
            ("[1 2]", "1:4: expected ',' or ']' after an element, got '2'"),
            ("{\"a\": 1", "1:8: unterminated object; expected '}' to close the '{' at 1:1"),
            ("[1,\n", "2:1: unterminated array; expected ']' to close the '[' at 1:1"),
            ("\"abc", "1:1: unterminated string; add the closing '\"'"),
            ("\"a\nb\"", "1:3: control character U+000A inside a string; write it as an escape such as \\n or \\t"),
            ("{} {}", "1:4: unexpected '{' after the end of the document"),
            ("01", "1:1: invalid number: no leading zeros allowed"),
            ("-", "1:1: invalid number: expected a digit after '-'"),
            ("1.", "1:1: invalid number: expected a digit after '.'"),
            ("1e+", "1:1: invalid number: expected a digit in the exponent"),
            ("12abc", "1:1: invalid number: unexpected 'a'"),
            (".5", "1:1: unexpected unquoted text; strings must be in double quotes"),
            ("NaN", "1:1: 'NaN' is not allowed; JSON numbers must be finite"),
            ("[Infinity]", "1:2: 'Infinity' is not allowed; JSON numbers must be finite"),
            ("True", "1:1: unexpected 'True'; JSON literals are lowercase: true, false, null"),
            ("{\"k\": hunter2}", "1:7: unexpected unquoted text; strings must be in double quotes"),
            ("\u{1}", "1:1: unexpected byte 0x01; expected a value"),
            ("[}", "1:2: unexpected '}'; expected a value"),
            ("{\"a\": 1]", "1:8: expected ',' or '}' after a member, got ']'"),
        ]
        for (input, expected) in cases {
            XCTAssertEqual(syntaxError(input), expected, "input: \(input.debugDescription)")
        }
    }

    func testInvalidUTF8IsReportedAtItsPosition() {
        XCTAssertEqual(syntaxError(Data([0x7B, 0x0A, 0x20, 0x22, 0xFF, 0x22, 0x7D])), "2:3: invalid UTF-8 byte 0xFF; save the file as UTF-8")
        XCTAssertEqual(syntaxError(Data([0x22, 0xC0, 0xAF, 0x22])), "1:2: invalid UTF-8 byte 0xC0; save the file as UTF-8")  // overlong '/'
        XCTAssertEqual(syntaxError(Data([0x22, 0xED, 0xA0, 0x80, 0x22])), "1:2: invalid UTF-8 byte 0xED; save the file as UTF-8")  // surrogate
        XCTAssertEqual(syntaxError(Data([0x22, 0xE2, 0x82])), "1:2: invalid UTF-8 byte 0xE2; save the file as UTF-8")  // truncated
        XCTAssertEqual(syntaxError(Data([0x22, 0xF4, 0x90, 0x80, 0x80, 0x22])), "1:2: invalid UTF-8 byte 0xF4; save the file as UTF-8")  // > U+10FFFF
        XCTAssertEqual(syntaxError(Data([0xEF, 0xBB, 0xBF] + Array("{}".utf8))), "no error")  // byte order mark
    }

    func testNestingLimit() throws {
        let ok = String(repeating: "[", count: 64) + String(repeating: "]", count: 64)
        XCTAssertNoThrow(try parse(ok))
        let deep = String(repeating: "[", count: 65) + String(repeating: "]", count: 65)
        XCTAssertEqual(syntaxError(deep), "1:65: nesting deeper than 64 levels")
        let deepObjects = String(repeating: "{\"a\":", count: 100_000)
        XCTAssertEqual(syntaxError(deepObjects), "1:321: nesting deeper than 64 levels")
        XCTAssertEqual(syntaxError(Data("[[[]]]".utf8), maxDepth: 2), "1:3: nesting deeper than 2 levels")
    }

    func testHugeNumbersAreKeptNotTrapped() throws {
        XCTAssertEqual(JSONNumber(literal: "1e400").doubleValue, nil)
        XCTAssertEqual(JSONNumber(literal: "1e400").intValue, nil)
        XCTAssertEqual(JSONNumber(literal: "99999999999999999999").intValue, nil)
        XCTAssertEqual(JSONNumber(literal: "99999999999999999999").doubleValue, 1e20)
        XCTAssertEqual(JSONNumber(literal: "-9223372036854775808").intValue, Int.min)
        XCTAssertEqual(JSONNumber(literal: "3.0").intValue, 3)
        XCTAssertEqual(JSONNumber(literal: "3e2").intValue, 300)
        XCTAssertEqual(JSONNumber(literal: "3.5").intValue, nil)
        XCTAssertEqual(JSONNumber(literal: "1e-400").doubleValue, 0)
        XCTAssertTrue(JSONNumber(literal: "12").isIntegerLiteral)
        XCTAssertFalse(JSONNumber(literal: "1e2").isIntegerLiteral)
        let digits = String(repeating: "9", count: 100_000)
        XCTAssertEqual(try parse("[\(digits)]").value, .array([JSONNode(.number(JSONNumber(literal: digits)), at: JSONPosition(line: 1, column: 2))]))
    }

    // MARK: Paths and suggestions

    func testPathRendering() {
        XCTAssertEqual(JSONPath.root.description, "")
        XCTAssertEqual((JSONPath.root / "suites" / 1 / "timeouts" / "test").description, "suites[1].timeouts.test")
        XCTAssertEqual((JSONPath.root / "hosts" / 0 / "environment" / "MY VAR").description, "hosts[0].environment[\"MY VAR\"]")
        XCTAssertEqual((JSONPath.root / "a" / "x\"y\n").description, "a[\"x\\\"y\\u000A\"]")
        XCTAssertEqual((JSONPath.root / 2).description, "[2]")
        XCTAssertEqual((JSONPath.root / "accept-new").description, "accept-new")
        XCTAssertEqual((JSONPath.root / "1a").description, "[\"1a\"]")
    }

    func testSuggestions() {
        let keys = PlanLoader.suiteKeys
        XCTAssertEqual(SchemaReader.suggestion(for: "timout", among: keys), "timeouts")
        XCTAssertEqual(SchemaReader.suggestion(for: "TimeoutSeconds", among: keys), "timeoutSeconds")
        XCTAssertEqual(SchemaReader.suggestion(for: "shard", among: keys), "shards")
        XCTAssertEqual(SchemaReader.suggestion(for: "tempalte", among: keys), "template")  // transposition
        XCTAssertEqual(SchemaReader.suggestion(for: "requirements", among: keys), nil)
        XCTAssertEqual(SchemaReader.suggestion(for: "x", among: keys), nil)
        XCTAssertEqual(SchemaReader.suggestion(for: "", among: keys), nil)
        XCTAssertEqual(SchemaReader.suggestion(for: String(repeating: "a", count: 10_000), among: keys), nil)
    }

    // MARK: Fuzz

    func testRandomBytesNeverTrap() {
        var rng = SeededGenerator(seed: 42)
        var accepted = 0
        for _ in 0..<5000 {
            let count = Int(rng.next() % 64)
            let bytes = (0..<count).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
            if syntaxError(Data(bytes)) == "no error" { accepted += 1 }
        }
        // Random bytes are almost never a document; the point is that none of them trapped.
        XCTAssertLessThan(accepted, 100)
    }

    func testRandomJSONishTextNeverTraps() {
        var rng = SeededGenerator(seed: 7)
        let alphabet = Array("{}[]\":,/* \n\t\\u0123456789eE.-+truefalsnl".utf8) + [0xC3, 0xA9, 0xFF]
        var outcomes: [String: Int] = [:]
        for _ in 0..<5000 {
            let count = Int(rng.next() % 40)
            let bytes = (0..<count).map { _ in alphabet[Int(rng.next() % UInt64(alphabet.count))] }
            let result = syntaxError(Data(bytes))
            let kind = result == "no error" ? "ok" : "error"
            outcomes[kind, default: 0] += 1
            if result != "no error" {
                // Every error has a position inside (or just after) the input.
                let line = Int(result.prefix { $0 != ":" }) ?? 0
                XCTAssertGreaterThanOrEqual(line, 1)
                XCTAssertLessThanOrEqual(line, bytes.filter { $0 == 0x0A }.count + 1)
            }
        }
        XCTAssertEqual(outcomes.values.reduce(0, +), 5000)
    }

    func testGeneratedDocumentsRoundTrip() throws {
        // Documents written by Foundation parse to the same structure.
        var rng = SeededGenerator(seed: 99)
        for _ in 0..<200 {
            let value = randomJSON(&rng, depth: 0)
            let data = try JSONSerialization.data(withJSONObject: ["v": value], options: [.prettyPrinted, .fragmentsAllowed])
            let root = try JSONDocument(data: data).root
            let back = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
            XCTAssertEqual(count(root), countFoundation(back))
        }
    }

    private func randomJSON(_ rng: inout SeededGenerator, depth: Int) -> Any {
        switch rng.next() % (depth > 5 ? 4 : 6) {
        case 0: return Int(truncatingIfNeeded: rng.next() % 100_000) - 50_000
        case 1: return "s\(rng.next() % 1000)é\n\""
        case 2: return rng.next() % 2 == 0
        case 3: return NSNull()
        case 4: return (0..<Int(rng.next() % 4)).map { _ in randomJSON(&rng, depth: depth + 1) }
        default:
            var d: [String: Any] = [:]
            for i in 0..<Int(rng.next() % 4) { d["k\(i)"] = randomJSON(&rng, depth: depth + 1) }
            return d
        }
    }

    private func count(_ node: JSONNode) -> Int {
        switch node.value {
        case .array(let a): return 1 + a.map(count).reduce(0, +)
        case .object(let o): return 1 + o.members.map { count($0.value) }.reduce(0, +)
        default: return 1
        }
    }

    private func countFoundation(_ value: Any) -> Int {
        if let a = value as? [Any] { return 1 + a.map(countFoundation).reduce(0, +) }
        if let d = value as? [String: Any] { return 1 + d.values.map(countFoundation).reduce(0, +) }
        return 1
    }
}
