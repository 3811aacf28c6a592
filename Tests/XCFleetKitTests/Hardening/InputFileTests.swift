import Foundation
import XCTest
import SSHClient
@testable import XCFleetKit
import XCFleetTestSupport

/// A link to a FIFO (or device) is refused like the FIFO itself, without
/// blocking, by the one input-file reader every loader uses.
final class InputFileTests: XCTestCase {
    var dir: URL!

    override func setUpWithError() throws {
        dir = try TestPaths.temporaryDirectory("inputfile")
    }

    func makeFIFOAndLink() throws -> (fifo: String, link: String) {
        let fifo = dir.appendingPathComponent("plan.fifo").path
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        let link = dir.appendingPathComponent("plan.json").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: fifo)
        return (fifo, link)
    }

    /// Runs `body` on a thread and fails (instead of hanging the suite) if it has not returned in 5 s.
    func withinFiveSeconds(_ what: String, _ body: @escaping @Sendable () throws -> Void) {
        let done = DispatchSemaphore(value: 0)
        Thread { try? body(); done.signal() }.start()
        if done.wait(timeout: .now() + 5) == .timedOut { XCTFail("\(what) blocked on a FIFO") }
    }

    func testLinkToFIFOIsRefusedByEveryLoaderWithoutBlocking() throws {
        let (fifo, link) = try makeFIFOAndLink()
        for path in [fifo, link] {
            withinFiveSeconds("InputFile \(path)") {
                XCTAssertThrowsError(try InputFile.read(path)) { error in
                    XCTAssertEqual((error as? InputFileError)?.kind, .notRegular("a FIFO"))
                }
            }
            withinFiveSeconds("plan loader") {
                XCTAssertThrowsError(try PlanLoader.load(path: path, knownTemplates: ["cache-contract"])) { error in
                    XCTAssertEqual("\(error)", "\(path): cannot read the file: not a regular file (it is a FIFO, or a link to one); give a regular file")
                }
            }
            withinFiveSeconds("fleet loader") {
                XCTAssertThrowsError(try FleetLoader.load(path: path))
            }
            withinFiveSeconds("history") {
                XCTAssertThrowsError(try DurationHistory(contentsOf: path))
            }
        }
        // A link to a regular file is fine (links are resolved, not refused).
        let real = dir.appendingPathComponent("real.json")
        try Data("{\"name\": \"p\", \"suites\": [{\"name\": \"s\", \"template\": \"cache-contract\"}]}".utf8).write(to: real)
        let goodLink = dir.appendingPathComponent("good.json").path
        try FileManager.default.createSymbolicLink(atPath: goodLink, withDestinationPath: real.path)
        XCTAssertEqual(try PlanLoader.load(path: goodLink, knownTemplates: ["cache-contract"]).name, "p")
    }

    func testSizeCapAndDevices() throws {
        XCTAssertThrowsError(try InputFile.read("/dev/zero")) { error in
            XCTAssertEqual((error as? InputFileError)?.kind, .notRegular("a device"))
        }
        let big = dir.appendingPathComponent("big")
        try Data(count: 2000).write(to: big)
        XCTAssertThrowsError(try InputFile.read(big.path, limit: 1000)) { error in
            XCTAssertEqual((error as? InputFileError)?.kind, .tooLarge(1000))
        }
        XCTAssertEqual(try InputFile.read(big.path, limit: 2000).count, 2000)
        XCTAssertThrowsError(try InputFile.read(dir.path)) { error in
            XCTAssertEqual((error as? InputFileError)?.kind, .directory)
        }
    }

    func testEventsJSONLBehindAFIFOLinkIsRefused() throws {
        let fifo = dir.appendingPathComponent("ev.fifo").path
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        let run = dir.appendingPathComponent("run")
        try FileManager.default.createDirectory(at: run, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: run.appendingPathComponent("events.jsonl").path, withDestinationPath: fifo)
        withinFiveSeconds("events.jsonl") {
            XCTAssertThrowsError(try EventLog.read(run.appendingPathComponent("events.jsonl")))
        }
    }
}
