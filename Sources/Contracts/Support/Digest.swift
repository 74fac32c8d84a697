import Crypto

/// Stable identifiers derived from business ids.
package enum Digest {
    /// Hex SHA-256 of `parts`, each length-prefixed so no two different part lists (say
    /// `["a|b", "c"]` and `["a", "b|c"]`) can produce the same input.
    package static func sha256Hex(_ parts: [String]) -> String {
        Self.hex(SHA256.hash(data: Self.framed(parts)))
    }

    /// The first 16 bytes of SHA-256(`text`) as a lowercase RFC 9562 version-8 UUID: a stable
    /// id any consumer can store in a UUID column.
    package static func uuid(fromSHA256Of text: String) -> String {
        var bytes = Array(SHA256.hash(data: Array(text.utf8)).prefix(16))
        bytes[6] = (bytes[6] & 0x0F) | 0x80
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        return Self.uuidString(bytes)
    }

    /// 16 bytes formatted 8-4-4-4-12, lowercase. Written straight into one buffer: every
    /// audit entry and entitlement event id comes through here.
    package static func uuidString(_ bytes: [UInt8]) -> String {
        precondition(bytes.count == 16, "a UUID is 16 bytes")
        return String(unsafeUninitializedCapacity: 36) { text in
            var at = 0
            for (index, byte) in bytes.enumerated() {
                if index == 4 || index == 6 || index == 8 || index == 10 {
                    text[at] = UInt8(ascii: "-")
                    at += 1
                }
                text[at] = Self.hexDigits[Int(byte >> 4)]
                text[at + 1] = Self.hexDigits[Int(byte & 0x0F)]
                at += 2
            }
            return at
        }
    }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    package static func hex(_ bytes: some Sequence<UInt8>) -> String {
        var text: [UInt8] = []
        text.reserveCapacity(bytes.underestimatedCount * 2)
        for byte in bytes {
            text.append(Self.hexDigits[Int(byte >> 4)])
            text.append(Self.hexDigits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    private static func framed(_ parts: [String]) -> [UInt8] {
        var bytes: [UInt8] = []
        for part in parts {
            bytes += Array("\(part.utf8.count):".utf8)
            bytes += Array(part.utf8)
        }
        return bytes
    }
}
