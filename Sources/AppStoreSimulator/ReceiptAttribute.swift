import SwiftASN1

/// One receipt field: `SEQUENCE { type INTEGER, version INTEGER, value OCTET STRING }`.
///
/// The value's octets are themselves DER (a UTF8String, IA5String, INTEGER or, for type 17,
/// a nested SET of attributes), as in Apple's app receipts.
struct ReceiptAttribute: DERImplicitlyTaggable, Hashable, Sendable {
    static var defaultIdentifier: ASN1Identifier { .sequence }

    var type: Int
    var version: Int
    var value: ArraySlice<UInt8>

    init(type: Int, version: Int = 1, value: ArraySlice<UInt8>) {
        self.type = type
        self.version = version
        self.value = value
    }

    init(derEncoded root: ASN1Node, withIdentifier identifier: ASN1Identifier) throws {
        self = try DER.sequence(root, identifier: identifier) { nodes in
            let type = try Int(derEncoded: &nodes)
            let version = try Int(derEncoded: &nodes)
            let value = try ASN1OctetString(derEncoded: &nodes)
            return ReceiptAttribute(type: type, version: version, value: value.bytes)
        }
    }

    func serialize(into coder: inout DER.Serializer, withIdentifier identifier: ASN1Identifier) throws {
        try coder.appendConstructedNode(identifier: identifier) { coder in
            try coder.serialize(type)
            try coder.serialize(version)
            try coder.serialize(ASN1OctetString(contentBytes: value))
        }
    }

    // MARK: Typed values

    static func utf8(_ type: Int, _ text: String) throws -> ReceiptAttribute {
        ReceiptAttribute(type: type, value: try der(ASN1UTF8String(text)))
    }

    static func ia5(_ type: Int, _ text: String) throws -> ReceiptAttribute {
        ReceiptAttribute(type: type, value: try der(ASN1IA5String(text)))
    }

    static func integer(_ type: Int, _ number: Int) throws -> ReceiptAttribute {
        ReceiptAttribute(type: type, value: try der(number))
    }

    static func set(_ type: Int, _ attributes: [ReceiptAttribute]) throws -> ReceiptAttribute {
        ReceiptAttribute(type: type, value: try encodeSet(attributes)[...])
    }

    /// The DER SET OF attributes (sorted, as DER requires for SET OF).
    static func encodeSet(_ attributes: [ReceiptAttribute]) throws -> [UInt8] {
        var serializer = DER.Serializer()
        try serializer.serializeSetOf(attributes)
        return serializer.serializedBytes
    }

    static func decodeSet(_ bytes: ArraySlice<UInt8>) throws -> [ReceiptAttribute] {
        // Parsed from a copy: nested slices keep their parent's indices, and a fresh array keeps
        // every offset relative to this SET alone.
        try DER.set(of: ReceiptAttribute.self, identifier: .set, rootNode: try DER.parse(Array(bytes)))
    }

    private static func der(_ value: some DERSerializable) throws -> ArraySlice<UInt8> {
        var serializer = DER.Serializer()
        try serializer.serialize(value)
        return serializer.serializedBytes[...]
    }

    /// The value read as a UTF8String or IA5String; nil for other encodings.
    var stringValue: String? {
        guard let node = try? DER.parse(value) else { return nil }
        if let text = try? ASN1UTF8String(derEncoded: node) { return String(text) }
        if let text = try? ASN1IA5String(derEncoded: node) { return String(text) }
        return nil
    }

    var intValue: Int? {
        guard let node = try? DER.parse(value) else { return nil }
        return try? Int(derEncoded: node)
    }
}

/// Attribute numbers of Apple's app receipt (see reference `apple-app-store.md` §9).
enum ReceiptField {
    static let environment = 0
    static let appItemId = 1
    static let bundleId = 2
    static let appVersion = 3
    static let opaqueValue = 4
    static let sha1Hash = 5
    static let creationDate = 12
    static let inApp = 17
    static let originalAppVersion = 19
    static let quantity = 1701
    static let productId = 1702
    static let transactionId = 1703
    static let purchaseDate = 1704
    static let originalTransactionId = 1705
    static let originalPurchaseDate = 1706
    static let expiresDate = 1708
    static let webOrderLineItemId = 1711
    static let cancellationDate = 1712
}
