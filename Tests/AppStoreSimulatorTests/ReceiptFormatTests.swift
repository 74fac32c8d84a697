import AppStoreSimulator
import Foundation
import NIOHTTP1
import SwiftASN1
import Testing
@_spi(CMS) import X509

/// Parses the app receipt independently of the simulator's own reader, with plain SwiftASN1.
private struct ParsedAttribute {
    var type: Int
    var value: ArraySlice<UInt8>

    static func set(_ bytes: ArraySlice<UInt8>) throws -> [ParsedAttribute] {
        let node = try DER.parse(Array(bytes))
        #expect(node.identifier == .set, "not a SET: \(Array(bytes.prefix(24)))")
        guard case .constructed(let children) = node.content else { throw TestFailure("SET is not constructed") }
        return try children.map { child in
            try DER.sequence(child, identifier: .sequence) { nodes in
                let type = try Int(derEncoded: &nodes)
                _ = try Int(derEncoded: &nodes)
                return ParsedAttribute(type: type, value: try ASN1OctetString(derEncoded: &nodes).bytes)
            }
        }
    }

    var utf8: String? { (try? ASN1UTF8String(derEncoded: DER.parse(value))).map(String.init) }
    var ia5: String? { (try? ASN1IA5String(derEncoded: DER.parse(value))).map(String.init) }
    var int: Int? { try? Int(derEncoded: DER.parse(value)) }
}

@Suite("Receipt formats", .timeLimit(.minutes(2)))
struct ReceiptFormatTests {
    /// ContentInfo(signedData) → SignedData → encapContentInfo → [0] OCTET STRING.
    private func content(of receipt: [UInt8]) throws -> ArraySlice<UInt8> {
        try DER.sequence(try DER.parse(receipt), identifier: .sequence) { nodes in
            #expect(try ASN1ObjectIdentifier(derEncoded: &nodes) == [1, 2, 840, 113_549, 1, 7, 2])
            return try DER.explicitlyTagged(&nodes, tagNumber: 0, tagClass: .contextSpecific) { signedData in
                try DER.sequence(signedData, identifier: .sequence) { fields in
                    #expect(try Int(derEncoded: &fields) == 1)
                    _ = fields.next()
                    guard let encapsulated = fields.next() else { throw TestFailure("no encapContentInfo") }
                    while fields.next() != nil {}
                    return try DER.sequence(encapsulated, identifier: .sequence) { items in
                        #expect(try ASN1ObjectIdentifier(derEncoded: &items) == [1, 2, 840, 113_549, 1, 7, 1])
                        return try DER.explicitlyTagged(&items, tagNumber: 0, tagClass: .contextSpecific) {
                            try ASN1OctetString(derEncoded: $0).bytes
                        }
                    }
                }
            }
        }
    }

    @Test("app receipt: PKCS#7 SignedData whose content is Apple's attribute SET, signed by the simulator's leaf")
    func appReceipt() async throws {
        try await withSimulator { client in
            let token = UUID().uuidString
            let subscription = try await client.purchase(
                productId: "monthly", type: "Auto-Renewable Subscription", environment: "Production",
                extra: ["appAccountToken": token]
            )
            let consumable = try await client.purchase(
                productId: "gems", environment: "Production", extra: ["appAccountToken": token, "quantity": 3]
            )
            let der = Array(try #require(Data(base64Encoded: try consumable.string("appReceipt"))))
            let attributes = try ParsedAttribute.set(try content(of: der))
            #expect(attributes.first { $0.type == 0 }?.utf8 == "Production")
            #expect(attributes.first { $0.type == 2 }?.utf8 == "com.example.game")
            let created = try #require(attributes.first { $0.type == 12 }?.ia5)
            #expect(ISO8601DateFormatter().date(from: created) != nil)

            var records: [[ParsedAttribute]] = []
            for attribute in attributes where attribute.type == 17 {
                records.append(try ParsedAttribute.set(attribute.value))
            }
            #expect(records.count == 2)
            func field(_ record: [ParsedAttribute], _ type: Int) -> ParsedAttribute? {
                record.first { $0.type == type }
            }
            let gems = try #require(records.first { field($0, 1702)?.utf8 == "gems" })
            #expect(field(gems, 1701)?.int == 3)
            #expect(field(gems, 1703)?.utf8 == (try consumable.string("transactionId")))
            #expect(field(gems, 1705)?.utf8 == (try consumable.string("transactionId")))
            #expect(field(gems, 1704)?.ia5 != nil && field(gems, 1706)?.ia5 != nil)
            #expect(field(gems, 1708) == nil)
            let monthly = try #require(records.first { field($0, 1702)?.utf8 == "monthly" })
            #expect(field(monthly, 1703)?.utf8 == (try subscription.string("transactionId")))
            #expect(field(monthly, 1708)?.ia5 != nil)
            #expect(field(monthly, 1711)?.int != nil)

            let root = try Certificate(
                pemEncoded: String(contentsOfFile: client.simulator.rootCertificatePath, encoding: .utf8))
            let result = await CMS.isValidAttachedSignature(
                signatureBytes: der, trustRoots: CertificateStore([root])
            ) { RFC5280Policy() }
            guard case .success = result else {
                Issue.record("receipt signature invalid: \(result)")
                return
            }
        }
    }

    @Test("transaction receipt: NeXTSTEP plist with signature, purchase-info, environment, pod, signing-status")
    func transactionReceipt() async throws {
        try await withSimulator { client in
            let purchase = try await client.purchase(productId: "coins", environment: "Sandbox")
            let text = String(
                decoding: try #require(Data(base64Encoded: try purchase.string("transactionReceipt"))), as: UTF8.self)
            #expect(text.hasPrefix("{\n\t\"signature\" = \""))
            for key in ["purchase-info", "environment", "pod", "signing-status"] {
                #expect(text.contains("\t\"\(key)\" = \""), "missing \(key)")
            }
            #expect(text.contains("\"environment\" = \"Sandbox\";"))
            let infoBase64 = try #require(text.firstMatch(of: /"purchase-info" = "([A-Za-z0-9+\/=]+)";/)?.1)
            let info = String(decoding: try #require(Data(base64Encoded: String(infoBase64))), as: UTF8.self)
            let id = try purchase.string("transactionId")
            #expect(info.contains("\"transaction-id\" = \"\(id)\";"))
            #expect(info.contains("\"original-transaction-id\" = \"\(id)\";"))
            #expect(info.contains("\"product-id\" = \"coins\";"))
            #expect(info.contains("\"bid\" = \"com.example.game\";"))
            #expect(info.contains("\"purchase-date-ms\" = \""))

            let signature = try #require(text.firstMatch(of: /"signature" = "([A-Za-z0-9+\/=]+)";/)?.1)
            let blob = try #require(Data(base64Encoded: String(signature)))
            #expect(blob.first == 2)
            let length = blob[129..<133].reduce(0) { $0 << 8 | Int($1) }
            #expect(blob.count == 133 + length)
            _ = try Certificate(derEncoded: Array(blob[133...]))

            let production = try await client.purchase(environment: "Production")
            let productionText = String(
                decoding: try #require(Data(base64Encoded: try production.string("transactionReceipt"))), as: UTF8.self)
            #expect(!productionText.contains("\"environment\""))
        }
    }
}
