/// Base64 decoding straight from UTF-8 bytes, accepting both the standard and the URL-safe
/// alphabet with or without padding.
///
/// JWS segments are base64url without padding and `x5c` entries are standard base64 with
/// padding; Foundation's decoder wants only the latter and a `String` copy first. Decoding
/// dominates parsing of a ~4 KB header, so this works on the bytes in one pass.
package enum Base64 {
    private static let invalid: UInt8 = 0xFF

    private static let table: [UInt8] = {
        var table = [UInt8](repeating: invalid, count: 256)
        for (index, character) in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8.enumerated() {
            table[Int(character)] = UInt8(index)
        }
        table[Int(UInt8(ascii: "-"))] = 62
        table[Int(UInt8(ascii: "_"))] = 63
        return table
    }()

    /// Returns nil for characters outside both alphabets, misplaced padding or an impossible length.
    package static func decode<Bytes: Collection<UInt8>>(_ input: Bytes) -> [UInt8]? {
        if let decoded = input.withContiguousStorageIfAvailable({ self.decode(contiguous: $0) }) { return decoded }
        return Array(input).withUnsafeBufferPointer { self.decode(contiguous: $0) }
    }

    /// Works on raw buffers: every record verify reads carries a ~3 KB JWS, and the
    /// index-generic loop with a bounds-checked table and a growing array was 5 % of its CPU.
    private static func decode(contiguous input: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        var end = input.count
        var padding = 0
        while padding < 2, end > 0, input[end - 1] == UInt8(ascii: "=") {
            end -= 1
            padding += 1
        }
        if end % 4 == 1 { return nil }
        if padding > 0, (end + padding) % 4 != 0 { return nil }
        let outputCount = end / 4 * 3 + max(end % 4 - 1, 0)

        return self.table.withUnsafeBufferPointer { table -> [UInt8]? in
            var valid = true
            let output = [UInt8](unsafeUninitializedCapacity: outputCount) { output, initialized in
                var written = 0
                // Whole groups of four characters first, three bytes each: one validity test per
                // group (the invalid marker has the high bit set, so it survives the OR), no
                // per-character branching. The tail goes through the bit accumulator below.
                let groups = end / 4
                for group in 0..<groups {
                    let at = group * 4
                    let a = table[Int(input[at])]
                    let b = table[Int(input[at + 1])]
                    let c = table[Int(input[at + 2])]
                    let d = table[Int(input[at + 3])]
                    if (a | b | c | d) & 0x80 != 0 {
                        valid = false
                        break
                    }
                    let word = UInt32(a) << 18 | UInt32(b) << 12 | UInt32(c) << 6 | UInt32(d)
                    output[written] = UInt8(truncatingIfNeeded: word >> 16)
                    output[written + 1] = UInt8(truncatingIfNeeded: word >> 8)
                    output[written + 2] = UInt8(truncatingIfNeeded: word)
                    written += 3
                }
                var accumulator: UInt32 = 0
                var bits: UInt32 = 0
                for index in (valid ? groups * 4 : end)..<end {
                    let value = table[Int(input[index])]
                    if value == self.invalid {
                        valid = false
                        break
                    }
                    accumulator = (accumulator << 6) | UInt32(value)
                    bits += 6
                    if bits >= 8 {
                        bits -= 8
                        output[written] = UInt8(truncatingIfNeeded: accumulator >> bits)
                        written += 1
                    }
                }
                initialized = valid ? written : 0
            }
            return valid ? output : nil
        }
    }

    /// Standard alphabet with padding, as `x5c` and `receipt-data` expect.
    package static func encode<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> String {
        self.encode(bytes, alphabet: self.standardAlphabet, padded: true)
    }

    /// URL-safe alphabet without padding, as JWS segments use.
    package static func encodeURL<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> String {
        self.encode(bytes, alphabet: self.urlAlphabet, padded: false)
    }

    private static let standardAlphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
    private static let urlAlphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    private static func encode<Bytes: Sequence<UInt8>>(_ bytes: Bytes, alphabet: [UInt8], padded: Bool) -> String {
        var output = [UInt8]()
        var accumulator: UInt32 = 0
        var bits = 0
        for byte in bytes {
            accumulator = (accumulator << 8) | UInt32(byte)
            bits += 8
            while bits >= 6 {
                bits -= 6
                output.append(alphabet[Int((accumulator >> UInt32(bits)) & 0x3F)])
            }
        }
        if bits > 0 {
            output.append(alphabet[Int((accumulator << UInt32(6 - bits)) & 0x3F)])
        }
        if padded {
            while output.count % 4 != 0 { output.append(UInt8(ascii: "=")) }
        }
        return String(decoding: output, as: UTF8.self)
    }
}
