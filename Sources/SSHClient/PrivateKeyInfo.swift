import Foundation
import XCFleetBasics

/// What a private key file is, read without decrypting it (OpenSSH keeps the public part of
/// `openssh-key-v1` files in clear). Used to explain auth failures: libssh2 1.10 cannot sign
/// with rsa-sha2, so RSA keys fail against OpenSSH ≥ 8.8.
enum PrivateKeyInfo {
    /// `ssh-ed25519`, `ssh-rsa`, `ecdsa-sha2-nistp256`, … or nil when the file is not understood.
    static func keyType(ofFileAt path: String) -> String? {
        guard let data = try? InputFile.read(path, limit: 1 << 20) else { return nil }
        return keyType(pem: String(decoding: data, as: UTF8.self))
    }

    static func keyType(pem: String) -> String? {
        if pem.contains("BEGIN RSA PRIVATE KEY") { return "ssh-rsa" }
        if pem.contains("BEGIN DSA PRIVATE KEY") { return "ssh-dss" }
        if pem.contains("BEGIN EC PRIVATE KEY") { return "ecdsa" }
        guard pem.contains("BEGIN OPENSSH PRIVATE KEY") else { return nil }
        let body = pem.split(separator: "\n")
            .filter { !$0.hasPrefix("-----") }
            .joined()
            .trimmingCharacters(in: .whitespacesAndNewlines)
        guard let raw = Data(base64Encoded: body) else { return nil }
        var reader = ByteReader([UInt8](raw))
        let magic = Array("openssh-key-v1".utf8) + [0]
        guard reader.take(magic.count) == magic,
              reader.string() != nil, reader.string() != nil, reader.string() != nil,  // cipher, kdf, kdf options
              let count = reader.uint32(), count >= 1,
              let publicKey = reader.string() else { return nil }
        var inner = ByteReader(publicKey)
        return inner.string().map { String(decoding: $0, as: UTF8.self) }
    }
}

/// SSH wire-format reader (uint32 big-endian lengths); never traps on short input.
struct ByteReader {
    private let bytes: [UInt8]
    private var offset = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    mutating func take(_ n: Int) -> [UInt8]? {
        guard n >= 0, n <= bytes.count - offset else { return nil }
        defer { offset += n }
        return Array(bytes[offset..<offset + n])
    }

    mutating func uint32() -> UInt32? {
        guard let b = take(4) else { return nil }
        return UInt32(b[0]) << 24 | UInt32(b[1]) << 16 | UInt32(b[2]) << 8 | UInt32(b[3])
    }

    mutating func string() -> [UInt8]? {
        guard let n = uint32(), n <= UInt32(Int32.max) else { return nil }
        return take(Int(n))
    }
}
