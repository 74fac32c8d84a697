import Foundation
import SwiftASN1

/// Reads back the receipts the simulator issued, for its verifyReceipt endpoint.
///
/// Deliberately minimal (DER only, the fields the simulator writes): the real decoder lives in
/// the `AppStore` module. Every failure is nil, which verifyReceipt answers with status 21002.
enum ReceiptReader {
    struct AppReceipt: Sendable {
        /// "Production" or "ProductionSandbox".
        var environment: String
        var bundleId: String
        var creationDate: String
        var inApp: [InAppRecord]
    }

    struct InAppRecord: Sendable {
        var quantity: Int
        var productId: String
        var transactionId: String
        var originalTransactionId: String
        var purchaseDate: String
        var originalPurchaseDate: String
        var expiresDate: String?
        var webOrderLineItemId: Int?
        var cancellationDate: String?
    }

    static let signedDataOID: ASN1ObjectIdentifier = [1, 2, 840, 113_549, 1, 7, 2]

    /// The encapsulated content of a PKCS#7 SignedData: ContentInfo → [0] → SignedData →
    /// encapContentInfo → [0] → OCTET STRING.
    static func signedContent(_ der: [UInt8]) throws -> ArraySlice<UInt8> {
        try DER.sequence(try DER.parse(der), identifier: .sequence) { nodes in
            guard try ASN1ObjectIdentifier(derEncoded: &nodes) == signedDataOID else {
                throw ASN1Error.invalidASN1Object(reason: "not PKCS#7 signedData")
            }
            return try DER.explicitlyTagged(&nodes, tagNumber: 0, tagClass: .contextSpecific) { signedData in
                try DER.sequence(signedData, identifier: .sequence) { fields in
                    _ = try Int(derEncoded: &fields)
                    _ = fields.next()  // digestAlgorithms
                    guard let encapsulated = fields.next() else {
                        throw ASN1Error.invalidASN1Object(reason: "no encapContentInfo")
                    }
                    while fields.next() != nil {}  // certificates, signerInfos: not needed here
                    return try DER.sequence(encapsulated, identifier: .sequence) { items in
                        _ = try ASN1ObjectIdentifier(derEncoded: &items)
                        return try DER.explicitlyTagged(&items, tagNumber: 0, tagClass: .contextSpecific) { node in
                            try ASN1OctetString(derEncoded: node).bytes
                        }
                    }
                }
            }
        }
    }

    static func appReceipt(_ der: [UInt8]) -> AppReceipt? {
        guard let content = try? signedContent(der),
            let attributes = try? ReceiptAttribute.decodeSet(content)
        else { return nil }
        func string(_ type: Int, in list: [ReceiptAttribute]) -> String? {
            list.first { $0.type == type }?.stringValue
        }
        guard let environment = string(ReceiptField.environment, in: attributes),
            let bundleId = string(ReceiptField.bundleId, in: attributes)
        else { return nil }
        var records: [InAppRecord] = []
        for attribute in attributes where attribute.type == ReceiptField.inApp {
            guard let fields = try? ReceiptAttribute.decodeSet(attribute.value),
                let productId = string(ReceiptField.productId, in: fields),
                let transactionId = string(ReceiptField.transactionId, in: fields),
                let originalTransactionId = string(ReceiptField.originalTransactionId, in: fields)
            else { return nil }
            records.append(
                InAppRecord(
                    quantity: fields.first { $0.type == ReceiptField.quantity }?.intValue ?? 1,
                    productId: productId,
                    transactionId: transactionId,
                    originalTransactionId: originalTransactionId,
                    purchaseDate: string(ReceiptField.purchaseDate, in: fields) ?? "",
                    originalPurchaseDate: string(ReceiptField.originalPurchaseDate, in: fields) ?? "",
                    expiresDate: string(ReceiptField.expiresDate, in: fields),
                    webOrderLineItemId: fields.first { $0.type == ReceiptField.webOrderLineItemId }?.intValue,
                    cancellationDate: string(ReceiptField.cancellationDate, in: fields)
                ))
        }
        return AppReceipt(
            environment: environment, bundleId: bundleId,
            creationDate: string(ReceiptField.creationDate, in: attributes) ?? "", inApp: records
        )
    }

    /// The `"key" = "value";` pairs of an old-style plist (the SK1 transaction receipt layout).
    static func plistEntries(_ text: String) -> [String: String]? {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard trimmed.hasPrefix("{"), trimmed.hasSuffix("}") else { return nil }
        var entries: [String: String] = [:]
        for line in trimmed.dropFirst().dropLast().split(whereSeparator: { $0 == ";" || $0.isNewline }) {
            let parts = line.split(separator: "=", maxSplits: 1)
            guard parts.count == 2 else { continue }
            let key = parts[0].trimmingCharacters(in: .whitespaces).trimmingCharacters(
                in: CharacterSet(charactersIn: "\""))
            let value = parts[1].trimmingCharacters(in: .whitespaces).trimmingCharacters(
                in: CharacterSet(charactersIn: "\""))
            entries[key] = value
        }
        return entries.isEmpty ? nil : entries
    }
}
