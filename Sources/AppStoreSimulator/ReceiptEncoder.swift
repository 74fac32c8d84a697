import Crypto
import Foundation
import SwiftASN1
@_spi(CMS) import X509

/// Produces the legacy receipt formats: PKCS#7 app receipts and StoreKit 1 transaction receipts.
///
/// The pipeline only extracts ids from receipts (it trusts no receipt signature), so structure
/// is what matters; app receipts are still really signed (CMS SignedData, ECDSA P-256 by the
/// simulator's leaf, intermediate and leaf embedded) so `openssl cms -verify` against the root works.
struct ReceiptEncoder: Sendable {
    let authority: CertificateAuthority

    // MARK: App receipt

    /// Base64 of a DER ContentInfo(signedData) whose encapsulated content is the attribute SET.
    ///
    /// Environment is "Production" or "ProductionSandbox", Apple's receipt spelling.
    func appReceipt(
        environment: String, bundleId: String, transactions: [SimulatedTransactionPayload], createdAt: Date
    ) throws -> String {
        let sandbox = environment != AppleValues.Environment.production
        var attributes: [ReceiptAttribute] = [
            try .utf8(ReceiptField.environment, sandbox ? "ProductionSandbox" : "Production"),
            try .integer(ReceiptField.appItemId, sandbox ? 0 : 1_234_567_890),
            try .utf8(ReceiptField.bundleId, bundleId),
            try .utf8(ReceiptField.appVersion, "1"),
            ReceiptAttribute(type: ReceiptField.opaqueValue, value: Self.randomBytes(16)),
            ReceiptAttribute(type: ReceiptField.sha1Hash, value: Self.randomBytes(20)),
            try .ia5(ReceiptField.creationDate, Self.rfc3339(milliseconds: Store.milliseconds(createdAt))),
            try .utf8(ReceiptField.originalAppVersion, "1.0"),
        ]
        for transaction in transactions {
            attributes.append(try .set(ReceiptField.inApp, inAppRecord(transaction)))
        }
        let content = try ReceiptAttribute.encodeSet(attributes)
        let signed = try CMS.sign(
            content,
            signatureAlgorithm: .ecdsaWithSHA256,
            additionalIntermediateCertificates: [authority.intermediate],
            certificate: authority.leaf,
            privateKey: Certificate.PrivateKey(authority.leafKey),
            detached: false
        )
        return Data(signed).base64EncodedString()
    }

    private func inAppRecord(_ transaction: SimulatedTransactionPayload) throws -> [ReceiptAttribute] {
        var record: [ReceiptAttribute] = [
            try .integer(ReceiptField.quantity, transaction.quantity),
            try .utf8(ReceiptField.productId, transaction.productId),
            try .utf8(ReceiptField.transactionId, transaction.transactionId),
            try .ia5(ReceiptField.purchaseDate, Self.rfc3339(milliseconds: transaction.purchaseDate)),
            try .utf8(ReceiptField.originalTransactionId, transaction.originalTransactionId),
            try .ia5(ReceiptField.originalPurchaseDate, Self.rfc3339(milliseconds: transaction.originalPurchaseDate)),
        ]
        if let expires = transaction.expiresDate {
            record.append(try .ia5(ReceiptField.expiresDate, Self.rfc3339(milliseconds: expires)))
        }
        if let line = transaction.webOrderLineItemId.flatMap(Int.init) {
            record.append(try .integer(ReceiptField.webOrderLineItemId, line))
        }
        if let revoked = transaction.revocationDate {
            record.append(try .ia5(ReceiptField.cancellationDate, Self.rfc3339(milliseconds: revoked)))
        }
        return record
    }

    // MARK: Transaction receipt (StoreKit 1)

