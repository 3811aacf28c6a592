import Foundation
@testable import XCFleetKit

// The streaming output parser: the input after 8 seed bytes is fed in chunks of random sizes
// (1 byte up to the whole rest); the events must equal those of one whole-buffer parse.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzParser(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    var input = FuzzInput(data, size)
    var seed: UInt64 = 0
    for _ in 0..<8 { seed = seed << 8 | UInt64(input.byte()) }
    let bytes = input.remaining
    var random = FuzzRandom(seed: seed)
    var parser = OutputParser()
    var chunked: [TestEvent] = []
    var i = 0
    while i < bytes.count {
        let n = 1 + random.below(random.below(4) == 0 ? bytes.count : 64)
        let end = min(bytes.count, i + n)
        chunked += parser.consume(bytes[i..<end])
        i = end
    }
    chunked += parser.finish()
    let whole = OutputParser.parse(Data(bytes))
    invariant(chunked == whole, "chunked parse differs from whole parse: \(chunked.count) vs \(whole.count) events")
    return 0
}
