import AppStoreModels
import Basics
import Contracts
import Foundation
import Purchases
import Testing

/// The hand-written JSON of the per-purchase types is `JSONEncoder`'s output byte for byte, reads
/// back what `JSONDecoder` reads, and falls back to it for anything it does not read itself.
@Suite(.timeLimit(.minutes(2))) struct FastJSONTests {
    /// The pipeline's event format through `JSONEncoder`, as `EventEncoder` configured it
    /// before the fast path.
    static func foundation(_ value: some Encodable) throws -> [UInt8] {
        try EventEncoder.encodeWithCodable(value)
    }

    static func fast(_ value: some FastJSONWritable) -> [UInt8] {
        var writer = JSONWriter()
        value.write(to: &writer)
        return writer.bytes
    }

    /// Integers are written digit by digit; `String(value)` is the reference at both ends of
    /// every width the writers use.
    @Test func integersAreWrittenAsStringWritesThem() {
        let values: [Int64] = [0, 1, -1, 9, 10, -10, 99, 100, 1_763_000_002_345, .max, .min, Int64(Int32.min), 42]
        for value in values {
            var writer = JSONWriter()
            writer.int(value)
            #expect(writer.bytes == Array(String(value).utf8))
        }
        var writer = JSONWriter()
        writer.beginArray()
        for value in [Int.min, -7, Int.max] {
            writer.element()
            writer.int(value)
        }
        writer.element()
        writer.int(Int32.min)
        writer.endArray()
        #expect(String(decoding: writer.bytes, as: UTF8.self) == "[\(Int.min),-7,\(Int.max),\(Int32.min)]")
    }

    /// Strings that exercise escaping: quotes, backslashes, every control character, a slash,
    /// non-ASCII and a scalar outside the BMP.
    static let awkward = "q\"b\\s/ü€😀 \u{7F}" + String((0..<0x20).map { Character(Unicode.Scalar(UInt8($0))) })

    static let fullDetails = TransactionDetails(
        transactionId: "2000000000000002", originalTransactionId: "2000000000000001", bundleId: "com.example.game",
        productId: "com.example.game.pro.monthly", productType: .autoRenewableSubscription, quantity: 3,
        environment: .sandbox,
        purchaseDate: Timestamp(millisecondsSince1970: 1_763_000_000_123),
        originalPurchaseDate: Timestamp(millisecondsSince1970: 1_700_000_000_000),
        expiresDate: Timestamp(millisecondsSince1970: 1_765_000_000_999),
        revocationDate: Timestamp(millisecondsSince1970: -86_400_001),
        revocationReason: RevocationReason(rawValue: 1), appAccountToken: "7e3d2a1c-0000-4000-8000-000000000001",
        inAppOwnershipType: .familyShared, isUpgraded: true,
        signedDate: Timestamp(millisecondsSince1970: 1_763_000_001_000),
        webOrderLineItemId: "web-1", subscriptionGroupIdentifier: awkward
    )

    static let minimalDetails = TransactionDetails(
        transactionId: "1", originalTransactionId: "1", bundleId: "b", productId: awkward, productType: nil,
        environment: .production
    )

    static let fullVerified = VerifiedTransaction(
        transaction: fullDetails,
        hints: PublisherHints(
            eventId: "e-1", userId: "user \"one\"", orderId: "o-1", appAccountToken: "t", environment: .sandbox),
        source: .notification,
        receivedAt: Timestamp(millisecondsSince1970: 1_763_000_002_000),
        verifiedAt: Timestamp(millisecondsSince1970: 1_763_000_002_345),
        notification: NotificationContext(
            notificationType: .didRenew, subtype: .billingRecovery, notificationUUID: "n-1",
            signedDate: Timestamp(millisecondsSince1970: 5)),
        renewal: RenewalDetails(autoRenewProductId: "com.example.game.pro.yearly", autoRenewStatus: .on)
    )

    static let minimalVerified = VerifiedTransaction(
        transaction: minimalDetails, hints: PublisherHints(), source: .storeKit1,
        receivedAt: Timestamp(millisecondsSince1970: 0), verifiedAt: Timestamp(millisecondsSince1970: 1),
        notification: NotificationContext(notificationType: .refund, notificationUUID: awkward),
        renewal: RenewalDetails()
    )

    static let verifiedValues = [fullVerified, minimalVerified]

    static let matchedValues = [
        MatchedTransaction(
            verified: fullVerified, userId: awkward, orderId: "o-1", matchedBy: .appAccountToken,
            warnings: [.orderAlreadyClaimed, .userHintMismatch]),
        MatchedTransaction(verified: minimalVerified, userId: "u", orderId: nil, matchedBy: .ownership),
    ]

    static let requestValues = [
        VerifyRequest(
            kind: .signedTransaction, payload: "a.b.c", bundleId: "com.example.game", hints: fullVerified.hints,
            source: .storeKit2, receivedAt: Timestamp(millisecondsSince1970: 42)),
        VerifyRequest(
            kind: .notification, payload: awkward, bundleId: nil, hints: PublisherHints(), source: .notification,
            receivedAt: Timestamp(millisecondsSince1970: 7), notificationUUID: "n-1"),
    ]

    static let stateValues = [
        EntitlementState(
            originalTransactionId: "1", userId: awkward, orderId: "o", productId: "p", productType: .nonConsumable,
            transactionId: "2",
            purchaseDate: Timestamp(millisecondsSince1970: 1), expiresDate: Timestamp(millisecondsSince1970: 2),
            status: .revoked,
            signedDate: Timestamp(millisecondsSince1970: 3), revokedTransactionIds: ["2", awkward], changes: 7
        ),
        EntitlementState(
            originalTransactionId: "1", userId: "u", orderId: nil, productId: "p", productType: nil, transactionId: "1",
            purchaseDate: nil, expiresDate: nil, status: .active, signedDate: nil
        ),
    ]

    static let entitlementValues = [
        EntitlementEvent(
            eventId: "ev-1", action: .revoke, userId: awkward, orderId: "o-1", bundleId: "b", productId: "p",
            productType: .consumable,
            quantity: 2, transactionId: "2", originalTransactionId: "1", environment: .sandbox,
            purchaseDate: Timestamp(millisecondsSince1970: 1), expiresDate: Timestamp(millisecondsSince1970: 2),
            revocationDate: Timestamp(millisecondsSince1970: 3), matchedBy: .orderId, warnings: [.orderNeverArrived],
            source: .storeKit2, status: .billingRetry, gracePeriodExpiresDate: Timestamp(millisecondsSince1970: 4),
            autoRenewStatus: .on, expirationIntent: .other, revocationReason: RevocationReason(rawValue: 0),
            offerType: .offerCode, offerIdentifier: awkward, price: 230_000, currency: "JPY", storefront: "JPN",
            sequence: 7
        ),
        EntitlementEvent(
            eventId: "ev-2", action: .grant, userId: "u", orderId: nil, bundleId: "b", productId: "p", productType: nil,
            quantity: 1, transactionId: "1", originalTransactionId: "1", environment: .production,
            purchaseDate: nil, expiresDate: nil, revocationDate: nil, matchedBy: .user, warnings: [], source: .storeKit1
        ),
    ]

    // MARK: Writing

    @Test func writesWhatJSONEncoderWrites() throws {
        for value in Self.requestValues { #expect(Self.fast(value) == (try Self.foundation(value))) }
        for value in Self.verifiedValues { #expect(Self.fast(value) == (try Self.foundation(value))) }
        for value in Self.matchedValues { #expect(Self.fast(value) == (try Self.foundation(value))) }
        for value in Self.stateValues { #expect(Self.fast(value) == (try Self.foundation(value))) }
        for value in Self.entitlementValues { #expect(Self.fast(value) == (try Self.foundation(value))) }
        for value in [Self.fullDetails, Self.minimalDetails] {
            #expect(Self.fast(value) == (try Self.foundation(value)))
        }
        for value in [
            OwnershipBinding(originalTransactionId: "2000000000000001", userId: "user-1"),
            OwnershipBinding(originalTransactionId: Self.awkward, userId: Self.awkward),
        ] {
            #expect(Self.fast(value) == (try Self.foundation(value)))
        }
    }

    @Test func eventEncoderTakesTheFastPathAndKeepsTheFormat() throws {
        let matched = Self.matchedValues[0]
        #expect(try EventEncoder.encode(matched) == Self.fast(matched))
        #expect(try EventEncoder.encode(matched) == Self.foundation(matched))
        // A type without a hand-written form still goes through JSONEncoder.
        let order = OrderEvent(orderId: "o", userId: "u", productId: "p", bundleId: "b")
        #expect(try EventEncoder.encode(order) == Self.foundation(order))
    }

    // MARK: Reading

    /// What `JSONDecoder` makes of the same text is what the fast reader makes of it.
    static func readsLikeJSONDecoder<Value: FastJSONReadable & Decodable & Equatable>(
        _ text: [UInt8], as type: Value.Type
    ) throws {
        let reference = try EventDecoder.decodeWithCodable(type, from: Data(text))
        #expect(try EventDecoder.read(type, from: text) == reference)
    }

    @Test func readsWhatJSONEncoderWrites() throws {
        for value in Self.requestValues {
            #expect(try EventDecoder.read(VerifyRequest.self, from: Self.foundation(value)) == value)
        }
        for value in Self.verifiedValues {
            #expect(try EventDecoder.read(VerifiedTransaction.self, from: Self.foundation(value)) == value)
        }
        for value in Self.matchedValues {
            #expect(try EventDecoder.read(MatchedTransaction.self, from: Self.foundation(value)) == value)
        }
        for value in Self.stateValues {
            #expect(try EventDecoder.read(EntitlementState.self, from: Self.foundation(value)) == value)
        }
        for value in Self.entitlementValues {
            #expect(try EventDecoder.read(EntitlementEvent.self, from: Self.foundation(value)) == value)
        }
    }

    @Test func readsOtherWritersLikeJSONDecoder() throws {
        // Pretty-printed, unsorted, escaped slashes and \u escapes, unknown fields of every kind,
        // explicit nulls for optionals.
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted]
        encoder.userInfo[Timestamp.jsonFormKey] = Timestamp.JSONForm.iso8601
        for value in Self.matchedValues {
            try Self.readsLikeJSONDecoder(Array(try encoder.encode(value)), as: MatchedTransaction.self)
        }
        for value in Self.entitlementValues {
            try Self.readsLikeJSONDecoder(Array(try encoder.encode(value)), as: EntitlementEvent.self)
        }
        let text = #"""
            { "unknown": {"a": [1, -2.5e3, true, false, null, "x\"y", {}]},
              "schema" : "iap.verified.v1", "source": "storekit2", "receivedAt": "2026-11-21T21:00:00Z",
              "verifiedAt": "2026-11-21T22:00:00.123456+01:00", "notification": null, "renewal": null,
              "hints": {"userId": "u\/1 \u00fc \ud83d\ude00 \n", "orderId": null},
              "transaction": {"transactionId": "1", "originalTransactionId": "1", "bundleId": "b", "productId": "p",
                              "quantity": 1, "environment": "Production", "isUpgraded": false, "expiresDate": null,
                              "revocationReason": 0, "extra": []} }
            """#
        try Self.readsLikeJSONDecoder(Array(text.utf8), as: VerifiedTransaction.self)
        let read = try EventDecoder.read(VerifiedTransaction.self, from: Array(text.utf8))
        #expect(read.hints.userId == "u/1 ü 😀 \n")
        #expect(read.transaction.revocationReason == RevocationReason(rawValue: 0))
    }

    /// Text the fast reader does not take reaches `JSONDecoder`, which then decides: it accepts a
    /// trailing comma, for one, and words every refusal as before.
    @Test(arguments: [
        #"{"schema":"iap.matched.v1","userId":"u","matchedBy":"user","warnings":[]}"#,  // no verified
        #"{"schema":"iap.verify-request.v1","kind":"transactionId","payload":"1","hints":{},"source":"storekit2","receivedAt":"2026-11-21T21:00:00Z",}"#,
        #"{"schema":"iap.verify-request.v1","kind":"transactionId","payload":"1","hints":{},"source":"storekit2","receivedAt":"2026-11-21T21:00:00Z"} x"#,
        #"{"schema":"iap.verify-request.v1","kind":"teleport","payload":"1","hints":{},"source":"storekit2","receivedAt":"2026-11-21T21:00:00Z"}"#,
        #"{"schema":"iap.verify-request.v1","kind":"transactionId","payload":"1","hints":{},"source":"storekit2","receivedAt":"yesterday"}"#,
        #"{"schema":"iap.verify-request.v1","kind":"transactionId","payload":1,"hints":{},"source":"storekit2","receivedAt":"2026-11-21T21:00:00Z"}"#,
        #"{"schema":"iap.verify-request.v1","kind":"transactionId","payload":"\ud800","hints":{},"source":"storekit2","receivedAt":"2026-11-21T21:00:00Z"}"#,
        #"{"schema":"iap.verify-request.v2","kind":"transactionId","payload":"1","hints":{},"source":"storekit2","receivedAt":"2026-11-21T21:00:00Z"}"#,
        #"{"schema":"iap.verify-request.v1" "kind":"transactionId"}"#,
    ])
    func leavesWhatItDoesNotReadToJSONDecoder(text: String) throws {
        let bytes = Array(text.utf8)
        if text.contains("iap.matched.v1") {
            #expect(throws: JSONReader.Failure.self) { try EventDecoder.read(MatchedTransaction.self, from: bytes) }
            do throws(Rejection) {
                _ = try EventDecoder.decode(MatchedTransaction.self, from: bytes)
                Issue.record("a matched record without 'verified' decoded")
            } catch {
                #expect(error.reason == .malformedEvent)
                #expect(error.detail == "missing field 'verified'")
            }
            return
        }
        #expect(throws: JSONReader.Failure.self) { try EventDecoder.read(VerifyRequest.self, from: bytes) }
        let reference = try? EventDecoder.decodeWithCodable(VerifyRequest.self, from: Data(bytes))
        do throws(Rejection) {
            let decoded = try EventDecoder.decode(VerifyRequest.self, from: bytes)
            #expect(decoded == reference)
        } catch {
            #expect(reference == nil || error.reason == .unsupportedSchema)
            #expect(!error.detail.isEmpty)
            if text.contains("v2") { #expect(error.reason == .unsupportedSchema) }
        }
    }

    @Test(arguments: ["signedTransaction", "appReceipt", "transactionReceipt", "transactionId"])
    func readsPurchasesLikeJSONDecoder(field: String) throws {
        let full =
            #"{"schema":"iap.purchase.v1","eventId":"e","bundleId":"b","userId":"u","orderId":"o","appAccountToken":"T","environment":"Sandbox","source":"storekit1","\#(field)":"x","appReceiptX":1}"#
        let bare =
            #"{"schema":"iap.purchase.v1","eventId":"e","bundleId":"b","userId":"u","orderId":null,"environment":null,"\#(field)":"x"}"#
        for text in [full, bare] { try Self.readsLikeJSONDecoder(Array(text.utf8), as: PurchaseEvent.self) }
        // Two payloads are for JSONDecoder to refuse, in the contract's words.
        let two =
            #"{"schema":"iap.purchase.v1","eventId":"e","bundleId":"b","userId":"u","\#(field)":"x","\#(field == "appReceipt" ? "transactionId" : "appReceipt")":"y"}"#
        #expect(throws: JSONReader.Failure.self) { try EventDecoder.read(PurchaseEvent.self, from: Array(two.utf8)) }
    }

    @Test(arguments: ["007", "1.0", "1e3", "-", "99999999999999999999"])
    func refusesIntegersJSONDecoderMightReadDifferently(number: String) {
        var reader = JSONReader(Array(number.utf8))
        #expect(throws: JSONReader.Failure.self) { _ = try reader.int() }
    }

    // MARK: Found by Fuzz/FuzzEventDecoder

    /// A valid `iap.verify-request.v1` with `payload` and `extra` (a trailing field) as given.
    static func request(payload: String = "1", extra: [UInt8] = []) -> [UInt8] {
        Array(#"{"schema":"iap.verify-request.v1","kind":"transactionId","hints":{},"source":"storekit2","#.utf8)
            + Array(#""receivedAt":"2026-11-21T21:00:00Z","payload":"\#(payload)""#.utf8) + extra + Array("}".utf8)
    }

    /// Inputs the fast reader accepted although `JSONDecoder` refuses them: a key that is not
    /// UTF-8 (0xB1), a number JSON does not allow, both in fields no reader reads, and a `\u`
    /// escape with a sign. The fast path must give up, so the refusal is `JSONDecoder`'s.
    @Test(arguments: [
        request(extra: Array(#","revocationD"#.utf8) + [0xB1] + Array(#"te":"1969-12-30T23:59:59.999Z""#.utf8)),
        request(extra: Array(#","ntity":+1"#.utf8)),
        request(payload: #"\u007f\u+000\u001f"#),
    ])
    func leavesWhatJSONDecoderRefusesToIt(bytes: [UInt8]) {
        #expect(throws: (any Error).self) { try EventDecoder.decodeWithCodable(VerifyRequest.self, from: Data(bytes)) }
        #expect(throws: JSONReader.Failure.self) { try EventDecoder.read(VerifyRequest.self, from: bytes) }
    }

    /// With a key twice, `JSONDecoder` keeps the first value and the fast reader kept the last,
    /// so the same record decoded to a different order id; now the fast path gives up.
    @Test func leavesRepeatedKeysToJSONDecoder() throws {
        let text =
            #"{"schema":"iap.verify-request.v1","kind":"transactionId","payload":"1","hints":{"orderId":"o-456","orderId":"o"},"source":"storekit2","receivedAt":"2026-11-21T21:00:00Z"}"#
        #expect(throws: JSONReader.Failure.self) { try EventDecoder.read(VerifyRequest.self, from: Array(text.utf8)) }
        let decoded = try EventDecoder.decode(VerifyRequest.self, from: Array(text.utf8))
        #expect(decoded == (try EventDecoder.decodeWithCodable(VerifyRequest.self, from: Data(text.utf8))))
    }

    @Test func eventDecoderReadsTheOtherTypeOfItsListThroughJSONDecoder() throws {
        let order = OrderEvent(
            orderId: "o", userId: "u", productId: "p", bundleId: "b", appAccountToken: "t", quantity: 2)
        let decoded = try EventDecoder.decode(MatchInput.self, from: Self.foundation(order))
        #expect(decoded == .order(order))
        let verified = try EventDecoder.decode(MatchInput.self, from: Self.foundation(Self.fullVerified))
        #expect(verified == .verified(Self.fullVerified))
    }
}
