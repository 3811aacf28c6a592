import Foundation
#if canImport(Glibc)
import Glibc
#endif

// Shared by every fuzz target (compiled into each by scripts/fuzz.sh; not part of the package).

/// An invariant the harness checks: on violation, print what and trap, so libFuzzer records the
/// input as a crash (`crash-…`) and scripts/fuzz.sh fails.
func invariant(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String,
               file: StaticString = #fileID, line: UInt = #line) {
    if !condition() {
        FileHandle.standardError.write(Data("fuzz invariant violated at \(file):\(line): \(message())\n".utf8))
        abort()
    }
}

/// Reads a fuzzer input as a stream of small decisions and strings.
struct FuzzInput {
    private let bytes: [UInt8]
    private var offset = 0

    init(_ data: UnsafePointer<UInt8>?, _ size: Int) {
        bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    }

    var isEmpty: Bool { offset >= bytes.count }
    var remaining: [UInt8] { Array(bytes[min(offset, bytes.count)...]) }

    mutating func byte() -> UInt8 {
        guard offset < bytes.count else { return 0 }
        defer { offset += 1 }
        return bytes[offset]
    }

    /// A string up to the next 0 byte (or the end), decoded leniently as UTF-8.
    mutating func string() -> String {
        var out: [UInt8] = []
        while offset < bytes.count {
            let b = bytes[offset]
            offset += 1
            if b == 0 { break }
            out.append(b)
        }
        return String(decoding: out, as: UTF8.self)
    }
}

/// A tiny xorshift generator (deterministic per input, so a crash reproduces).
struct FuzzRandom {
    private var state: UInt64
    init(seed: UInt64) { state = seed == 0 ? 0x9E37_79B9_7F4A_7C15 : seed }
    mutating func next() -> UInt64 {
        state ^= state << 13
        state ^= state >> 7
        state ^= state << 17
        return state
    }
    mutating func below(_ n: Int) -> Int { n <= 1 ? 0 : Int(next() % UInt64(n)) }
}
