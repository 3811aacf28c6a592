import Foundation
@testable import XCFleetKit

// The quarantine loader on arbitrary bytes: any input is a quarantine or a ValidationError, never a
// trap; every loaded entry has the required fields, a real date and a test the verdict can match.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzQuarantine(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = Data(FuzzInput(data, size).remaining)
    do {
        let loaded = try QuarantineLoader.parse(bytes, path: "fuzz/quarantine.json", suites: ["cache-gate"], today: Date(timeIntervalSince1970: 0))
        for e in loaded.quarantine.entries {
            invariant(!e.reason.isEmpty && !e.owner.isEmpty && !e.suite.isEmpty, "required fields are present")
            invariant(QuarantineLoader.isDate(e.expires), "expires is a real day")
            invariant(e.key.contains("/"), "the key is Class/test")
        }
        invariant(loaded.warnings.count <= loaded.quarantine.entries.count, "at most one warning per entry")
    } catch let error as ValidationError {
        invariant(!error.problems.isEmpty && !error.description.isEmpty, "a quarantine error says something")
    } catch {
        invariant(false, "only ValidationError is thrown: \(error)")
    }
    return 0
}
