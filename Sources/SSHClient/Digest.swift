import XCFleetBasics

/// SHA-1, SHA-256 (through `SHA256`) and HMAC-SHA1 over byte arrays: host-key fingerprints (`SHA256:…`) and
/// OpenSSH hashed known_hosts names (`|1|salt|HMAC-SHA1(salt, name)`). Linux has no CryptoKit;
/// SHA-256 itself lives in XCFleetBasics (Foundation only), the one module this one depends on.
enum Digest {
    static func sha256(_ message: [UInt8]) -> [UInt8] { SHA256.hash(message) }

    static func sha1(_ message: [UInt8]) -> [UInt8] {
        var h: [UInt32] = [0x67452301, 0xEFCDAB89, 0x98BADCFE, 0x10325476, 0xC3D2E1F0]
        var w = [UInt32](repeating: 0, count: 80)
        for block in padded(message) {
            for i in 0..<16 { w[i] = block[i] }
            for i in 16..<80 { w[i] = rotl(w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16], 1) }
            var a = h[0], b = h[1], c = h[2], d = h[3], e = h[4]
            for i in 0..<80 {
                let f: UInt32, k: UInt32
                switch i {
                case 0..<20: f = (b & c) | (~b & d); k = 0x5A827999
                case 20..<40: f = b ^ c ^ d; k = 0x6ED9EBA1
                case 40..<60: f = (b & c) | (b & d) | (c & d); k = 0x8F1BBCDC
                default: f = b ^ c ^ d; k = 0xCA62C1D6
                }
                let t = rotl(a, 5) &+ f &+ e &+ k &+ w[i]
                e = d; d = c; c = rotl(b, 30); b = a; a = t
            }
            h[0] &+= a; h[1] &+= b; h[2] &+= c; h[3] &+= d; h[4] &+= e
        }
        return bigEndianBytes(h)
    }

    static func hmacSHA1(key: [UInt8], message: [UInt8]) -> [UInt8] {
        var k = key.count > 64 ? sha1(key) : key
        k += [UInt8](repeating: 0, count: 64 - k.count)
        let inner = sha1(k.map { $0 ^ 0x36 } + message)
        return sha1(k.map { $0 ^ 0x5c } + inner)
    }

    /// Message padded (FIPS 180-4) and cut into 16-word big-endian blocks.
    private static func padded(_ message: [UInt8]) -> [[UInt32]] {
        var bytes = message
        let bitLength = UInt64(message.count) &* 8
        bytes.append(0x80)
        while bytes.count % 64 != 56 { bytes.append(0) }
        for i in (0..<8).reversed() { bytes.append(UInt8(truncatingIfNeeded: bitLength >> (UInt64(i) * 8))) }
        var blocks: [[UInt32]] = []
        blocks.reserveCapacity(bytes.count / 64)
        var offset = 0
        while offset < bytes.count {
            var block = [UInt32](repeating: 0, count: 16)
            for i in 0..<16 {
                let j = offset + i * 4
                block[i] = UInt32(bytes[j]) << 24 | UInt32(bytes[j + 1]) << 16 | UInt32(bytes[j + 2]) << 8 | UInt32(bytes[j + 3])
            }
            blocks.append(block)
            offset += 64
        }
        return blocks
    }

    private static func bigEndianBytes(_ words: [UInt32]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(words.count * 4)
        for word in words {
            out += [UInt8(truncatingIfNeeded: word >> 24), UInt8(truncatingIfNeeded: word >> 16),
                    UInt8(truncatingIfNeeded: word >> 8), UInt8(truncatingIfNeeded: word)]
        }
        return out
    }

    private static func rotr(_ x: UInt32, _ n: UInt32) -> UInt32 { (x >> n) | (x << (32 - n)) }
    private static func rotl(_ x: UInt32, _ n: UInt32) -> UInt32 { (x << n) | (x >> (32 - n)) }
}
