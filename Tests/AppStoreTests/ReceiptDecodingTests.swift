import AppStore
import AppStoreModels
import Foundation
import Testing

/// Legacy receipts decode locally to the manifest's values (no trust claimed).
@Suite(.timeLimit(.minutes(2))) struct ReceiptDecodingTests {
    static func iso(_ date: Date?) -> String? {
        date?.formatted(.iso8601)
    }

    @Test(arguments: Vectors.appReceiptFiles)
    func appReceiptMatchesManifest(path: String) throws {
        let receipt = try AppReceiptDecoder.decode(base64: try Vectors.text(path))
        let entry = Vectors.entry(path)
        let expected = Vectors.expected(path)
        #expect(receipt.environment == entry["environment"] as? String)
        #expect(receipt.bundleId == entry["bundleId"] as? String)
        #expect(receipt.applicationVersion == entry["applicationVersion"] as? String)
        #expect(receipt.originalApplicationVersion == entry["originalApplicationVersion"] as? String)
        #expect(Self.iso(receipt.creationDate) == entry["receiptCreationDate"] as? String)
        #expect(receipt.inApp.count == expected["inAppCount"] as? Int)
        #expect(receipt.inApp.map { $0.transactionId ?? "" } == expected["inAppTransactionIds"] as? [String])

        let records = try #require(expected["inApp"] as? [[String: Any]])
        #expect(records.count == receipt.inApp.count)
        for (record, want) in zip(receipt.inApp, records) {
            #expect(record.transactionId == want["transactionId"] as? String)
            #expect(record.originalTransactionId == want["originalTransactionId"] as? String)
            #expect(record.productId == want["productId"] as? String)
            #expect(record.quantity.map(Int.init) == want["quantity"] as? Int)
            #expect(Self.iso(record.purchaseDate) == want["purchaseDate"] as? String)
            #expect(Self.iso(record.expiresDate) == want["expiresDate"] as? String)
        }
    }

    @Test func legacyReceiptHasAll187Records() throws {
        let receipt = try AppReceiptDecoder.decode(base64: try Vectors.text("receipts/app-receipt-sandbox-legacy.b64"))
        #expect(receipt.inApp.count == 187)
        #expect(Set(receipt.inApp.compactMap(\.transactionId)).count == 187)
    }

    @Test func xcodeReceiptIsBERAndItsPlaceholderIdIsNotLookedUp() throws {
        let text = try Vectors.text("receipts/app-receipt-xcode-with-purchases.b64")
        let der = try #require(Data(base64Encoded: text.trimmingCharacters(in: .whitespacesAndNewlines)))
        #expect(Array(der.prefix(2)) == [0x30, 0x80])
        let receipt = try AppReceiptDecoder.decode(base64: text)
        #expect(receipt.environment == "Xcode")
        #expect(receipt.inApp.first?.transactionId == "0")
        #expect(receipt.lookupTransactionIds.isEmpty)
        #expect(Self.iso(receipt.expirationDate) == "4001-01-01T00:00:00Z")
    }

    @Test(arguments: Vectors.transactionReceiptFiles)
    func transactionReceiptMatchesManifest(path: String) throws {
        let receipt = try TransactionReceiptDecoder.decode(base64: try Vectors.text(path))
        let expected = Vectors.expected(path)
        #expect(receipt.transactionId == expected["transactionId"] as? String)
        #expect(receipt.originalTransactionId == expected["originalTransactionId"] as? String)
        #expect(receipt.productId == expected["productId"] as? String)
        #expect(receipt.bundleId == expected["bid"] as? String)
        #expect(receipt.quantity == expected["quantity"] as? Int)
        #expect(receipt.purchaseDateMs.map(String.init) == expected["purchaseDateMs"] as? String)
        #expect(receipt.webOrderLineItemId == expected["webOrderLineItemId"] as? String)
        #expect(receipt.effectiveEnvironment.rawValue == Vectors.entry(path)["environment"] as? String)
    }

    static let garbage: [String] = [
        "", "   ", "!!!!", "AAAA", "MIAGCSqGSIb3DQEHAqCAMIACAQEx", String(repeating: "QUFB", count: 10_000),
        Data([0x30, 0x80, 0x30, 0x80]).base64EncodedString(),
        Data([0x30, 0x84, 0xFF, 0xFF, 0xFF, 0xFF]).base64EncodedString(),
        Data(repeating: 0x30, count: 200).base64EncodedString(),
        Data(repeating: 0x80 | 0x30, count: 64).base64EncodedString(),
    ]

    @Test(arguments: garbage)
    func garbageAppReceiptIsAnErrorNotACrash(input: String) {
        #expect(throws: ReceiptError.self) { try AppReceiptDecoder.decode(base64: input) }
    }

    @Test(arguments: garbage + [Data("{ \"signature\" = \"x\"; }".utf8).base64EncodedString()])
    func garbageTransactionReceiptIsAnErrorNotACrash(input: String) {
        #expect(throws: ReceiptError.self) { try TransactionReceiptDecoder.decode(base64: input) }
    }
}
