import XCTest
@testable import XCFleetBasics
@testable import XCFleetModel
@testable import XCFleetCore
import XCFleetTestSupport

/// `SortedJSONEncoder` against Foundation's `JSONEncoder` with the same options: the same bytes.
final class SortedJSONEncoderTests: XCTestCase {
    private func assertSameBytes<T: Encodable>(_ value: T, streams: Bool = true, _ what: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let reference = try SortedJSONEncoder.foundation().encode(value)
        XCTAssertEqual(String(decoding: try SortedJSONEncoder().encode(value), as: UTF8.self), String(decoding: reference, as: UTF8.self), what, file: file, line: line)
        // Whether the streaming path wrote it (not the fallback).
        let writer = SortedJSONWriter()
        let streamed = (try? writer.encodeTop(value)) != nil
        XCTAssertEqual(streamed, streams, "\(what): streamed", file: file, line: line)
        if streamed { XCTAssertEqual(writer.bytes, [UInt8](reference), "\(what): streamed bytes", file: file, line: line) }
    }

    /// Every sample report (the richest is the one the report.json golden is made of), a probe's
    /// non-finite metrics, a comparison.
    func testSampleReportsAreByteIdenticalToFoundation() throws {
        let samples: [(String, RunReport)] = [("full", SampleReports.full), ("green", SampleReports.green), ("red", SampleReports.red),
                                              ("flaky", SampleReports.flaky), ("unschedulable", SampleReports.unschedulable),
                                              ("probe", SampleReports.probe), ("hostile", SampleReports.hostile)]
        for (name, report) in samples { try assertSameBytes(report, name) }
        var nonFinite = SampleReports.probe
        nonFinite.suites[0].jobs[0].attempts[0].metrics += [Metric(name: "nan", value: .nan, unit: "ratio"), Metric(name: "inf", value: .infinity, unit: "x"),
                                                            Metric(name: "-inf", value: -.infinity, unit: "x"), Metric(name: "tiny", value: 1e-7, unit: "s")]
        try assertSameBytes(nonFinite, "non-finite and exponent metrics")
        try assertSameBytes(RunComparison.compare(base: SampleReports.red, head: SampleReports.full), "comparison")
    }

    private struct Shapes: Encodable {
        enum Termination: Encodable { case exited(Int32), lost(why: String, code: Int?), cancelled }
        struct Empty: Encodable {}
        var terms: [Termination] = [.exited(0), .lost(why: "x", code: nil), .cancelled]
        var empty = Empty(), emptyArray: [Empty] = [], emptyDictionary: [String: Int] = [:], nested: [[Int]] = [[], [1], []]
        var dictionary = ["b": 1, "a": 2, "é": 3, "B": 4, "a/b": 5], intKeys = [10: "x", 2: "y"]
        var text = "a/b \"q\" \\ \n\t\r\u{8}\u{C}\u{1}\u{1F}\u{7F} é 🚀"
        var numbers: [Double] = [0, -0.0, 1, 0.1, 12.5, 1e15, 1e16, 1e20, 5e-324, .greatestFiniteMagnitude, .nan, .infinity]
        var floats: [Float] = [0.1, 1, .nan], small: UInt8 = 255, big = Int64.min, flag = true
        var data = Data([1, 2, 250]), url = URL(string: "https://example.com/a%20b")!, decimal = Decimal(string: "12.50")!
        var date = Date(timeIntervalSinceReferenceDate: 12.25), none: Int? = nil, some: Empty? = Empty()
    }

    /// Containers empty and nested, key order, escapes, number forms, Foundation's special types.
    func testEdgeShapesAreByteIdentical() throws {
        try assertSameBytes(Shapes(), "shapes")
        try assertSameBytes(Optional<Int>.none, "top-level null")
        try assertSameBytes("a/b", "top-level string")
        try assertSameBytes(Shapes.Empty(), "top-level empty object")
        try assertSameBytes([Shapes.Empty](), "top-level empty array")
    }

    private struct TwoContainers: Encodable {
        enum K: CodingKey { case a, b, c }
        func encode(to encoder: any Encoder) throws {
            var first = encoder.container(keyedBy: K.self)
            try first.encode(1, forKey: .b)
            try first.encode(2, forKey: .a)
            var again = encoder.container(keyedBy: K.self)
            try again.encode(3, forKey: .c)
        }
    }

    private struct Unstreamable: Encodable {
        enum K: CodingKey { case a, b }
        var how: Int
        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: K.self)
            switch how {
            case 0: // a key written twice: Foundation keeps the last value
                try c.encode(1, forKey: .a)
                try c.encode(2, forKey: .a)
            case 1: // a nested container written after its parent moved on
                var nested = c.nestedContainer(keyedBy: K.self, forKey: .b)
                try c.encode(1, forKey: .a)
                try nested.encode(5, forKey: .a)
            default:
                try c.encode(1, forKey: .a)
                try 7.encode(to: c.superEncoder())
            }
        }
    }

    /// What cannot stream falls back to Foundation, with its output.
    func testUnstreamableEncodingFallsBackToFoundation() throws {
        try assertSameBytes(TwoContainers(), "the same keyed container asked for twice")
        for how in 0...2 { try assertSameBytes(Unstreamable(how: how), streams: false, "unstreamable \(how)") }
    }
}
