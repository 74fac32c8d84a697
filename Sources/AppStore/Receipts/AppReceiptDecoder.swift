import AppStoreModels
import Foundation

/// Decodes base64 PKCS#7 app receipts locally, with BER support (Xcode receipts).
///
/// The signature is not checked: the result is a list of ids to look up with Apple, never a
/// proof of purchase (Apple's own libraries draw the same line).
public enum AppReceiptDecoder {
    /// Real receipts with hundreds of records stay well below this.
    public static let maximumBase64Length = 8 * 1024 * 1024

    private static let signedDataOID: [UInt8] = [0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x07, 0x02]

    /// - Parameter base64: `receipt-data` as sent; surrounding whitespace and line breaks are ignored.
    public static func decode(base64: String) throws(ReceiptError) -> AppReceipt {
        guard base64.utf8.count <= self.maximumBase64Length else {
            throw ReceiptError(
                .tooLarge, "receipt of \(base64.utf8.count) characters exceeds \(self.maximumBase64Length)")
        }
        let compact = base64.utf8.filter { !Self.isWhitespace($0) }
        guard !compact.isEmpty, let der = Base64.decode(compact) else {
            throw ReceiptError(.invalidBase64, "receipt is not base64")
        }
        return try self.decode(der: der)
    }

    public static func decode(der: [UInt8]) throws(ReceiptError) -> AppReceipt {
        let root: BERNode
        do {
            root = try BERReader.parse(der[...])
        } catch {
            throw ReceiptError(.invalidStructure, "not BER: \(error)")
        }
        guard root.identifier == 0x30, root.children.count >= 2,
            root.children[0].identifier == 0x06, Array(root.children[0].content) == self.signedDataOID
        else { throw ReceiptError(.invalidStructure, "not a PKCS#7 SignedData ContentInfo") }

        guard let signedData = root.children[1].firstChild(0x30),
            signedData.children.count >= 3,
            let encapsulated = signedData.children[2].children.first(where: { $0.identifier == 0xA0 }),
            let contentNode = encapsulated.children.first, contentNode.identifier & 0x1F == 0x04
        else { throw ReceiptError(.invalidStructure, "SignedData has no encapsulated content") }

        let attributes = try self.attributes(in: contentNode.octets, level: "receipt")
        var receipt = AppReceipt()
        for attribute in attributes {
            switch attribute.type {
            case 0: receipt.environment = attribute.string
            case 1: receipt.appItemId = attribute.integer
            case 2: receipt.bundleId = attribute.string
            case 3: receipt.applicationVersion = attribute.string
            case 12: receipt.creationDate = attribute.date
            case 17: receipt.inApp.append(try self.inAppRecord(attribute.value))
            case 19: receipt.originalApplicationVersion = attribute.string
            case 21: receipt.expirationDate = attribute.date
            default: continue
            }
        }
        return receipt
    }

    private static func inAppRecord(_ value: [UInt8]) throws(ReceiptError) -> InAppPurchaseRecord {
        var record = InAppPurchaseRecord()
        for attribute in try self.attributes(in: value, level: "in-app record") {
            switch attribute.type {
            case 1701: record.quantity = attribute.integer
            case 1702: record.productId = attribute.string
            case 1703: record.transactionId = attribute.string
            case 1704: record.purchaseDate = attribute.date
            case 1705: record.originalTransactionId = attribute.string
            case 1706: record.originalPurchaseDate = attribute.date
            case 1708: record.expiresDate = attribute.date
            case 1711: record.webOrderLineItemId = attribute.integer
            case 1712: record.cancellationDate = attribute.date
            case 1713: record.isTrialPeriod = attribute.integer.map { $0 != 0 }
            case 1719: record.isInIntroOfferPeriod = attribute.integer.map { $0 != 0 }
            case 1721: record.promotionalOfferIdentifier = attribute.string
            default: continue
            }
        }
        return record
    }

    /// Parses a SET of `SEQUENCE { INTEGER type, INTEGER version, OCTET STRING value }`.
    private static func attributes(in bytes: [UInt8], level: String) throws(ReceiptError) -> [ReceiptAttribute] {
        let set: BERNode
        do {
            set = try BERReader.parse(bytes[...])
        } catch {
            throw ReceiptError(.invalidStructure, "\(level) payload is not BER: \(error)")
        }
        guard set.identifier == 0x31 else {
            throw ReceiptError(.invalidStructure, "\(level) payload is not a SET")
        }
        var attributes: [ReceiptAttribute] = []
        attributes.reserveCapacity(set.children.count)
        for sequence in set.children {
            guard sequence.identifier == 0x30, sequence.children.count == 3,
                sequence.children[0].identifier == 0x02,
                let type = BERInteger.value(sequence.children[0].content),
                sequence.children[2].identifier & 0x1F == 0x04
            else { throw ReceiptError(.invalidStructure, "\(level) has a malformed attribute") }
            attributes.append(ReceiptAttribute(type: type, value: sequence.children[2].octets))
        }
        return attributes
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }
}

extension BERNode {
    fileprivate func firstChild(_ identifier: UInt8) -> BERNode? {
        self.children.first { $0.identifier == identifier }
    }
}
