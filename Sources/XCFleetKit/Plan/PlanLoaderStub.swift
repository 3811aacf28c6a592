import Foundation
// TEMPORARY stub; replaced by the loader branch.
public struct PlanValidationError: Error, CustomStringConvertible { public var description: String }
public enum PlanLoader {
    public static func load(path: String, knownTemplates: Set<String>) throws -> TestPlan {
        guard let data = FileManager.default.contents(atPath: path) else { throw PlanValidationError(description: "\(path): cannot read") }
        struct P: Decodable { var name: String; var suites: [S] }
        struct S: Decodable { var name: String; var template: String; var kind: SuiteKind? }
        do {
            let p = try JSONDecoder().decode(P.self, from: data)
            return TestPlan(name: p.name, suites: p.suites.map { SuiteSpec(name: $0.name, template: $0.template, kind: $0.kind ?? .gate) }, sourcePath: path)
        } catch { throw PlanValidationError(description: "\(path): \(error)") }
    }
}
public enum FleetLoader {
    public static func load(path: String) throws -> Fleet { throw PlanValidationError(description: "\(path): fleet files not supported yet") }
}
