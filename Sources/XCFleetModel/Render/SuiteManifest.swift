import Foundation

/// What a rendered package is (`xcfleet-manifest.json`): its suite, template, test target and
/// mutant. It lists no tests: those are discovered in what was built (docs/discovery.md).
public struct SuiteManifest: Equatable, Codable, Sendable {
    public var suite: String
    public var template: String
    public var testTarget: String
    public var mutant: String?

    package init(suite: String, template: String, testTarget: String, mutant: String? = nil) {
        self.suite = suite
        self.template = template
        self.testTarget = testTarget
        self.mutant = mutant
    }
}
