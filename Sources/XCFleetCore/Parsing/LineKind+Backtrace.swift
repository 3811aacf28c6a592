import XCFleetModel

extension LineKind {
    /// A Swift backtracer frame that names a source location:
    /// `0 0x00005581a2b3c4d5 DictionaryCache.subscript.getter + 120 in CachePackageTests.xctest at /src/Sources/DictionaryCache.swift:35:9`,
    /// `3 [ra]          0x0000555e184608e5 FatalTests.testB() + 68 in SamplePackageTests.xctest at /src/Sample/Tests/LibTests/LibTests.swift:5:44`.
    /// Frames without ` at path:line` (system libraries) are not events.
    package static func backtraceFrame(_ l: ByteLine, _ events: inout [TestEvent]) -> Bool {
        var i = 0
        guard let index = l.int(at: &i), i < l.count, l[i] == 32 else { return false }
        while i < l.count, l[i] == 32 { i += 1 }
        // Swift 5.9+'s backtracer tags frames between the index and the address: `[ra]` (a return
        // address), `[system]`, `[thunk]`, `[inlined]`; each is a short bracketed word.
        var tags = 0
        while i < l.count, l[i] == UInt8(ascii: "["), tags < 4 {
            var j = i + 1
            while j < l.count, j - i <= 12, (97...122).contains(l[j]) { j += 1 }
            guard j < l.count, l[j] == UInt8(ascii: "]"), j > i + 1 else { return false }
            i = j + 1
            tags += 1
            while i < l.count, l[i] == 32 { i += 1 }
        }
        guard l.has("0x", at: i) else { return false }
        i += 2
        let hexStart = i
        while i < l.count, isHex(l[i]) { i += 1 }
        guard i > hexStart, i < l.count, l[i] == 32 else { return false }
        while i < l.count, l[i] == 32 { i += 1 }
        let symbolStart = i
        // The location is the last ` at ` of the line; the symbol ends at ` + offset` or ` in image`.
        var at: Int?
        var search = symbolStart
        while let found = l.find(" at ", from: search) { at = found; search = found + 4 }
        guard let at else { return false }
        let symbolEnd = l.find(" + ", from: symbolStart).map { min($0, at) } ?? l.find(" in ", from: symbolStart).map { min($0, at) } ?? at
        // `path:line` or `path:line:column` at the end.
        var end = l.count
        var colons: [Int] = []
        var j = end - 1
        while j > at + 4, colons.count < 2 {
            if l[j] == UInt8(ascii: ":") { colons.append(j) } else if !(48...57).contains(l[j]) { break }
            j -= 1
        }
        guard let last = colons.first else { return false }
        var lineStart: Int
        if colons.count == 2 {
            lineStart = colons[1] + 1
            end = last
        } else {
            lineStart = last + 1
        }
        let fileEnd = lineStart - 1
        var k = lineStart
        guard let line = l.int(at: &k), k == end, fileEnd > at + 4 else { return false }
        let file = l.string(at + 4, fileEnd)
        events.append(.backtraceFrame(index: index, symbol: l.string(symbolStart, symbolEnd), file: file, line: line))
        return true
    }

    private static func isHex(_ b: UInt8) -> Bool {
        (48...57).contains(b) || (97...102).contains(b) || (65...70).contains(b)
    }
}
