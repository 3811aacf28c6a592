import Foundation

/// Sorted, pretty-printed JSON (`/` unescaped, non-finite numbers as the strings `"nan"`, `"inf"`,
/// `"-inf"`), byte for byte what Foundation's `JSONEncoder` writes with those options, in a
/// fraction of its time and memory: values stream into one byte buffer, and an object whose keys
/// arrive out of order has its entries' bytes reordered when it closes, instead of building a tree
/// of boxed values first. Encoding that cannot stream (a container used after a later sibling was
/// written, `superEncoder`, a key written twice) falls back to `JSONEncoder`, so the bytes are the
/// same whatever the `encode(to:)` does.
public struct SortedJSONEncoder {
    public init() {}

    public func encode<T: Encodable>(_ value: T) throws -> Data {
        let writer = SortedJSONWriter()
        do {
            try writer.encodeTop(value)
            return Data(writer.bytes)
        } catch {
            // Anything unusual (including the value's own errors): Foundation decides, with its errors.
            return try Self.foundation().encode(value)
        }
    }

    /// Foundation's encoder with the same output (the reference, and the fallback).
    public static func foundation() -> JSONEncoder {
        let e = JSONEncoder()
        e.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        e.nonConformingFloatEncodingStrategy = .convertToString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        return e
    }
}

/// The encoding could not stream; `SortedJSONEncoder` falls back to `JSONEncoder`.
struct SortedJSONFallback: Error {}

/// The byte buffer and the stack of open containers, one per `encode`, used from one thread. The
/// state lives behind a pointer the writer owns: the hot path pays no dynamic exclusivity checks
/// (class properties would be checked on every access).
final class SortedJSONWriter {
    let state: UnsafeMutablePointer<SortedJSONState>

    init() {
        state = .allocate(capacity: 1)
        state.initialize(to: SortedJSONState())
    }

    deinit {
        state.deinitialize(count: 1)
        state.deallocate()
    }

    var bytes: [UInt8] { state.pointee.bytes }

    func encodeTop<T: Encodable>(_ value: T) throws {
        state.pointee.bytes.reserveCapacity(1 << 16)
        let slot = SortedJSONSlot(writer: self, depth: 0, parent: nil, key: nil)
        try write(value, in: slot)
        try state.pointee.closeAll()
        // Foundation throws for a top-level value that encoded nothing.
        guard state.pointee.bytes.count != slot.token, !state.pointee.failed else { throw SortedJSONFallback() }
    }

    /// Writes `value` at the current position, which is `slot`'s.
    func write<T: Encodable>(_ value: T, in slot: SortedJSONSlot) throws {
        // Foundation's special cases (its strategies' defaults); by type, never by a dynamic cast.
        if T.self == Data.self, let data = value as? Data {
            try slot.claim()
            state.pointee.string(data.base64EncodedString())
        } else if T.self == URL.self, let url = value as? URL {
            try slot.claim()
            state.pointee.string(url.absoluteString)
        } else if T.self == Decimal.self, let decimal = value as? Decimal {
            try slot.claim()
            state.pointee.ascii(decimal.description)
        } else {
            try value.encode(to: slot)
            // Nothing encoded: an empty object, as Foundation writes it.
            if state.pointee.bytes.count == slot.token { _ = state.pointee.open(keyed: true, level: slot.depth) }
        }
    }
}

struct SortedJSONState {
    var bytes: [UInt8] = []
    /// Set by an operation that cannot throw (`container(keyedBy:)`, `nestedContainer`) when it
    /// cannot stream; the result is then discarded.
    var failed = false

    struct Frame {
        var id: Int
        var keyed: Bool
        /// Where its header starts (the position of the slot it fills).
        var openedAt: Int
        var count = 0
        /// Keys arrived in ascending order so far (no reordering needed on close).
        var sorted = true
        /// Index of this frame's first entry in `entryKeys` / `entryStarts`.
        var firstEntry: Int
    }

    /// Open containers; the one at index `i` is at nesting level `i` (its entries indented `i + 1`).
    private var frames: [Frame] = []
    private var nextID = 0
    /// Entries of the open keyed frames, innermost last: key and where its bytes start (its indent).
    private var entryKeys: [String] = []
    private var entryStarts: [Int] = []
    private var scratch: [UInt8] = []
    private var order: [Int] = []
    private var spanStarts: [Int] = []
    private var spanEnds: [Int] = []
    private var offsets: [Int] = []

