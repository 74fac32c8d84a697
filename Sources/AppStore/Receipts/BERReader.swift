/// A minimal BER TLV reader for PKCS#7 app receipts.
///
/// Apple's receipts are mostly DER, but Xcode's StoreKit receipts use BER indefinite lengths
/// (`30 80 … 00 00`) and constructed OCTET STRINGs, which DER-only parsers refuse. Only what
/// receipts need is supported: single-byte tags (plus high-tag form for skipping), definite and
/// indefinite lengths, nesting bounded by ``maximumDepth``.
struct BERNode {
    /// The identifier octet (class, constructed bit, tag number < 31).
    var identifier: UInt8
    var isConstructed: Bool { self.identifier & 0x20 != 0 }
    /// Content octets of a primitive node.
    var content: ArraySlice<UInt8>
    /// Child nodes of a constructed node.
    var children: [BERNode]

    /// The value of an OCTET STRING, concatenating the segments of a constructed (BER) one.
    var octets: [UInt8] {
        if !self.isConstructed { return Array(self.content) }
        return self.children.flatMap(\.octets)
    }
}

struct BERError: Error, CustomStringConvertible {
    var description: String
}

enum BERReader {
    static let maximumDepth = 32

    /// Parses one element that must span all of `bytes`.
    static func parse(_ bytes: ArraySlice<UInt8>) throws(BERError) -> BERNode {
        var index = bytes.startIndex
        let node = try self.element(bytes, &index, depth: 0)
        guard index == bytes.endIndex else {
            throw BERError(description: "\(bytes.endIndex - index) trailing bytes after the element")
        }
        return node
    }

    private static func element(_ bytes: ArraySlice<UInt8>, _ index: inout Int, depth: Int) throws(BERError) -> BERNode
    {
        guard depth < self.maximumDepth else { throw BERError(description: "nesting deeper than \(self.maximumDepth)") }
        guard index < bytes.endIndex else { throw BERError(description: "truncated: missing identifier") }
        let identifier = bytes[index]
        index += 1
        if identifier & 0x1F == 0x1F {
            // High tag number form: skip the continuation octets; receipts never use it.
            while true {
                guard index < bytes.endIndex else { throw BERError(description: "truncated tag") }
                let octet = bytes[index]
                index += 1
                if octet & 0x80 == 0 { break }
            }
        }
        guard index < bytes.endIndex else { throw BERError(description: "truncated: missing length") }
        let first = bytes[index]
        index += 1
        let constructed = identifier & 0x20 != 0

        if first == 0x80 {
            guard constructed else { throw BERError(description: "indefinite length on a primitive element") }
            var children: [BERNode] = []
            while true {
                guard index + 1 < bytes.endIndex else { throw BERError(description: "missing end-of-contents") }
                if bytes[index] == 0, bytes[index + 1] == 0 {
                    index += 2
                    return BERNode(identifier: identifier, content: bytes[index..<index], children: children)
                }
                children.append(try self.element(bytes, &index, depth: depth + 1))
            }
        }

        var length = 0
        if first & 0x80 == 0 {
            length = Int(first)
        } else {
            let count = Int(first & 0x7F)
            guard count <= 4 else { throw BERError(description: "length of \(count) octets is too large") }
            for _ in 0..<count {
                guard index < bytes.endIndex else { throw BERError(description: "truncated length") }
                length = length << 8 | Int(bytes[index])
                index += 1
            }
        }
        guard length <= bytes.endIndex - index else {
            throw BERError(description: "length \(length) exceeds the \(bytes.endIndex - index) remaining bytes")
        }
        let content = bytes[index..<(index + length)]
        index += length
        guard constructed else { return BERNode(identifier: identifier, content: content, children: []) }

        var children: [BERNode] = []
        var childIndex = content.startIndex
        while childIndex < content.endIndex {
            children.append(try self.element(content, &childIndex, depth: depth + 1))
        }
        return BERNode(
            identifier: identifier, content: content[content.startIndex..<content.startIndex], children: children)
    }
}
