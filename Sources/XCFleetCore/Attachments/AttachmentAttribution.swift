import Foundation
import XCFleetModel

/// Which test an attachment belongs to. In order: the runner said so (Swift Testing's
/// `⎙ Attached 'NAME' to TEST.`, the result bundle's manifest); the file lies in a folder named
/// after a test of the attempt (`$XCFLEET_ATTACHMENTS_DIR/StoreTests/testLoad/shot.png`, or
/// `…/attaches()/x.txt` for a Swift Testing test outside a suite); else nil (the attempt's).
public enum AttachmentAttribution {
    /// `recorded`: file name → test, from the runner; `tests`: the tests the attempt reported.
    public static func test(for name: String, recorded: [String: TestIdentifier], tests: [TestIdentifier]) -> String? {
        if let id = recorded[name] { return id.shortDescription }
        let parts = name.split(separator: "/").map(String.init)
        guard parts.count >= 2 else { return nil }
        if parts.count >= 3, let id = tests.first(where: { !$0.className.isEmpty && $0.className == parts[0] && $0.name == parts[1] }) {
            return id.shortDescription
        }
        if let id = tests.first(where: { $0.className.isEmpty && $0.name == parts[0] }) { return id.shortDescription }
        return nil
    }

    /// The runner's own attributions among an attempt's events (the last one for a name wins).
    public static func recorded(in events: [TestEvent]) -> [String: TestIdentifier] {
        var out: [String: TestIdentifier] = [:]
        for case .attachmentRecorded(let id?, let name) in events { out[name] = id }
        return out
    }

    /// The distinct tests an attempt's events name.
    public static func tests(in events: [TestEvent]) -> [TestIdentifier] {
        var seen = Set<TestIdentifier>()
        var out: [TestIdentifier] = []
        for e in events {
            let id: TestIdentifier?
            switch e {
            case .testStarted(let i, _): id = i
            case .testFinished(let i, _, _, _, _): id = i
            case .testFailure(let i, _, _, _): id = i
            default: id = nil
            }
            if let id, seen.insert(id).inserted { out.append(id) }
        }
        return out
    }
}
