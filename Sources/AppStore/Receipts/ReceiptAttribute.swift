import AppStoreModels
import Foundation

/// One receipt attribute; its value is itself a DER/BER element whose type depends on the
/// attribute (UTF8String, IA5String or INTEGER).
struct ReceiptAttribute {
    var type: Int64
    var value: [UInt8]

    private var element: BERNode? { try? BERReader.parse(self.value[...]) }

    /// The value as text: UTF8String (0x0C) or IA5String (0x16).
    var string: String? {
        guard let element, !element.isConstructed, element.identifier == 0x0C || element.identifier == 0x16 else {
            return nil
        }
        return String(decoding: element.content, as: UTF8.self)
    }

    var integer: Int64? {
        guard let element, element.identifier == 0x02 else { return nil }
        return BERInteger.value(element.content)
    }

    /// RFC 3339 dates such as `2023-05-09T23:20:55Z`; an empty string (no date) gives nil.
    var date: Date? { self.string.flatMap(RFC3339.date(from:)) }
}

enum BERInteger {
    /// Two's-complement big-endian content of at most 8 octets.
    static func value(_ content: ArraySlice<UInt8>) -> Int64? {
        guard let first = content.first, content.count <= 8 else { return nil }
        var value: Int64 = first & 0x80 != 0 ? -1 : 0
        for byte in content {
            value = value << 8 | Int64(byte)
        }
        return value
    }
}
