import Foundation
import XCFleetBasics

/// Writes rendered suites under `xcfleet render --out DIR`: each suite replaces only its own
/// folder `DIR/NAME`, after `SafePath` has proven that folder is strictly inside `DIR` (a suite
/// named `..` could otherwise make the replacement delete `DIR`'s parent).
public struct RenderOutput: Sendable {
    public var directory: URL

    public init(directory: URL) { self.directory = directory }

    /// Replaces `DIR/<rendered.directoryName>` with the rendered package; returns its URL.
    @discardableResult
    public func write(_ rendered: RenderedSuite) throws -> URL {
        let target = try SafePath.child(rendered.directoryName, of: directory, what: "suite folder")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try SafePath.remove(target, inside: directory)
        try SafePath.createExclusively(target, inside: directory)
        try rendered.workspace.write(to: target)
        return target
    }
}
