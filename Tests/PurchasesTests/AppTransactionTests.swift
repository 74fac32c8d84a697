import AppStoreModels
import Contracts
import Foundation
import Purchases
import TestSupport
import Testing

/// A signed AppTransaction as a purchase input (issue 22 item 2, D58): intake keys it by its
/// appTransactionId; verify checks it locally like a signed transaction and reads it as the app's
/// own purchase, `app-<appTransactionId>` of product `<bundleId>`, type App, with the version the
/// customer first bought.
@Suite(.timeLimit(.minutes(1))) struct AppTransactionTests {
    let apple: TestApple
    let gate = ScriptedGate()

    init() throws {
        self.apple = try TestApple()
    }

    func verifier(_ policy: EnvironmentPolicy = .init()) throws -> TransactionVerifier {
        try TransactionVerifier(
            configuration: try self.apple.configuration(policy: policy), source: FakeAppleSource.unused,
            cache: InMemoryVerifiedTransactionCache(), gate: self.gate,
            now: { Timestamp(millisecondsSince1970: 1_763_000_200_000) })
    }

    /// What StoreKit's `AppTransaction.shared` carries, signed by the test chain.
    func appTransaction(_ changes: [String: Any?] = [:]) throws -> String {
        var payload: [String: Any] = [
            "receiptType": "Sandbox", "appAppleId": TestApple.appAppleId, "bundleId": TestApple.bundleId,
            "applicationVersion": "3.1", "receiptCreationDate": 1_763_000_100_000,
            "originalPurchaseDate": 1_700_000_000_000, "originalApplicationVersion": "1.2",
            "appTransactionId": "704000000000000123", "originalPlatform": "iOS",
        ]
        for (key, value) in changes { payload[key] = value }
        return try self.apple.chain.sign(payload)
    }

    @Test func aPaidAppsPurchaseIsVerifiedAsTheAppsOwnProduct() async throws {
        let outcome = try await self.verifier().verify(
            try Requests.purchase(.appTransaction(try self.appTransaction())))
        let record = try #require(outcome.records.first)
        #expect(outcome.records.count == 1)
        let transaction = record.transaction
        #expect(transaction.transactionId == "app-704000000000000123")
        #expect(transaction.originalTransactionId == "app-704000000000000123")
        #expect(transaction.productId == TestApple.bundleId)
        #expect(transaction.productType == .app)
        #expect(transaction.quantity == 1)
        #expect(transaction.environment == .sandbox)
        #expect(transaction.purchaseDate == Timestamp(millisecondsSince1970: 1_700_000_000_000))
        #expect(transaction.originalApplicationVersion == "1.2")
        #expect(self.gate.calls.isEmpty, "verified locally, no Apple call")
    }

    @Test func aPreOrderIsBoughtWhenItWasOrdered() async throws {
        let signed = try self.appTransaction(["originalPurchaseDate": nil, "preorderDate": 1_690_000_000_000])
        let outcome = try await self.verifier().verify(try Requests.purchase(.appTransaction(signed)))
        #expect(outcome.records.first?.transaction.purchaseDate == Timestamp(millisecondsSince1970: 1_690_000_000_000))
    }

    @Test func refusalsNameTheirReason() async throws {
        let old = try self.appTransaction(["appTransactionId": nil])
        #expect(
            try await self.verifier().verify(try Requests.purchase(.appTransaction(old))).rejection?.reason
                == .receiptInvalid)
        let otherApp = try self.appTransaction(["bundleId": "com.other.app"])
        #expect(
            try await self.verifier().verify(try Requests.purchase(.appTransaction(otherApp))).rejection?.reason
                == .wrongBundle)
        let sandboxRefused = try await self.verifier(EnvironmentPolicy(acceptSandboxInProduction: false))
            .verify(try Requests.purchase(.appTransaction(try self.appTransaction())))
        #expect(sandboxRefused.rejection?.reason == .sandboxNotAllowed)
        let forged = try TestSigningChain(name: "Stranger").sign(["receiptType": "Sandbox", "bundleId": "x"])
        #expect(
            try await self.verifier().verify(try Requests.purchase(.appTransaction(forged))).rejection?.reason
                == .invalidCertificate)
    }

    @Test func intakeKeysItByItsAppTransactionId() throws {
        let bytes = IntakeTests.purchaseJSON("appTransaction", try self.appTransaction())
        guard case .forward(let request, let key, _) = IntakeRules().evaluate(bytes, receivedAt: IntakeTests.now) else {
            Issue.record("intake refused an appTransaction")
            return
        }
        #expect(request.kind == .appTransaction)
        #expect(request.source == .storeKit2)
        #expect(key == "app-704000000000000123")
        guard
            case .reject(let rejection) = IntakeRules().evaluate(
                IntakeTests.purchaseJSON("appTransaction", "not-a-jws"), receivedAt: IntakeTests.now)
        else {
            Issue.record("intake forwarded an appTransaction that is no JWS")
            return
        }
        #expect(rejection.reason == .invalidSignature || rejection.reason == .malformedEvent)
    }
}
