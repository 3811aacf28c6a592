import Foundation

/// The list of tests a rendered suite must run and see pass (`xcfleet-manifest.json`).
public struct SuiteManifest: Equatable, Codable, Sendable {
    public var suite: String
    public var template: String
    public var testTarget: String
    public var mutant: String?
    /// `Class/testName`, in file order.
    public var tests: [String]

    package init(suite: String, template: String, testTarget: String, mutant: String? = nil, tests: [String]) {
        self.suite = suite
        self.template = template
        self.testTarget = testTarget
        self.mutant = mutant
        self.tests = tests
    }
}
