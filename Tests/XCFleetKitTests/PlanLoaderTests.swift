import XCTest
@testable import XCFleetKit

final class PlanLoaderTests: XCTestCase {
    func testDump() throws {
        let dir = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")
        for name in ["plans/many-problems.json", "plans/invalid-json.json", "plans/empty-suites.json", "plans/duplicate-key.json", "plans/defaults.json"] {
            do { let p = try PlanLoader.load(path: dir.appendingPathComponent(name).path, knownTemplates: ["cache-contract", "pressure-probes", "combine-lifetime"]); print(p) }
            catch { print("\(error)") }
        }
        for name in ["fleets/broken.json", "fleets/lab.json", "fleets/provisioned.json"] {
            do { let p = try FleetLoader.load(path: dir.appendingPathComponent(name).path, homeDirectory: "/home/u"); print(p) }
            catch { print("\(error)") }
        }
    }
}
