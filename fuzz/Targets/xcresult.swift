import Foundation
@testable import XCFleetKit

// The xcresulttool and simctl JSON readers. The first byte picks the reader; for the legacy
// format the rest is split at the first 0 byte into the invocation record and the tests record.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzXCResult(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    var input = FuzzInput(data, size)
    let which = input.byte() % 6
    let rest = input.remaining
    do {
        switch which {
        case 0:
            let results = try XCResultParser.parseTestResults(Data(rest))
            _ = XCResultParser.events(results)
        case 1:
            _ = try XCResultParser.legacyTestsRef(Data(rest))
        case 2:
            let split = rest.firstIndex(of: 0) ?? rest.count
            let results = try XCResultParser.parseLegacy(invocation: Data(rest[..<split]), tests: Data(rest[min(rest.count, split + 1)...]))
            _ = XCResultParser.events(results)
        case 3:
            _ = try SimctlJSON.devices(Data(rest))
        case 4:
            _ = try SimctlJSON.deviceTypes(Data(rest))
        default:
            _ = try SimctlJSON.runtimes(Data(rest))
        }
    } catch {
        invariant(!"\(error)".isEmpty, "an error says something")
    }
    return 0
}
