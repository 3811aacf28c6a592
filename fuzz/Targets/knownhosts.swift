import Foundation
@testable import SSHClient

// The known_hosts parser and matcher: a name, a key blob, then the file text.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzKnownHosts(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    var input = FuzzInput(data, size)
    let name = input.string()
    let key = Array(input.string().utf8)
    let text = String(decoding: input.remaining, as: UTF8.self)
    let hosts = KnownHosts(text: text)
    for entry in hosts.entries {
        invariant(entry.line >= 1, "line numbers start at 1")
        _ = KnownHosts.hostField(entry.hostField, matches: name)
    }
    _ = hosts.keyTypes(for: name)
    let verdict = hosts.verify(name: name, keyBlob: key)
    if case .changed(let known) = verdict { invariant(!known.isEmpty, "a changed key names the known lines") }
    _ = KnownHosts.fingerprint(key)
    // A line we write for a name must read back as a match for that name.
    if !name.isEmpty, !name.unicodeScalars.contains(where: { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" || $0 == "," || $0 == "*" || $0 == "?" || $0 == "!" || $0 == "#" || $0 == "@" || $0 == "|" || $0 == "[" || $0 == "]" }) ,
       !key.isEmpty, !name.hasPrefix("#") {
        let written = KnownHosts(text: KnownHosts.plainLine(name: name, keyType: "ssh-ed25519", keyBlob: key))
        invariant(written.verify(name: name, keyBlob: key) == .match, "a written plain line matches its own name")
    }
    return 0
}
