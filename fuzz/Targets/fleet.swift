import Foundation
@testable import XCFleetKit

// The fleet loader on arbitrary bytes (relative paths resolve under a folder that does not exist).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzFleet(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = Data(FuzzInput(data, size).remaining)
    do {
        let fleet = try FleetLoader.parse(bytes, path: "/nonexistent-xcfleet-fuzz/fleet.json",
                                          baseDirectory: "/nonexistent-xcfleet-fuzz", homeDirectory: "/nonexistent-xcfleet-fuzz/home")
        invariant(!fleet.hosts.isEmpty, "a loaded fleet has hosts")
        _ = fleet.secrets
    } catch {
        invariant(!"\(error)".isEmpty, "an error says something")
    }
    return 0
}
