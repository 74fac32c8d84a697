import AppStoreModels
import Contracts
import Foundation
import Purchases
import TestSupport
import Testing

/// Intake: validation, normalisation, routing keys from real vectors, dedupe keys.
@Suite(.timeLimit(.minutes(2))) struct IntakeTests {
    let rules = IntakeRules()
    static let now = Timestamp(millisecondsSince1970: 1_763_000_000_000)

    static func purchaseJSON(_ payloadField: String, _ payload: String, extra: String = "") -> [UInt8] {
        Array(
            #"{"schema":"iap.purchase.v1","eventId":" e-1 ","bundleId":" com.example.game ","userId":" u-1 ","\#(payloadField)":"\#(payload)"\#(extra)}"#
                .utf8)
    }

    func forward(_ bytes: [UInt8]) throws -> (request: VerifyRequest, key: String, dedupeKey: String) {
        switch self.rules.evaluate(bytes, receivedAt: Self.now) {
        case .forward(let request, let key, let dedupeKey): return (request, key, dedupeKey)
        case .reject(let rejection):
            Issue.record("rejected: \(rejection)")
            throw rejection
        }
    }

    func rejection(_ bytes: [UInt8]) -> Rejection? {
        if case .reject(let rejection) = self.rules.evaluate(bytes, receivedAt: Self.now) { return rejection }
        return nil
    }

    // MARK: Routing keys from real Apple data

    @Test func signedTransactionIsKeyedByOriginalTransactionId() throws {
        let jws = try Fixtures.text("jws/sandbox-consumable-transaction.jws")
        let (request, key, dedupeKey) = try self.forward(Self.purchaseJSON("signedTransaction", jws))
        #expect(key == "2000000847061981")
        #expect(request.kind == .signedTransaction)
        #expect(request.payload == jws)
        #expect(request.source == .storeKit2)
        #expect(dedupeKey == request.dedupeKey)
    }

    @Test(arguments: [
        ("receipts/app-receipt-production.b64", "340001196262039"),
        ("receipts/app-receipt-sandbox-g5.b64", "2000001092134138"),
        // 187 records of several purchases: the latest purchase decides.
        ("receipts/app-receipt-sandbox-legacy.b64", "1000000603177571"),
    ])
    func appReceiptIsKeyedByItsLatestPurchase(path: String, expectedKey: String) throws {
        let (request, key, _) = try self.forward(Self.purchaseJSON("appReceipt", try Fixtures.text(path)))
        #expect(key == expectedKey)
        #expect(request.source == .storeKit1)
    }

    @Test(arguments: [
        ("receipts/transaction-receipt-production.b64", "1000000046178817"),
        ("receipts/transaction-receipt-sandbox.b64", "1000000180636226"),
    ])
    func transactionReceiptIsKeyedByOriginalTransactionId(path: String, expectedKey: String) throws {
        let (_, key, _) = try self.forward(Self.purchaseJSON("transactionReceipt", try Fixtures.text(path)))
        #expect(key == expectedKey)
    }

    @Test func receiptsWithoutLocalIdsFallBackToTheEventId() throws {
        // Xcode receipts hold only the placeholder id "0"; an undecodable receipt may still be
        // accepted by verifyReceipt, so intake does not refuse it.
        let xcode = try self.forward(
            Self.purchaseJSON("appReceipt", try Fixtures.text("receipts/app-receipt-xcode-with-purchases.b64")))
        #expect(xcode.key == "e-1")
        let opaque = try self.forward(Self.purchaseJSON("appReceipt", "bm90IGEgcmVjZWlwdA=="))
        #expect(opaque.key == "e-1")
        let bare = try self.forward(Self.purchaseJSON("transactionId", "2000000847061981"))
        #expect(bare.key == "2000000847061981")
    }

    @Test func notificationIsKeyedByItsTransactionElseItsUUID() throws {
        let real = NotificationEvent(
            receivedAt: Self.now, signedPayload: try Fixtures.text("jws/production-test-notification.jws"))
        guard case .forward(let request, let key, _) = self.rules.notification(real) else {
            Issue.record("TEST notification refused")
            return
        }
        #expect(key == "2e2a6ce0-ec9f-4037-b1bf-618af85527bd")
        #expect(request.notificationUUID == "2e2a6ce0-ec9f-4037-b1bf-618af85527bd")
        #expect(request.idempotencyKey == "notification:2e2a6ce0-ec9f-4037-b1bf-618af85527bd")
        #expect(request.bundleId == "com.nineton.taller")
        #expect(request.source == .notification)
        #expect(request.receivedAt == Self.now)

        let apple = try TestApple()
        let signed = try apple.notification(
            "DID_RENEW", uuid: "n-1",
            transaction: TransactionSpec(transactionId: "2000000000000009", originalTransactionId: "2000000000000001")
        )
        let bytes = try EventEncoder.encode(NotificationEvent(receivedAt: Self.now, signedPayload: signed))
        let (_, key2, _) = try self.forward(bytes)
        #expect(key2 == "2000000000000001")
    }

    // MARK: Normalisation

    @Test func idsAreTrimmedAndHintsNormalised() throws {
        let (request, _, _) = try self.forward(
            Self.purchaseJSON(
                "transactionId", " 2000000847061981 ",
                extra:
                    #","orderId":"  ","appAccountToken":" 7E3D2A1C-0000-4000-8000-00000000000A ","environment":"Sandbox","source":"reconcile""#
            ))
        #expect(request.payload == "2000000847061981")
        #expect(request.bundleId == "com.example.game")
        #expect(
            request.hints
                == PublisherHints(
                    eventId: "e-1", userId: "u-1", orderId: nil,
                    appAccountToken: "7e3d2a1c-0000-4000-8000-00000000000a", environment: .sandbox
                ))
        #expect(request.source == .reconcile)
    }

    @Test func unknownOrForeignSourcesAreDerivedFromThePayload() throws {
        let claimed = try self.forward(Self.purchaseJSON("transactionId", "1", extra: #","source":"notification""#))
        #expect(claimed.request.source == .storeKit2)
        let unknown = try self.forward(
            Self.purchaseJSON("transactionReceipt", "eA==", extra: #","source":"carrier-pigeon""#))
        #expect(unknown.request.source == .storeKit1)
    }

    @Test(arguments: [
        (
            #"{"schema":"iap.purchase.v1","eventId":" ","bundleId":"b","userId":"u","transactionId":"1"}"#,
            "eventId is empty"
        ),
        (
            #"{"schema":"iap.purchase.v1","eventId":"e","bundleId":"","userId":"u","transactionId":"1"}"#,
            "bundleId is empty"
        ),
        (
            #"{"schema":"iap.purchase.v1","eventId":"e","bundleId":"b","userId":"\n","transactionId":"1"}"#,
            "userId is empty"
        ),
        (
            #"{"schema":"iap.purchase.v1","eventId":"e","bundleId":"b","userId":"u","signedTransaction":"  "}"#,
            "signedTransaction is empty"
        ),
        (
            #"{"schema":"iap.purchase.v1","eventId":"e","bundleId":"b","userId":"u","transactionId":"12a"}"#,
            "transactionId '12a' is not a decimal number"
        ),
        (
            #"{"schema":"iap.purchase.v1","eventId":"e","bundleId":"b","userId":"u","transactionId":"1","environment":"Xcode"}"#,
            "environment 'Xcode' is not Production or Sandbox"
        ),
        (
            #"{"schema":"iap.purchase.v1","eventId":"e","bundleId":"b","userId":"u","transactionId":"1","appAccountToken":"user-42"}"#,
            "appAccountToken 'user-42' is not a UUID"
        ),
        (
            #"{"schema":"iap.notification.v1","receivedAt":"2026-11-21T21:00:00Z","signedPayload":""}"#,
            "signedPayload is empty"
        ),
    ])
    func invalidValuesAreMalformed(json: String, detail: String) throws {
        let refusal = try #require(self.rejection(Array(json.utf8)))
        #expect(refusal.reason == .malformedEvent)
        #expect(refusal.detail == detail)
    }

    @Test func otherSchemasAreUnsupported() throws {
        let refusal = try #require(self.rejection(Array(#"{"schema":"iap.order.v1","orderId":"o"}"#.utf8)))
        #expect(refusal.reason == .unsupportedSchema)
        #expect(refusal.detail == "schema 'iap.order.v1' is not iap.purchase.v1 or iap.notification.v1")
    }

    @Test func eventsAboveOneMebibyteAreMalformed() throws {
        let padding = String(repeating: "A", count: 1 << 20)
        let refusal = try #require(self.rejection(Self.purchaseJSON("appReceipt", padding)))
        #expect(refusal.reason == .malformedEvent)
        #expect(refusal.detail.hasPrefix("event of 1048"))
        #expect(refusal.detail.hasSuffix("bytes exceeds 1048576"))
    }

    /// A JWS of `header` and `payload`, with a signature intake never checks.
    static func jws(header: String, payload: String) -> String {
        [header, payload, "sig"].map { TestSigningChain.base64URL(Data($0.utf8)) }.joined(separator: ".")
    }

    /// The routing key and the header check are read by hand-written readers that leave what
    /// they are not sure of to `JSONDecoder`: the key and the refusal are `JSONDecoder`'s.
    @Test(arguments: [
        (#"{"alg":"ES256","x5c":["a"]}"#, #"{"transactionId":"5","originalTransactionId":null}"#, "5"),
        (#"{"alg":"ES256"}"#, #"{"originalTransactionId":" 7 ","transactionId":"8","price":1.5e3,"x":[{}]}"#, "7"),
        // Duplicate keys: the reader gives up; JSONDecoder keeps the first value.
        (#"{"alg":"ES256","alg":"none"}"#, #"{"transactionId":"9","transactionId":"10"}"#, "9"),
        (#"{"alg":"ES256"}"#, #"{"transactionId":"\u0031\u0032"}"#, "12"),
    ])
    func routingKeysAndHeadersReadAsJSONDecoderReadsThem(header: String, payload: String, key: String) throws {
        let (_, routed, _) = try self.forward(
            Self.purchaseJSON("signedTransaction", Self.jws(header: header, payload: payload)))
        #expect(routed == key)
    }

    @Test(arguments: [
        (#"{"alg":1}"#, #"{"transactionId":"5"}"#, "header is not a JSON object"),
        (#"{"x5c":[null]}"#, #"{"transactionId":"5"}"#, "header is not a JSON object"),
        (#"{"alg":"ES256"}"#, #"{"transactionId":5}"#, "payload does not decode"),
        (#"{"alg":"ES256"}"#, #"[]"#, "payload does not decode"),
    ])
    func jwsTheReadersRefuseIsRefusedAsJSONDecoderRefusesIt(header: String, payload: String, detail: String) throws {
        let refusal = try #require(
            self.rejection(Self.purchaseJSON("signedTransaction", Self.jws(header: header, payload: payload))))
        #expect(refusal.reason == .invalidSignature)
        #expect(refusal.detail.contains(detail), "\(refusal.detail)")
    }

    @Test(arguments: [
        ("signedTransaction", "not-a-jws"),
        ("signedTransaction", "a.b.c"),
    ])
    func unparsableJWSIsAnInvalidSignature(field: String, value: String) throws {
        let refusal = try #require(self.rejection(Self.purchaseJSON(field, value)))
        #expect(refusal.reason == .invalidSignature)
        #expect(refusal.detail.hasPrefix("signedTransaction: INVALID_JWT_FORMAT"))

        let notification = self.rules.notification(NotificationEvent(receivedAt: Self.now, signedPayload: value))
        guard case .reject(let notificationRefusal) = notification else {
            Issue.record("accepted \(value)")
            return
        }
        #expect(notificationRefusal.reason == .invalidSignature)
        #expect(notificationRefusal.detail.hasPrefix("signedPayload: INVALID_JWT_FORMAT"))
    }

    @Test func dedupeKeyDropsExactDuplicatesButNotAnotherUsersCopy() throws {
        let first = try self.forward(Self.purchaseJSON("transactionId", "42"))
        let again = try self.forward(
            Array(
                #"{"schema":"iap.purchase.v1","eventId":"e-2","bundleId":"com.example.game","userId":"u-1","transactionId":"42"}"#
                    .utf8))
        let otherUser = try self.forward(
            Array(
                #"{"schema":"iap.purchase.v1","eventId":"e-3","bundleId":"com.example.game","userId":"u-2","transactionId":"42"}"#
                    .utf8))
        let otherKind = try self.forward(Self.purchaseJSON("transactionReceipt", "42"))
        #expect(first.dedupeKey == again.dedupeKey)
        #expect(first.dedupeKey != otherUser.dedupeKey)
        #expect(first.dedupeKey != otherKind.dedupeKey)
    }

    @Test func neverCrashesOnGarbage() {
        for bytes: [UInt8] in [[], [0xFF, 0xFE], Array("{".utf8), Array("null".utf8), Array(#"{"schema":null}"#.utf8)] {
            guard case .reject(let refusal) = self.rules.evaluate(bytes, receivedAt: Self.now) else {
                Issue.record("accepted \(bytes)")
                continue
            }
            #expect(refusal.reason == .malformedEvent)
        }
    }
}