    /// Deeper than Foundation's writer allows (512): let it throw its error.
    private static let maximumDepth = 500

    // MARK: Values

    mutating func string(_ s: String) {
        bytes.append(UInt8(ascii: "\""))
        var s = s
        s.withUTF8 { u in
            var mark = 0
            for i in 0..<u.count {
                let b = u[i]
                guard b < 0x20 || b == UInt8(ascii: "\"") || b == UInt8(ascii: "\\") else { continue }
                if i > mark { bytes.append(contentsOf: UnsafeBufferPointer(rebasing: u[mark..<i])) }
                mark = i + 1
                bytes.append(UInt8(ascii: "\\"))
                switch b {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"): bytes.append(b)
                case 0x08: bytes.append(UInt8(ascii: "b"))
                case 0x0C: bytes.append(UInt8(ascii: "f"))
                case 0x0A: bytes.append(UInt8(ascii: "n"))
                case 0x0D: bytes.append(UInt8(ascii: "r"))
                case 0x09: bytes.append(UInt8(ascii: "t"))
                default:
                    let hex = Array("0123456789abcdef".utf8)
                    bytes.append(contentsOf: [UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"), hex[Int(b >> 4)], hex[Int(b & 0xF)]])
                }
            }
            if u.count > mark { bytes.append(contentsOf: UnsafeBufferPointer(rebasing: u[mark..<u.count])) }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// Text known to need no escaping (numbers, literals).
    mutating func ascii(_ s: String) {
        var s = s
        s.withUTF8 { bytes.append(contentsOf: $0) }
    }

    mutating func bool(_ b: Bool) { ascii(b ? "true" : "false") }

    mutating func integer<I: FixedWidthInteger>(_ i: I) { ascii(i.description) }

    /// Foundation's form: `description` without a trailing `.0`; non-finite values as strings.
    mutating func floating<F: BinaryFloatingPoint & LosslessStringConvertible>(_ f: F) {
        if f.isNaN { string("nan"); return }
        if f.isInfinite { string(f < 0 ? "-inf" : "inf"); return }
        var s = f.description
        if s.hasSuffix(".0") { s.removeLast(2) }
        ascii(s)
    }

    // MARK: Containers

    /// Opens a container at `level` (its header written); returns its id.
    mutating func open(keyed: Bool, level: Int) -> Int {
        nextID += 1
        if level > Self.maximumDepth || frames.count != level { failed = true }
        frames.append(Frame(id: nextID, keyed: keyed, openedAt: bytes.count, firstEntry: entryKeys.count))
        bytes.append(keyed ? UInt8(ascii: "{") : UInt8(ascii: "["))
        bytes.append(0x0A)
        return nextID
    }

    /// The innermost container when it was opened at `position` and `level` (a second
    /// `container(keyedBy:)` call for the same value gets the same container).
    func reopenable(keyed: Bool, level: Int, position: Int) -> Int? {
        guard frames.count == level + 1, let f = frames.last, f.keyed == keyed, f.openedAt == position else { return nil }
        return f.id
    }

    /// Makes the container (`level`, `id`) the innermost open one, closing those inside it.
    mutating func activate(level: Int, id: Int) throws {
        while frames.count > level + 1 { try closeTop() }
        guard frames.count == level + 1, frames[level].id == id else { throw SortedJSONFallback() }
    }

    /// Starts the next element of the innermost (unkeyed) container at `level`.
    mutating func beginElement(level: Int) {
        if frames[level].count > 0 { bytes.append(0x2C); bytes.append(0x0A) }
        frames[level].count += 1
        indent(level + 1)
    }

    /// Starts the entry `key` of the innermost (keyed) container at `level`: `"key" : `.
    mutating func beginEntry(_ key: String, level: Int) {
        let f = frames[level]
        if f.count > 0 {
            bytes.append(0x2C)
            bytes.append(0x0A)
            if f.sorted, !Self.precedes(entryKeys[entryKeys.count - 1], key) { frames[level].sorted = false }
        }
        frames[level].count += 1
        entryKeys.append(key)
        entryStarts.append(bytes.count)
        indent(level + 1)
        string(key)
        bytes.append(0x20)
        bytes.append(UInt8(ascii: ":"))
        bytes.append(0x20)
    }

    mutating func closeAll() throws {
        while !frames.isEmpty { try closeTop() }
    }

    private mutating func closeTop() throws {
        let level = frames.count - 1
        let f = frames.removeLast()
        if f.keyed, !f.sorted { try reorder(from: f.firstEntry) }
        if f.keyed {
            entryKeys.removeSubrange(f.firstEntry...)
            entryStarts.removeSubrange(f.firstEntry...)
        }
        bytes.append(0x0A)
        indent(level)
        bytes.append(f.keyed ? UInt8(ascii: "}") : UInt8(ascii: "]"))
    }

    /// Foundation's key order: by UTF-8 bytes.
    static func precedes(_ a: String, _ b: String) -> Bool {
        let r = a.utf8.withContiguousStorageIfAvailable { x in
            b.utf8.withContiguousStorageIfAvailable { y -> Bool in
                let n = min(x.count, y.count)
                var i = 0
                while i < n, x[i] == y[i] { i += 1 }
                return i < n ? x[i] < y[i] : x.count < y.count
            }
        }
        return (r ?? nil) ?? a.utf8.lexicographicallyPrecedes(b.utf8)
    }

    /// Rewrites the entries from `first` on (the innermost object's, all complete) in key order.
    private mutating func reorder(from first: Int) throws {
        let n = entryKeys.count - first
        order.removeAll(keepingCapacity: true)
        order.append(contentsOf: 0..<n)
        let keys = entryKeys
        order.sort { Self.precedes(keys[first + $0], keys[first + $1]) }
        for i in 1..<n where !Self.precedes(keys[first + order[i - 1]], keys[first + order[i]]) {
            throw SortedJSONFallback() // a key written twice: Foundation keeps the last value
        }
        // Entry `i` spans `entryStarts[first + i] ..< end(i)`, a `,\n` between entries. The largest
        // (a report's test list) is moved once, in place; the others go through `scratch`.
        let start = entryStarts[first]
        spanStarts.removeAll(keepingCapacity: true)
        spanStarts.append(contentsOf: entryStarts[first...])
        spanEnds.removeAll(keepingCapacity: true)
        for i in 0..<n { spanEnds.append(i + 1 < n ? spanStarts[i + 1] - 2 : bytes.count) }
        let starts = spanStarts, ends = spanEnds
        func end(_ i: Int) -> Int { ends[i] }
        var largest = 0
        for i in 1..<n where end(i) - starts[i] > end(largest) - starts[largest] { largest = i }
        scratch.removeAll(keepingCapacity: true)
        for i in 0..<n where i != largest { scratch.append(contentsOf: bytes[starts[i]..<end(i)]) }
        offsets.removeAll(keepingCapacity: true)
        var o = 0
        for i in 0..<n {
            offsets.append(o)
            if i != largest { o += end(i) - starts[i] }
        }
        let offsets = self.offsets
        var target = start, largestTarget = start
        for i in order {
            if i == largest { largestTarget = target }
            target += end(i) - starts[i] + 2
        }
        bytes.withUnsafeMutableBufferPointer { b in
            scratch.withUnsafeBufferPointer { s in
                let base = b.baseAddress!
                let from = starts[largest]
                if from != largestTarget { memmove(base + largestTarget, base + from, end(largest) - from) }
                // The others, from `scratch` (in their original order there) to their places around it.
                var at = start
                for (k, i) in order.enumerated() {
                    if k > 0 {
                        base[at] = 0x2C
                        base[at + 1] = 0x0A
                        at += 2
                    }
                    let size = end(i) - starts[i]
                    if i != largest { (base + at).update(from: s.baseAddress! + offsets[i], count: size) }
                    at += size
                }
            }
        }
    }

    private static let spaces = [UInt8](repeating: 0x20, count: 64)

    private mutating func indent(_ level: Int) {
        var n = 2 * level
        while n > 0 {
            let k = min(n, Self.spaces.count)
            bytes.append(contentsOf: Self.spaces[0..<k])
            n -= k
        }
    }
}

/// The coding key of an array element (for `codingPath`).
struct SortedJSONIndexKey: CodingKey {
    var intValue: Int?
    var stringValue: String { "Index \(intValue ?? 0)" }
    init(index: Int) { intValue = index }
    init?(stringValue: String) { return nil }
    init?(intValue: Int) { self.intValue = intValue }
}

/// One value's place in the output: the `Encoder` a value's `encode(to:)` is given. It is filled
/// when the output grew past `token`, and can be filled only while the output is still there.
final class SortedJSONSlot: Encoder {
    let writer: SortedJSONWriter
    /// Nesting level of a container opened here.
    let depth: Int
    let parent: SortedJSONSlot?
    let key: (any CodingKey)?
    /// Where the output was when the slot was made.
    let token: Int

    init(writer: SortedJSONWriter, depth: Int, parent: SortedJSONSlot?, key: (any CodingKey)?) {
        self.writer = writer
        self.depth = depth
        self.parent = parent
        self.key = key
        token = writer.state.pointee.bytes.count
    }

    var codingPath: [any CodingKey] {
        var path: [any CodingKey] = []
        var s: SortedJSONSlot? = self
        while let slot = s {
            if let k = slot.key { path.append(k) }
            s = slot.parent
        }
        return path.reversed()
    }

    var userInfo: [CodingUserInfoKey: Any] { [:] }

    /// Nothing is written here yet, and the output is still here.
    var isCurrent: Bool { writer.state.pointee.bytes.count == token }

    /// Checks the slot can take its one value now.
    func claim() throws {
        guard isCurrent else { throw SortedJSONFallback() }
    }

    private func openHere(keyed: Bool) -> Int {
        let state = writer.state
        if let id = state.pointee.reopenable(keyed: keyed, level: depth, position: token) { return id }
        guard isCurrent else {
            state.pointee.failed = true
            return -1
        }
        return state.pointee.open(keyed: keyed, level: depth)
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        KeyedEncodingContainer(SortedJSONKeyedContainer<Key>(slot: self, id: openHere(keyed: true)))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        SortedJSONUnkeyedContainer(slot: self, id: openHere(keyed: false))
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        SortedJSONSingleValue(slot: self)
    }
}

struct SortedJSONKeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let slot: SortedJSONSlot
    let id: Int
    var codingPath: [any CodingKey] { slot.codingPath }
    private var w: UnsafeMutablePointer<SortedJSONState> { slot.writer.state }
    private var level: Int { slot.depth }

    private func begin(_ key: Key) throws {
        try w.pointee.activate(level: level, id: id)
        w.pointee.beginEntry(key.stringValue, level: level)
    }

    mutating func encodeNil(forKey key: Key) throws { try begin(key); w.pointee.ascii("null") }
    mutating func encode(_ value: Bool, forKey key: Key) throws { try begin(key); w.pointee.bool(value) }
    mutating func encode(_ value: String, forKey key: Key) throws { try begin(key); w.pointee.string(value) }
    mutating func encode(_ value: Double, forKey key: Key) throws { try begin(key); w.pointee.floating(value) }
    mutating func encode(_ value: Float, forKey key: Key) throws { try begin(key); w.pointee.floating(value) }
    mutating func encode(_ value: Int, forKey key: Key) throws { try begin(key); w.pointee.integer(value) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { try begin(key); w.pointee.integer(value) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { try begin(key); w.pointee.integer(value) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { try begin(key); w.pointee.integer(value) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { try begin(key); w.pointee.integer(value) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { try begin(key); w.pointee.integer(value) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { try begin(key); w.pointee.integer(value) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { try begin(key); w.pointee.integer(value) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { try begin(key); w.pointee.integer(value) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { try begin(key); w.pointee.integer(value) }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        try begin(key)
        try slot.writer.write(value, in: SortedJSONSlot(writer: slot.writer, depth: level + 1, parent: slot, key: key))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        nestedSlot(key).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        nestedSlot(key).unkeyedContainer()
    }

    private func nestedSlot(_ key: Key) -> SortedJSONSlot {
        do { try begin(key) } catch { w.pointee.failed = true }
        return SortedJSONSlot(writer: slot.writer, depth: level + 1, parent: slot, key: key)
    }

    mutating func superEncoder() -> any Encoder { w.pointee.failed = true; return slot }
    mutating func superEncoder(forKey key: Key) -> any Encoder { w.pointee.failed = true; return slot }
}

struct SortedJSONUnkeyedContainer: UnkeyedEncodingContainer {
    let slot: SortedJSONSlot
    let id: Int
    private(set) var count = 0
    var codingPath: [any CodingKey] { slot.codingPath }
    private var w: UnsafeMutablePointer<SortedJSONState> { slot.writer.state }
    private var level: Int { slot.depth }

    private mutating func begin() throws {
        try w.pointee.activate(level: level, id: id)
        w.pointee.beginElement(level: level)
        count += 1
    }

    mutating func encodeNil() throws { try begin(); w.pointee.ascii("null") }
    mutating func encode(_ value: Bool) throws { try begin(); w.pointee.bool(value) }
    mutating func encode(_ value: String) throws { try begin(); w.pointee.string(value) }
    mutating func encode(_ value: Double) throws { try begin(); w.pointee.floating(value) }
    mutating func encode(_ value: Float) throws { try begin(); w.pointee.floating(value) }
    mutating func encode(_ value: Int) throws { try begin(); w.pointee.integer(value) }
    mutating func encode(_ value: Int8) throws { try begin(); w.pointee.integer(value) }
    mutating func encode(_ value: Int16) throws { try begin(); w.pointee.integer(value) }
    mutating func encode(_ value: Int32) throws { try begin(); w.pointee.integer(value) }
    mutating func encode(_ value: Int64) throws { try begin(); w.pointee.integer(value) }
    mutating func encode(_ value: UInt) throws { try begin(); w.pointee.integer(value) }
    mutating func encode(_ value: UInt8) throws { try begin(); w.pointee.integer(value) }
    mutating func encode(_ value: UInt16) throws { try begin(); w.pointee.integer(value) }
    mutating func encode(_ value: UInt32) throws { try begin(); w.pointee.integer(value) }
    mutating func encode(_ value: UInt64) throws { try begin(); w.pointee.integer(value) }

    mutating func encode<T: Encodable>(_ value: T) throws {
        let key = SortedJSONIndexKey(index: count)
        try begin()
        try slot.writer.write(value, in: SortedJSONSlot(writer: slot.writer, depth: level + 1, parent: slot, key: key))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        nestedSlot().container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        nestedSlot().unkeyedContainer()
    }

    private mutating func nestedSlot() -> SortedJSONSlot {
        let key = SortedJSONIndexKey(index: count)
        do { try begin() } catch { w.pointee.failed = true }
        return SortedJSONSlot(writer: slot.writer, depth: level + 1, parent: slot, key: key)
    }

    mutating func superEncoder() -> any Encoder { w.pointee.failed = true; return slot }
}

struct SortedJSONSingleValue: SingleValueEncodingContainer {
    let slot: SortedJSONSlot
    var codingPath: [any CodingKey] { slot.codingPath }
    private var w: UnsafeMutablePointer<SortedJSONState> { slot.writer.state }

    mutating func encodeNil() throws { try slot.claim(); w.pointee.ascii("null") }
    mutating func encode(_ value: Bool) throws { try slot.claim(); w.pointee.bool(value) }
    mutating func encode(_ value: String) throws { try slot.claim(); w.pointee.string(value) }
    mutating func encode(_ value: Double) throws { try slot.claim(); w.pointee.floating(value) }
    mutating func encode(_ value: Float) throws { try slot.claim(); w.pointee.floating(value) }
    mutating func encode(_ value: Int) throws { try slot.claim(); w.pointee.integer(value) }
    mutating func encode(_ value: Int8) throws { try slot.claim(); w.pointee.integer(value) }
    mutating func encode(_ value: Int16) throws { try slot.claim(); w.pointee.integer(value) }
    mutating func encode(_ value: Int32) throws { try slot.claim(); w.pointee.integer(value) }
    mutating func encode(_ value: Int64) throws { try slot.claim(); w.pointee.integer(value) }
    mutating func encode(_ value: UInt) throws { try slot.claim(); w.pointee.integer(value) }
    mutating func encode(_ value: UInt8) throws { try slot.claim(); w.pointee.integer(value) }
    mutating func encode(_ value: UInt16) throws { try slot.claim(); w.pointee.integer(value) }
    mutating func encode(_ value: UInt32) throws { try slot.claim(); w.pointee.integer(value) }
    mutating func encode(_ value: UInt64) throws { try slot.claim(); w.pointee.integer(value) }

    /// The value goes where this container's slot is (an `Optional`'s wrapped value, a wrapper type's).
    mutating func encode<T: Encodable>(_ value: T) throws {
        try slot.claim()
        try slot.writer.write(value, in: SortedJSONSlot(writer: slot.writer, depth: slot.depth, parent: slot.parent, key: slot.key))
    }
}
