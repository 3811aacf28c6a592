import Foundation

/// Swift Testing's own records of its tests: the JSON lines its event stream writes
/// (`--event-stream-output-path FILE --event-stream-version 0`, with `--list-tests` one
/// `{"kind":"test","payload":{…}}` line per suite and test). They give what the plain list does not:
/// each test's display name, which is how its console output names the test.
public enum SwiftTestingRecords {
    /// Test (not suite) name → display name, for the records among `lines` that have one. Names
    /// are `swift test list`'s (`Target.Suite/test()`): the record's id without its source
    /// location. Lines that are not such a record are left out; nothing traps on bad input.
    public static func displayNames(_ lines: some Sequence<Substring>) -> [String: String] {
        var out: [String: String] = [:]
        for line in lines where line.hasPrefix("{") && line.utf8.count <= 1 << 16 {
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  object["kind"] as? String == "test", let payload = object["payload"] as? [String: Any],
                  payload["kind"] as? String == "function", let id = payload["id"] as? String,
                  let display = payload["displayName"] as? String, !display.isEmpty, display.count <= 1000 else { continue }
            out[testName(ofID: id)] = display
        }
        return out
    }

    /// `Target.Suite/test()/File.swift:12:6` → `Target.Suite/test()`.
    static func testName(ofID id: String) -> String {
        guard let slash = id.lastIndex(of: "/") else { return id }
        let last = id[id.index(after: slash)...]
        return last.contains(".swift:") ? String(id[..<slash]) : id
    }
}
