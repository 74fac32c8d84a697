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

    /// 16 bytes formatted 8-4-4-4-12, lowercase.
    package static func uuidString(_ bytes: [UInt8]) -> String {
        let hex = Self.hex(bytes)
        let groups = [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { range in
            String(
                hex[
                    hex.index(
                        hex.startIndex, offsetBy: range.lowerBound)..<hex.index(
                            hex.startIndex, offsetBy: range.upperBound)])
        }
        return groups.joined(separator: "-")
    }

    package static func hex(_ bytes: some Sequence<UInt8>) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
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
