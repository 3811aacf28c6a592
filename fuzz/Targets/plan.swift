import Foundation
@testable import XCFleetKit

// The plan loader on arbitrary bytes: any input is a plan or a PlanValidationError, never a trap.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPlan(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = Data(FuzzInput(data, size).remaining)
    do {
        let plan = try PlanLoader.parse(bytes, path: "fuzz/plan.json", knownTemplates: TemplateInfo.names)
        invariant(!plan.suites.isEmpty, "a loaded plan has suites")
    } catch let error as PlanValidationError {
        invariant(!error.description.isEmpty, "a plan error says something")
    } catch {
        invariant(!"\(error)".isEmpty, "an error says something")
    }
    return 0
}
