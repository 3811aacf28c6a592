import Foundation
import XCFleetBasics
import XCFleetModel

/// A host a provisioner's create command made: the merged spec, the JSON it printed (given back
/// to the release command verbatim, so extra keys such as a VM id reach it), and its known_hosts lines.
public struct ProvisionedHost: Equatable, Sendable {
    public var index: Int
    public var spec: HostSpec
    public var json: Data
    public var knownHostsLines: [String]

    static let keyTypes: Set<String> = ["ssh-ed25519", "ecdsa-sha2-nistp256", "ecdsa-sha2-nistp384", "ecdsa-sha2-nistp521", "ssh-rsa"]

    /// Reads a create command's stdout (one JSON object) and merges it into `template`.
    /// Every problem is reported at once, with what to print instead. Never traps.
    static func parse(stdout: [UInt8], index: Int, template: HostSpec, knownHostsFile: String) throws(ProvisionFieldErrors) -> ProvisionedHost {
        let text = String(decoding: stdout, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        let example = #"{"address": "10.0.0.5", "port": 22, "user": "admin", "hostKey": "ssh-ed25519 AAAA…"}"#
        guard !text.isEmpty else {
            throw ProvisionFieldErrors(["printed nothing on stdout; it must print one JSON object such as \(example)"])
        }
        let document: JSONDocument
        do {
            document = try JSONDocument(text: text)
        } catch {
            throw ProvisionFieldErrors(["stdout is not one JSON object (\(error)); print progress to stderr and only \(example) to stdout; stdout was: \(excerpt(text))"])
        }
        guard case .object(let object) = document.root.value else {
            throw ProvisionFieldErrors(["stdout must be one JSON object such as \(example), got \(document.root.value.kindDescription)"])
        }
        var problems: [String] = []
        var spec = template
        spec.transport = .ssh
        spec.name = "prov-\(index)"
        spec.hostKeyPolicy = .strict
        spec.knownHostsFile = knownHostsFile

        if let node = object["name"]?.value {
            if case .string(let s) = node.value, isName(s) { spec.name = s } else {
                problems.append("\"name\" must be a string of letters, digits, '.', '_' or '-' (at most 64), got \(show(node.value))")
            }
        }
        if let node = object["address"]?.value, case .string(let raw) = node.value, let address = hostAddress(raw) {
            spec.address = address
        } else {
            problems.append("\"address\" must be a host name or IP address, got \(object["address"].map { show($0.value.value) } ?? "nothing")")
        }
        if let node = object["port"]?.value {
            if case .number(let n) = node.value, let port = n.intValue, FleetLoader.portRange.contains(port) { spec.port = port } else {
                problems.append("\"port\" must be an integer from 1 to 65535, got \(show(node.value))")
            }
        } else {
            spec.port = 22
        }
        if let node = object["user"]?.value {
            if case .string(let s) = node.value, isUser(s) { spec.user = s } else {
                problems.append("\"user\" must be a login name (letters, digits, '.', '_', '-'), got \(show(node.value))")
            }
        } else if !isUser(template.user) {
            problems.append("\"user\" is missing and the fleet's provisioner host template has no \"user\"")
        }
        var keyLine: (type: String, base64: String)?
        if let node = object["hostKey"]?.value, case .string(let s) = node.value {
            switch hostKey(s) {
            case .success(let key): keyLine = key
            case .failure(let why): problems.append("\"hostKey\" \(why.text)")
            }
        } else {
            problems.append("\"hostKey\" must be the host's public key as in known_hosts (\"ssh-ed25519 AAAA…\", e.g. from `ssh-keyscan -t ed25519`), got \(object["hostKey"].map { show($0.value.value) } ?? "nothing")")
        }
        if let node = object["labels"]?.value {
            if case .array(let items) = node.value, items.count <= 64 {
                var labels = template.labels
                for item in items {
                    if case .string(let s) = item.value, !s.isEmpty, s.count <= 100, !s.contains(where: \.isWhitespace) {
                        if !labels.contains(s) { labels.append(s) }
                    } else {
                        problems.append("\"labels\" must hold non-empty strings without spaces, got \(show(item.value))")
                    }
                }
                spec.labels = labels
            } else {
                problems.append("\"labels\" must be an array of at most 64 strings, got \(show(node.value))")
            }
        }
        if let node = object["slots"]?.value {
            if case .number(let n) = node.value, let slots = n.intValue, FleetLoader.slotRange.contains(slots) { spec.slots = slots } else {
                problems.append("\"slots\" must be an integer from 1 to 64, got \(show(node.value))")
            }
        }
        guard problems.isEmpty, let keyLine else { throw ProvisionFieldErrors(problems) }
        let lines = knownHostsNames(address: spec.address, port: spec.port).map { "\($0) \(keyLine.type) \(keyLine.base64)" }
        return ProvisionedHost(index: index, spec: spec, json: Data(text.utf8), knownHostsLines: lines)
    }

    /// `[address]:port` (OpenSSH's form for any port) plus the bare address for port 22.
    static func knownHostsNames(address: String, port: Int) -> [String] {
        port == 22 ? [address, "[\(address)]:22"] : ["[\(address)]:\(port)"]
    }

    /// Validates `type base64 [comment]`: a known key type whose blob really starts with that type.
    static func hostKey(_ text: String) -> Result<(type: String, base64: String), KeyProblem> {
        let parts = text.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        guard parts.count >= 2 else { return .failure(KeyProblem("must be \"<type> <base64>\" as in known_hosts, got \(show(.string(text)))")) }
        let type = parts[0], base64 = parts[1]
        guard keyTypes.contains(type) else {
            return .failure(KeyProblem("has key type \(show(.string(type))); use one of \(keyTypes.sorted().joined(separator: ", "))"))
        }
        guard base64.count <= 4096, let blob = Data(base64Encoded: base64), blob.count >= 4 + type.utf8.count else {
            return .failure(KeyProblem("is not valid base64 key data"))
        }
        let bytes = [UInt8](blob)
        let length = bytes[0..<4].reduce(0) { $0 << 8 | Int($1) }
        guard length == type.utf8.count, Array(bytes[4..<(4 + length)]) == Array(type.utf8) else {
            return .failure(KeyProblem("key data does not match its type \(type)"))
        }
        return .success((type, base64))
    }

    struct KeyProblem: Error { var text: String; init(_ t: String) { text = t } }

    static func isName(_ s: String) -> Bool {
        !s.isEmpty && s.count <= 64 && !s.hasPrefix("-")
            && s.unicodeScalars.allSatisfy { $0.isASCII && (CharacterSet.alphanumerics.contains($0) || "._-".unicodeScalars.contains($0)) }
    }

    static func isUser(_ s: String) -> Bool { isName(s) }

    /// A DNS name or IPv4/IPv6 literal (brackets removed); nil when it could smuggle options or spaces.
    static func hostAddress(_ raw: String) -> String? {
        var s = raw
        if s.hasPrefix("[") && s.hasSuffix("]") && s.count > 2 { s = String(s.dropFirst().dropLast()) }
        guard !s.isEmpty, s.count <= 253, !s.hasPrefix("-"),
              s.unicodeScalars.allSatisfy({ $0.isASCII && (CharacterSet.alphanumerics.contains($0) || ".-:_%".unicodeScalars.contains($0)) })
        else { return nil }
        return s
    }

    static func show(_ value: JSONValue) -> String {
        switch value {
        case .string(let s): return "\"\(excerpt(s))\""
        case .number(let n): return n.literal
        case .bool(let b): return String(b)
        case .null: return "null"
        case .array, .object: return value.kindDescription
        }
    }

    static func excerpt(_ s: String) -> String {
        let flat = s.replacingOccurrences(of: "\n", with: "⏎")
        return flat.count > 160 ? String(flat.prefix(160)) + "…" : flat
    }
}

/// Everything wrong with one create command's output.
struct ProvisionFieldErrors: Error {
    var problems: [String]
    init(_ problems: [String]) { self.problems = problems }
}
