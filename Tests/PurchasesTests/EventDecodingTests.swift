import AppStoreModels
import Contracts
import Foundation
import Purchases
import Testing

/// Contract field names, and the specific detail of every refusal.
@Suite(.timeLimit(.minutes(2))) struct EventDecodingTests {
    static func refusal(_ json: String) -> Rejection? {
        do throws(Rejection) {
            _ = try EventDecoder.decode(PurchaseEvent.self, from: Array(json.utf8))
            return nil
        } catch {
            return error
        }
    }

    @Test func decodesTheContractPurchase() throws {
        let json = #"""
            {"schema": "iap.purchase.v1", "eventId": "e-1", "bundleId": "com.example.game", "userId": "u-123",
             "orderId": "o-456", "appAccountToken": "7E3D2A1C-0000-4000-8000-000000000001", "environment": "Sandbox",
             "source": "storekit2", "signedTransaction": "a.b.c", "somethingNew": {"ignored": true}}
            """#
        let event = try EventDecoder.decode(PurchaseEvent.self, from: Array(json.utf8))
        #expect(event.eventId == "e-1")
        #expect(event.bundleId == "com.example.game")
        #expect(event.userId == "u-123")
        #expect(event.orderId == "o-456")
        #expect(event.appAccountToken == "7E3D2A1C-0000-4000-8000-000000000001")
        #expect(event.environment == .sandbox)
        #expect(event.source == .storeKit2)
        #expect(event.payload == .signedTransaction("a.b.c"))
    }

    @Test(arguments: [
        ("appReceipt", PurchasePayload.appReceipt("MIIT")),
        ("transactionReceipt", .transactionReceipt("ewoJ")),
        ("transactionId", .transactionId("2000000847061981")),
    ])
    func eachPayloadFieldRoundTrips(field: String, payload: PurchasePayload) throws {
        let json =
            #"{"schema":"iap.purchase.v1","eventId":"e","bundleId":"b","userId":"u","\#(field)":"\#(payload.value)"}"#
        let event = try EventDecoder.decode(PurchaseEvent.self, from: Array(json.utf8))
        #expect(event.payload == payload)
        let encoded = try #require(
            try JSONSerialization.jsonObject(with: Data(EventEncoder.encode(event))) as? [String: Any])
        #expect(encoded[field] as? String == payload.value)
        #expect(encoded["schema"] as? String == "iap.purchase.v1")
        #expect(Set(encoded.keys) == ["schema", "eventId", "bundleId", "userId", field])
    }

    @Test(arguments: [
        ("not json", ReasonCode.malformedEvent, "not valid JSON"),
        ("[1, 2]", .malformedEvent, "not a JSON object"),
        (#"{"eventId": "e"}"#, .malformedEvent, "missing field 'schema'"),
        (#"{"schema": 1}"#, .malformedEvent, "field 'schema' is not a string"),
        (
            #"{"schema": "iap.purchase.v2", "eventId": "e"}"#, .unsupportedSchema,
            "schema 'iap.purchase.v2' is not iap.purchase.v1"
        ),
        (#"{"schema": "iap.order.v1"}"#, .unsupportedSchema, "schema 'iap.order.v1' is not iap.purchase.v1"),
        (
            #"{"schema": "iap.purchase.v1", "bundleId": "b", "userId": "u", "transactionId": "1"}"#, .malformedEvent,
            "missing field 'eventId'"
        ),
        (
            #"{"schema": "iap.purchase.v1", "eventId": "e", "userId": "u", "transactionId": "1"}"#, .malformedEvent,
            "missing field 'bundleId'"
        ),
        (
            #"{"schema": "iap.purchase.v1", "eventId": "e", "bundleId": "b", "userId": null, "transactionId": "1"}"#,
            .malformedEvent, "missing field 'userId' (null)"
        ),
        (
            #"{"schema": "iap.purchase.v1", "eventId": 7, "bundleId": "b", "userId": "u", "transactionId": "1"}"#,
            .malformedEvent, "field 'eventId' is not a string"
        ),
        (
            #"{"schema": "iap.purchase.v1", "eventId": "e", "bundleId": "b", "userId": "u", "signedTransaction": "x", "appReceipt": "y"}"#,
            .malformedEvent,
            "exactly one of signedTransaction, appReceipt, transactionReceipt, transactionId, appTransaction is required; found signedTransaction and appReceipt"
        ),
        (
            #"{"schema": "iap.purchase.v1", "eventId": "e", "bundleId": "b", "userId": "u", "appReceipt": null}"#,
            .malformedEvent,
            "exactly one of signedTransaction, appReceipt, transactionReceipt, transactionId, appTransaction is required; found none"
        ),
    ])
    func refusalsNameTheProblem(json: String, reason: ReasonCode, detail: String) throws {
        let refusal = try #require(Self.refusal(json))
        #expect(refusal.reason == reason)
        #expect(refusal.detail == detail)
    }

    @Test func orderAndNotificationDecode() throws {
        let order = try EventDecoder.decode(
            OrderEvent.self,
            from: Array(
                #"""
                {"schema": "iap.order.v1", "orderId": "o-456", "userId": "u-123", "appAccountToken": "UUID",
                 "productId": "gems_100", "quantity": 1, "bundleId": "com.example.game"}
                """#.utf8))
        #expect(
            order
                == OrderEvent(
                    orderId: "o-456", userId: "u-123", productId: "gems_100", bundleId: "com.example.game",
                    appAccountToken: "UUID", quantity: 1))

        let notification = try EventDecoder.decode(
            NotificationEvent.self,
            from: Array(
                #"""
                {"schema": "iap.notification.v1", "receivedAt": "2026-11-21T21:00:00Z", "signedPayload": "a.b.c"}
                """#.utf8))
        #expect(notification.receivedAt == Timestamp(iso8601: "2026-11-21T21:00:00.000Z"))
        #expect(notification.signedPayload == "a.b.c")

        do throws(Rejection) {
            let json =
                #"{"schema":"iap.order.v1","orderId":"o","userId":"u","productId":"p","quantity":"one","bundleId":"b"}"#
            _ = try EventDecoder.decode(OrderEvent.self, from: Array(json.utf8))
            Issue.record("a string quantity decoded")
        } catch {
            #expect(error == Rejection(.malformedEvent, ""))
            #expect(error.detail == "field 'quantity' is not an integer")
        }
    }

    @Test func schemaOfReadsOnlyTheSchema() throws {
        #expect(try EventDecoder.schema(of: Array(#"{"schema":"iap.order.v1","anything":[1]}"#.utf8)) == "iap.order.v1")
    }

    @Test func internalEventsRoundTrip() throws {
        let transaction = TransactionDetails(
            transactionId: "2", originalTransactionId: "1", bundleId: "b", productId: "p",
            productType: .autoRenewableSubscription, environment: .sandbox,
            purchaseDate: Timestamp(millisecondsSince1970: 1_000), expiresDate: Timestamp(millisecondsSince1970: 2_000),
            appAccountToken: "t", isUpgraded: false, signedDate: Timestamp(millisecondsSince1970: 1_500),
            webOrderLineItemId: "w", subscriptionGroupIdentifier: "g"
        )
        let verified = VerifiedTransaction(
            transaction: transaction, hints: PublisherHints(eventId: "e", userId: "u"), source: .notification,
            receivedAt: Timestamp(millisecondsSince1970: 3_000), verifiedAt: Timestamp(millisecondsSince1970: 4_000),
            notification: NotificationContext(
                notificationType: .didRenew, subtype: .billingRecovery, notificationUUID: "n-1"),
            renewal: RenewalDetails(autoRenewProductId: "p2", autoRenewStatus: .on)
        )
        let matched = MatchedTransaction(
            verified: verified, userId: "u", orderId: "o", matchedBy: .ownership, warnings: [.userHintMismatch])
        let unmatched = UnmatchedTransaction(
            verified: verified, since: Timestamp(millisecondsSince1970: 5),
            unmatchedAt: Timestamp(millisecondsSince1970: 6), reason: .noOrderOrUser
        )
        let request = VerifyRequest(
            kind: .notification, payload: "a.b.c", bundleId: nil, hints: PublisherHints(), source: .notification,
            receivedAt: Timestamp(millisecondsSince1970: 7), notificationUUID: "n-1"
        )

        #expect(try EventDecoder.decode(VerifiedTransaction.self, from: EventEncoder.encode(verified)) == verified)
        #expect(try EventDecoder.decode(MatchedTransaction.self, from: EventEncoder.encode(matched)) == matched)
        #expect(try EventDecoder.decode(UnmatchedTransaction.self, from: EventEncoder.encode(unmatched)) == unmatched)
        #expect(try EventDecoder.decode(VerifyRequest.self, from: EventEncoder.encode(request)) == request)

        let json = try #require(
            try JSONSerialization.jsonObject(with: Data(EventEncoder.encode(matched))) as? [String: Any])
        #expect(json["schema"] as? String == "iap.matched.v1")
        #expect(json["matchedBy"] as? String == "ownership")
        #expect(json["warnings"] as? [String] == ["user_hint_mismatch"])
        let inner = try #require(json["verified"] as? [String: Any])
        #expect(inner["schema"] as? String == "iap.verified.v1")
        let details = try #require(inner["transaction"] as? [String: Any])
        #expect(details["expiresDate"] as? String == "1970-01-01T00:00:02.000Z")
        #expect(details["productType"] as? String == "Auto-Renewable Subscription")
        let context = try #require(inner["notification"] as? [String: Any])
        #expect(context["notificationType"] as? String == "DID_RENEW")
        #expect(context["subtype"] as? String == "BILLING_RECOVERY")
        #expect((inner["renewal"] as? [String: Any])?["autoRenewStatus"] as? Int == 1)
        #expect(
            (try JSONSerialization.jsonObject(with: Data(EventEncoder.encode(unmatched))) as? [String: Any])?["reason"]
                as? String == "no_order_or_user")
    }

    @Test func verifyRequestKeys() {
        let purchase = VerifyRequest(
            kind: .transactionId, payload: "1", bundleId: "b", hints: PublisherHints(userId: "u"), source: .storeKit2,
            receivedAt: Timestamp(millisecondsSince1970: 0)
        )
        var otherUser = purchase
        otherUser.hints.userId = "v"
        var later = purchase
        later.receivedAt = Timestamp(millisecondsSince1970: 99)
        #expect(purchase.dedupeKey.count == 64)
        #expect(purchase.dedupeKey == later.dedupeKey)
        #expect(purchase.dedupeKey != otherUser.dedupeKey)
        #expect(purchase.idempotencyKey == "purchase:\(purchase.dedupeKey)")

        let notification = VerifyRequest(
            kind: .notification, payload: "x", bundleId: nil, hints: PublisherHints(), source: .notification,
            receivedAt: Timestamp(millisecondsSince1970: 0), notificationUUID: "n-1"
        )
        #expect(notification.idempotencyKey == "notification:n-1")
    }
}
