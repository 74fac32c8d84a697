import AppStore
import AppStoreModels
import Contracts
import Foundation
import Purchases
import Synchronization
import TestSupport
import Testing

/// Verify: bare ids and receipts are looked up with Apple (through the gate and the cache),
/// environments walked per policy, every Apple answer classified.
@Suite(.timeLimit(.minutes(2))) struct VerifyAppleTests {
    let apple: TestApple
    let gate = ScriptedGate()
    let cache = InMemoryVerifiedTransactionCache()

    init() throws {
        self.apple = try TestApple()
    }

    func verifier(
        _ source: FakeAppleSource,
        policy: EnvironmentPolicy = .init(),
        bundleId: String = TestApple.bundleId,
        receipts: VerifyConfiguration.ReceiptValidation = .serverAPI,
        gate: ScriptedGate? = nil
    ) throws -> TransactionVerifier {
        try TransactionVerifier(
            configuration: try self.apple.configuration(
                policy: policy, bundleId: bundleId, receiptValidation: receipts),
            source: source, cache: self.cache, gate: gate ?? self.gate
        )
    }

    /// Apple's signed answer for `id` (as Get Transaction Info returns it).
    func signed(
        _ id: String, environment: String, bundleId: String = TestApple.bundleId, originalTransactionId: String? = nil
    ) throws -> String {
        try self.apple.sign(
            TransactionSpec(
                transactionId: id, originalTransactionId: originalTransactionId, bundleId: bundleId,
                environment: environment
            ))
    }

    // MARK: Bare transaction ids

    @Test func bareIdGoesToSandboxOn4040010() async throws {
        let sandboxAnswer = try self.signed("2000000000000001", environment: "Sandbox")
        let source = FakeAppleSource { call in
            call.environment == .production ? FakeAppleSource.apiError(404, 4_040_010) : .signed(sandboxAnswer)
        }
        let outcome = try await self.verifier(source).verify(try Requests.purchase(.transactionId("2000000000000001")))
        #expect(outcome.records.first?.transaction.environment == .sandbox)
        #expect(outcome.records.first?.source == .storeKit2)
        #expect(source.calls.map(\.environment) == [.production, .sandbox])
        #expect(
            self.gate.calls == [
                AppleCall(.transactionInfo, environment: .production),
                AppleCall(.transactionInfo, environment: .sandbox),
            ])
    }

    @Test func bareIdStaysInProductionWhenSandboxIsRefused() async throws {
        let source = FakeAppleSource { _ in FakeAppleSource.apiError(404, 4_040_010) }
        let policy = EnvironmentPolicy(deployment: .production, acceptSandboxInProduction: false)
        let refusal = try #require(
            try await self.verifier(source, policy: policy).verify(try Requests.purchase(.transactionId("7"))).rejection
        )
        #expect(refusal.reason == .transactionNotFound)
        #expect(refusal.detail == "transaction 7: not found in Production; Sandbox is not accepted")
        #expect(source.calls.map(\.environment) == [.production])
    }

    @Test func bareIdMissingEverywhereIsNotFound() async throws {
        let source = FakeAppleSource { _ in FakeAppleSource.apiError(404, 4_040_010) }
        let refusal = try #require(
            try await self.verifier(source).verify(try Requests.purchase(.transactionId("7"))).rejection)
        #expect(refusal.reason == .transactionNotFound)
        #expect(source.calls.map(\.environment) == [.production, .sandbox])
    }

    @Test func aSandboxDeploymentAsksOnlySandbox() async throws {
        let answer = try self.signed("7", environment: "Sandbox")
        let source = FakeAppleSource { _ in .signed(answer) }
        let outcome = try await self.verifier(source, policy: EnvironmentPolicy(deployment: .sandbox)).verify(
            try Requests.purchase(.transactionId("7")))
        #expect(outcome.records.count == 1)
        #expect(source.calls.map(\.environment) == [.sandbox])
    }

    @Test func appleAnswerSignedByAStrangerIsRefused() async throws {
        let stranger = try TestSigningChain(name: "Stranger").sign(
            TransactionSpec(transactionId: "7", environment: "Production").payload)
        let source = FakeAppleSource { _ in .signed(stranger) }
        let refusal = try #require(
            try await self.verifier(source).verify(try Requests.purchase(.transactionId("7"))).rejection)
        #expect(refusal.reason == .invalidCertificate)
        #expect(await self.cache.get(transactionId: "7") == nil)
    }

    // MARK: Retry classes

    static let retryCases: [(String, FakeAppleSource.Answer, RetryReason.Code, Duration)] = [
        ("5000001", FakeAppleSource.apiError(500, 5_000_001), .serverError, .seconds(2)),
        ("5000000", FakeAppleSource.apiError(500, 5_000_000), .serverError, .seconds(2)),
        ("4040002", FakeAppleSource.apiError(404, 4_040_002), .appleRetryable, .seconds(5)),
        ("4040006", FakeAppleSource.apiError(404, 4_040_006), .appleRetryable, .seconds(5)),
        ("401", .apple(.serverAPI(status: 401, body: [], retryAfter: nil)), .authentication, .seconds(60)),
        ("timeout", .apple(.transportFailure(.timeout)), .timeout, .seconds(2)),
        (
            "html", .apple(.serverAPI(status: 200, body: Array("<html>down</html>".utf8), retryAfter: nil)),
            .invalidResponseBody, .seconds(5)
        ),
    ]

    @Test(arguments: Self.retryCases)
    func transientAppleAnswersAreRetried(
        name: String, answer: FakeAppleSource.Answer, code: RetryReason.Code, floor: Duration
    ) async throws {
        let source = FakeAppleSource { _ in answer }
        guard
            case .retry(let after, let reason) = try await self.verifier(source).verify(
                try Requests.purchase(.transactionId("7")))
        else {
            Issue.record("\(name) was not retried")
            return
        }
        #expect(reason.code == code)
        #expect(after == floor)
        #expect(source.calls.count == 1)
    }

    @Test func applesRateLimitIsAWaitUntilItsRetryAfterNotAFailure() async throws {
        let retryAt = Int64(Date().timeIntervalSince1970 * 1000) + 90_000
        let source = FakeAppleSource { _ in FakeAppleSource.apiError(429, 4_290_000, retryAfter: String(retryAt)) }
        guard
            case .wait(let slot) = try await self.verifier(source).verify(try Requests.purchase(.transactionId("7")))
        else {
            Issue.record("a 429 was not a wait")
            return
        }
        #expect(slot.cause == .applePause)
        #expect(slot.delay > .seconds(85))
        #expect(slot.delay <= .seconds(90))
        #expect(slot.booking.call == AppleCall(.transactionInfo, environment: .production))
        // The pause is shared: every replica's gate holds Get Transaction Info back as long.
        let pause = try #require(self.gate.backOffs[AppleCall(.transactionInfo, environment: .production)])
        #expect(pause == slot.delay)
    }

    @Test func aShortPauseIsWaitedOutInPlaceAndTheCallMadeOnItsSlot() async throws {
        let answer = try self.signed("7", environment: "Production")
        let asked = Mutex(0)
        let source = FakeAppleSource { _ in
            let first = asked.withLock { count in
                count += 1
                return count == 1
            }
            let retryAt = Int64(Date().timeIntervalSince1970 * 1000) + 50
            return first ? FakeAppleSource.apiError(429, 4_290_000, retryAfter: String(retryAt)) : .signed(answer)
        }
        let outcome = try await self.verifier(source).verify(try Requests.purchase(.transactionId("7")))
        #expect(outcome.records.map(\.transaction.transactionId) == ["7"])
        #expect(source.calls.count == 2)
        // Asked once: the call after the pause goes on the slot the pause booked.
        #expect(self.gate.calls.count == 1)
    }

    @Test func applesPauseThatKeepsComingBackParksTheRecordAfterThreeRounds() async throws {
        let source = FakeAppleSource { _ in
            FakeAppleSource.apiError(429, 4_290_000, retryAfter: String(Int64(Date().timeIntervalSince1970 * 1000) + 5))
        }
        guard
            case .wait(let slot) = try await self.verifier(source).verify(try Requests.purchase(.transactionId("7")))
        else {
            Issue.record("an Apple that keeps answering 429 did not park the record")
            return
        }
        #expect(slot.cause == .applePause)
        #expect(source.calls.count == 4, "the first call and three 429s waited out in place")
    }

    @Test func onlyApplesRateLimitPausesTheGate() async throws {
        let source = FakeAppleSource { _ in FakeAppleSource.apiError(500, 5_000_001) }
        guard case .retry = try await self.verifier(source).verify(try Requests.purchase(.transactionId("7"))) else {
            Issue.record("a retryable 500 was not retried")
            return
        }
        #expect(self.gate.backOffs.isEmpty)
    }

    @Test func aFarSlotParksTheRecordWithoutCallingApple() async throws {
        let source = FakeAppleSource.unused
        let closed = ScriptedGate.booked(.seconds(3))
        guard
            case .wait(let slot) = try await self.verifier(source, gate: closed).verify(
                try Requests.purchase(.transactionId("7")))
        else {
            Issue.record("a slot 3 s away did not park the record")
            return
        }
        #expect(slot.delay == .seconds(3))
        #expect(slot.cause == .budget)
        #expect(source.calls.isEmpty)
        #expect(closed.calls == [AppleCall(.transactionInfo, environment: .production)])
    }

    @Test func aNearSlotIsSleptForAndTheCallMade() async throws {
        let answer = try self.signed("7", environment: "Production")
        let near = ScriptedGate.booked(.milliseconds(20))
        let source = FakeAppleSource { _ in .signed(answer) }
        let outcome = try await self.verifier(source, gate: near).verify(try Requests.purchase(.transactionId("7")))
        #expect(outcome.records.map(\.transaction.transactionId) == ["7"])
        #expect(source.calls.count == 1)
    }

    @Test func theBookingARecordBringsBackIsHeldByItsCallOnly() async throws {
        let answer = try self.signed("2000000000000001", environment: "Sandbox")
        let source = FakeAppleSource { call in
            call.environment == .production ? FakeAppleSource.apiError(404, 4_040_010) : .signed(answer)
        }
        let booking = GateBooking(AppleCall(.transactionInfo, environment: .production), at: 1_700_000_000_000)
        _ = try await self.verifier(source).verify(
            try Requests.purchase(.transactionId("2000000000000001")), holding: booking)
        // Production was booked, so its ask holds the booking; the sandbox ask after the
        // switch books for itself.
        #expect(self.gate.bookings == [booking, nil])
    }

    @Test func cachedTransactionsCostNoAppleCall() async throws {
        let answer = try self.signed("7", environment: "Production")
        let source = FakeAppleSource { _ in .signed(answer) }
        let verifier = try self.verifier(source)
        let first = try await verifier.verify(try Requests.purchase(.transactionId("7")))
        let second = try await verifier.verify(try Requests.purchase(.transactionId("7"), userId: "u-1"))
        #expect(first.records.map(\.transaction) == second.records.map(\.transaction))
        #expect(source.calls.count == 1)
        #expect(self.gate.calls.count == 1)
    }

    // MARK: Receipts, Server API style

    @Test func appReceiptIsLookedUpOncePerPurchase() async throws {
        // Apple-signed production receipt: 4 records of one subscription; only the latest is asked.
        let answer = try self.signed(
            "340001311555626", environment: "Production", bundleId: "org.getpure.pure-iphone",
            originalTransactionId: "340001196262039")
        let source = FakeAppleSource { call in
            call.subject == "340001311555626" ? .signed(answer) : FakeAppleSource.apiError(404, 4_040_010)
        }
        let request = try Requests.purchase(
            .appReceipt(try Fixtures.text("receipts/app-receipt-production.b64")), bundleId: "org.getpure.pure-iphone")
        let outcome = try await self.verifier(source, bundleId: "org.getpure.pure-iphone").verify(request)
        #expect(outcome.records.map(\.transaction.transactionId) == ["340001311555626"])
        #expect(outcome.records.first?.source == .storeKit1)
        #expect(
            source.calls == [
                FakeAppleSource.Call(endpoint: .transactionInfo, subject: "340001311555626", environment: .production)
            ])
    }

    @Test func longSandboxReceiptCostsOneLookup() async throws {
        let answer = try self.signed(
            "1000000661019370", environment: "Sandbox", bundleId: "com.nutcall.alert",
            originalTransactionId: "1000000603177571")
        let source = FakeAppleSource { call in
            call.environment == .sandbox ? .signed(answer) : FakeAppleSource.apiError(404, 4_040_010)
        }
        let request = try Requests.purchase(
            .appReceipt(try Fixtures.text("receipts/app-receipt-sandbox-legacy.b64")), bundleId: "com.nutcall.alert")
        let outcome = try await self.verifier(source, bundleId: "com.nutcall.alert").verify(request)
        #expect(outcome.records.map(\.transaction.transactionId) == ["1000000661019370"])
        #expect(source.calls.map(\.subject) == ["1000000661019370", "1000000661019370"])
    }

    @Test func transactionReceiptIsLookedUpById() async throws {
        let answer = try self.signed(
            "1000000181298734", environment: "Sandbox", bundleId: "com.mbaasy.ios.demo",
            originalTransactionId: "1000000180636226")
        let source = FakeAppleSource { call in
            call.environment == .sandbox ? .signed(answer) : FakeAppleSource.apiError(404, 4_040_010)
        }
        let request = try Requests.purchase(
            .transactionReceipt(try Fixtures.text("receipts/transaction-receipt-sandbox.b64")),
            bundleId: "com.mbaasy.ios.demo")
        let outcome = try await self.verifier(source, bundleId: "com.mbaasy.ios.demo").verify(request)
        #expect(outcome.records.first?.transaction.originalTransactionId == "1000000180636226")
        #expect(source.calls.map(\.subject) == ["1000000181298734", "1000000181298734"])
    }

    @Test func xcodeAndForeignReceiptsAreRefusedWithoutApple() async throws {
        let source = FakeAppleSource.unused
        let xcode = try Requests.purchase(
            .appReceipt(try Fixtures.text("receipts/app-receipt-xcode-with-purchases.b64")))
        #expect(try await self.verifier(source).verify(xcode).rejection?.reason == .xcodeNotAllowed)

        let foreign = try Requests.purchase(.appReceipt(try Fixtures.text("receipts/app-receipt-production.b64")))
        let refusal = try #require(try await self.verifier(source).verify(foreign).rejection)
        #expect(refusal.reason == .wrongBundle)
        #expect(refusal.detail == "appReceipt bundleId 'org.getpure.pure-iphone' is not com.example.game")

        let garbage = try Requests.purchase(.appReceipt("bm90IGEgcmVjZWlwdA=="))
        #expect(try await self.verifier(source).verify(garbage).rejection?.reason == .receiptInvalid)
        let badSK1 = try Requests.purchase(.transactionReceipt("bm90IGEgcmVjZWlwdA=="))
        #expect(try await self.verifier(source).verify(badSK1).rejection?.reason == .receiptInvalid)
        #expect(source.calls.isEmpty)
        #expect(self.gate.calls.isEmpty)
    }

    // MARK: Receipts, legacy verifyReceipt

    static let g5Receipt = #"""
        {"status": 0, "environment": "Sandbox",
         "receipt": {"bundle_id": "dev.bonzer.weeka.app", "in_app": [
            {"transaction_id": "2000001092134138", "original_transaction_id": "2000001092134138", "product_id": "dev.bonzer.weeka.app.subscription.pro.annual",
             "quantity": "1", "purchase_date_ms": "1766770987000", "expires_date_ms": "1766773147000"}]},
         "latest_receipt_info": [
            {"transaction_id": "2000001092148094", "original_transaction_id": "2000001092134138", "product_id": "dev.bonzer.weeka.app.subscription.pro.annual",
             "quantity": "1", "purchase_date_ms": "1766773147000", "expires_date_ms": "1766775307000", "web_order_line_item_id": "2000000123"},
            {"transaction_id": "2000001092134138", "original_transaction_id": "2000001092134138", "product_id": "dev.bonzer.weeka.app.subscription.pro.annual",
             "quantity": "1", "purchase_date_ms": "1766770987000", "expires_date_ms": "1766773147000"}]}
        """#

    func legacyVerifier(_ source: FakeAppleSource, policy: EnvironmentPolicy = .init()) throws -> TransactionVerifier {
        try self.verifier(source, policy: policy, bundleId: "dev.bonzer.weeka.app", receipts: .verifyReceipt)
    }

    func g5Request() throws -> VerifyRequest {
        try Requests.purchase(
            .appReceipt(try Fixtures.text("receipts/app-receipt-sandbox-g5.b64")), bundleId: "dev.bonzer.weeka.app")
    }

    @Test func verifyReceiptResendsToSandboxOn21007() async throws {
        let source = FakeAppleSource { call in
            call.environment == .production ? FakeAppleSource.receiptStatus(21_007) : .receipt(Self.g5Receipt)
        }
        let outcome = try await self.legacyVerifier(source).verify(try self.g5Request())
        let record = try #require(outcome.records.first)
        #expect(outcome.records.count == 1)
        #expect(record.transaction.transactionId == "2000001092148094")
        #expect(record.transaction.originalTransactionId == "2000001092134138")
        #expect(record.transaction.environment == .sandbox)
        #expect(record.transaction.productType == .autoRenewableSubscription)
        #expect(record.transaction.expiresDate == Timestamp(millisecondsSince1970: 1_766_775_307_000))
        #expect(record.transaction.webOrderLineItemId == "2000000123")
        #expect(source.calls.map(\.environment) == [.production, .sandbox])
        #expect(source.calls.allSatisfy { $0.endpoint == .verifyReceipt })
        #expect(self.gate.calls.map(\.endpoint) == [.verifyReceipt, .verifyReceipt])
    }

    @Test func verifyReceipt21007IsSandboxNotAllowedWhenRefused() async throws {
        let source = FakeAppleSource { _ in FakeAppleSource.receiptStatus(21_007) }
        let policy = EnvironmentPolicy(deployment: .production, acceptSandboxInProduction: false)
        let refusal = try #require(
            try await self.legacyVerifier(source, policy: policy).verify(try self.g5Request()).rejection)
        #expect(refusal.reason == .sandboxNotAllowed)
        #expect(source.calls.map(\.environment) == [.production])
    }

    @Test(arguments: [
        (#", "is_retryable": 1"#, true),
        (#", "is-retryable": true"#, true),
        (#", "is_retryable": 0"#, false),
        ("", false),
    ])
    func internalDataAccessErrorsObeyTheRetryFlag(flag: String, retried: Bool) async throws {
        let source = FakeAppleSource { _ in FakeAppleSource.receiptStatus(21_150, extra: flag) }
        let outcome = try await self.legacyVerifier(source).verify(try self.g5Request())
        if retried {
            guard case .retry(let after, let reason) = outcome else {
                Issue.record("21150\(flag) was not retried: \(outcome)")
                return
            }
            #expect(reason.code == .appleRetryable)
            #expect(after == .seconds(5))
        } else {
            #expect(outcome.rejection?.reason == .receiptInvalid)
        }
    }

    @Test func verifyReceiptIsSparedWhenEveryPurchaseIsCached() async throws {
        let source = FakeAppleSource { call in
            call.environment == .production ? FakeAppleSource.receiptStatus(21_007) : .receipt(Self.g5Receipt)
        }
        let verifier = try self.legacyVerifier(source)
        _ = try await verifier.verify(try self.g5Request())
        let again = try await verifier.verify(try self.g5Request())
        #expect(again.records.map(\.transaction.transactionId) == ["2000001092148094"])
        #expect(source.calls.count == 2)
    }

    @Test func verifyReceiptOfAnotherAppIsTheWrongBundle() async throws {
        let other = Self.g5Receipt.replacingOccurrences(
            of: "\"bundle_id\": \"dev.bonzer.weeka.app\"", with: "\"bundle_id\": \"com.other\"")
        let source = FakeAppleSource { _ in .receipt(other) }
        // The local decode sees the right bundle; Apple's answer names another one.
        let refusal = try #require(try await self.legacyVerifier(source).verify(try self.g5Request()).rejection)
        #expect(refusal.reason == .wrongBundle)
    }
}
