import Foundation
// TEMPORARY stub; replaced by the parser branch.
public struct OutputParser: Sendable {
    public init() {}
    public mutating func consume<C: Collection>(_ bytes: C) -> [TestEvent] where C.Element == UInt8 { [] }
    public mutating func finish() -> [TestEvent] { [] }
    public static func parse(_ data: Data) -> [TestEvent] { [] }
}
