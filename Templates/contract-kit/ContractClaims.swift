import XCTest

// Shared by every contract kit (rendered beside each contract's surface): which contract ids the
// suite's subject claims, the skip of an unclaimed test, and the failure for a part the subject's
// adapter does not provide.

/// The ids the suite's subject claims (nil: every id). From the plan, through `XCFleetSettings`.
enum ContractClaims {
    static func isClaimed(_ id: String) -> Bool {
        XCFleetSettings.claims.map { $0.contains(id) } ?? true
    }

    /// For `setUpWithError`: a test whose contract id is not claimed is skipped (never counted as passed).
    static func require(_ test: XCTestCase) throws {
        for id in contractIDs(in: test.name) where !isClaimed(id) {
            throw XCTSkip("\(id) not claimed by the subject")
        }
    }

    /// `C4` in `-[MemoryKeyTests testC4_x]` or `MemoryKeyTests.testC4_x`.
    static func contractIDs(in name: String) -> [String] {
        let method = name.split { $0 == " " || $0 == "." || $0 == "]" }.last.map(String.init) ?? ""
        guard method.hasPrefix("test") else { return [] }
        let rest = method.dropFirst(4)
        guard let first = rest.first, first == "C" || first == "K" else { return [] }
        let digits = rest.dropFirst().prefix { $0.isNumber }
        return digits.isEmpty ? [] : [String(first) + digits]
    }
}

/// A part the subject does not provide: the test fails when its id is claimed.
struct NotProvided: Error, CustomStringConvertible {
    var part: String
    var description: String { "the subject's adapter provides no \(part) (return one from ContractSubject, or leave its ids out of \"claims\")" }
}

func provided<T>(_ value: T?, _ part: String) throws -> T {
    guard let value else { throw NotProvided(part: part) }
    return value
}
