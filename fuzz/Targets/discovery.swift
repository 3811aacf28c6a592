import Foundation
@testable import XCFleetCore

// The test-discovery readers: `.xctestrun` (XML property lists), `.xctestplan`, `.xcscheme`,
// `-enumerate-tests` JSON and `swift test list`. The first byte picks the reader.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDiscovery(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    var input = FuzzInput(data, size)
    let which = input.byte() % 5
    let rest = Data(input.remaining)
    do {
        switch which {
        case 0:
            let run = try XCTestRunFile.parse(rest, file: "f.xctestrun")
            invariant(run.formatVersion == 1 || run.formatVersion == 2, "a read run file has format 1 or 2")
            invariant(run.formatVersion == 2 || run.configurations.isEmpty, "format 1 has no configurations")
        case 1:
            _ = try XCTestPlanFile.parse(rest, file: "f.xctestplan")
        case 2:
            _ = try XcodeSchemeFile.parse(rest, file: "f.xcscheme")
        case 3:
            let e = try XcodeTestEnumeration.parse(rest, file: "f.json")
            for t in e.tests { invariant(!t.target.isEmpty && !t.name.isEmpty, "a discovered test has a target and a name") }
        default:
            let text = String(decoding: rest, as: UTF8.self)
            let tests = SwiftTestList.parse(text)
            invariant(Set(tests.map(\.onlyTestingIdentifier)).count == tests.count, "a listed test appears once")
            // What one listing found, listed again, reads back the same.
            let again = SwiftTestList.parse(tests.map { "\($0.target).\($0.name)" }.joined(separator: "\n"))
            invariant(again == tests, "a listing reads back as itself")
        }
    } catch let error as DiscoveryFileError {
        invariant(!error.userMessage.isEmpty, "an error says something")
        invariant(!error.userMessage.contains("\n"), "an error is one line")
    } catch {
        invariant(false, "only DiscoveryFileError is thrown")
    }
    return 0
}