    /// Base64 of the NeXTSTEP plist `{ "signature"; "purchase-info"; "environment"; "pod"; "signing-status" }`.
    ///
    /// Apple's `signature` blob is version 2 | 128-byte RSA signature | 4-byte length | leaf DER.
    /// The simulator keeps that layout but its key is P-256: the 128-byte field holds the raw
    /// R||S ECDSA signature over `0x02 || purchase-info`, zero-padded. It can't pass an RSA
    /// check, which is fine: the pipeline only extracts ids from transaction receipts.
    func transactionReceipt(for transaction: SimulatedTransactionPayload) throws -> String {
        let purchaseInfo = Data(Self.plist(purchaseInfoEntries(transaction)).utf8)
        let signature = try authority.leafKey.signature(for: Data([0x02]) + purchaseInfo).rawRepresentation
        let leaf = try authority.leaf.derEncoded()
        var blob = Data([0x02])
        blob.append(signature)
        blob.append(Data(repeating: 0, count: 128 - signature.count))
        withUnsafeBytes(of: UInt32(leaf.count).bigEndian) { blob.append(contentsOf: $0) }
        blob.append(contentsOf: leaf)

        var outer: [(String, String)] = [
            ("signature", blob.base64EncodedString()),
            ("purchase-info", purchaseInfo.base64EncodedString()),
        ]
        if transaction.environment != AppleValues.Environment.production {
            outer.append(("environment", "Sandbox"))
        }
        outer.append(("pod", "100"))
        outer.append(("signing-status", "0"))
        return Data(Self.plist(outer).utf8).base64EncodedString()
    }

    private func purchaseInfoEntries(_ transaction: SimulatedTransactionPayload) -> [(String, String)] {
        var entries: [(String, String)] = [
            ("original-purchase-date-pst", Self.legacyDate(transaction.originalPurchaseDate, pacific: true)),
            ("purchase-date-ms", String(transaction.purchaseDate)),
            ("unique-identifier", Self.hex(Self.randomBytes(20))),
            ("original-transaction-id", transaction.originalTransactionId),
        ]
        if let expires = transaction.expiresDate { entries.append(("expires-date", String(expires))) }
        entries.append(("transaction-id", transaction.transactionId))
        entries.append(("original-purchase-date-ms", String(transaction.originalPurchaseDate)))
        if let line = transaction.webOrderLineItemId { entries.append(("web-order-line-item-id", line)) }
        entries.append(("bvrs", "1"))
        entries.append(("unique-vendor-identifier", UUID().uuidString))
        if let expires = transaction.expiresDate {
            entries.append(("expires-date-formatted", Self.legacyDate(expires, pacific: false)))
        }
        entries.append(contentsOf: [
            ("item-id", "1028950797"),
            ("product-id", transaction.productId),
            ("purchase-date", Self.legacyDate(transaction.purchaseDate, pacific: false)),
            ("original-purchase-date", Self.legacyDate(transaction.originalPurchaseDate, pacific: false)),
            ("bid", transaction.bundleId),
            ("purchase-date-pst", Self.legacyDate(transaction.purchaseDate, pacific: true)),
            ("quantity", String(transaction.quantity)),
        ])
        return entries
    }

    /// Old-style (NeXTSTEP) plist text, tab-indented like Apple's.
    static func plist(_ entries: [(String, String)]) -> String {
        "{\n" + entries.map { "\t\"\($0.0)\" = \"\($0.1)\";\n" }.joined() + "}"
    }

    // MARK: Formatting

    static func rfc3339(milliseconds: Int64) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.string(from: Date(timeIntervalSince1970: TimeInterval(milliseconds) / 1000))
    }

    /// "2015-11-18 04:34:41 Etc/GMT" or the America/Los_Angeles twin, as SK1 receipts write dates.
    static func legacyDate(_ milliseconds: Int64, pacific: Bool) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        let zone = pacific ? "America/Los_Angeles" : "Etc/GMT"
        formatter.timeZone = TimeZone(identifier: zone) ?? TimeZone(secondsFromGMT: 0)
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss"
        return formatter.string(from: Date(timeIntervalSince1970: TimeInterval(milliseconds) / 1000)) + " " + zone
    }

    private static func randomBytes(_ count: Int) -> ArraySlice<UInt8> {
        var generator = SystemRandomNumberGenerator()
        return ArraySlice((0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) })
    }

    private static func hex(_ bytes: ArraySlice<UInt8>) -> String {
        bytes.map { String(format: "%02x", $0) }.joined()
    }
}
