import AppStore
import AppStoreModels
import Crypto
import Foundation
import Purchases
import Synchronization
import Testing

/// The adapter over AppStore's real clients: one attempt per environment, "other
/// environment" answers handed back to the verifier.
@Suite(.timeLimit(.minutes(2))) struct AppStoreTransactionSourceTests {
    /// Answers HTTP requests from a script and records their URLs.
    final class ScriptedHTTP: AppleHTTPExecutor {
        private let respond: @Sendable (AppleHTTPRequest) -> AppleHTTPResponse
        private let recorded = Mutex<[String]>([])

        init(_ respond: @escaping @Sendable (AppleHTTPRequest) -> AppleHTTPResponse) {
            self.respond = respond
        }

        var urls: [String] { self.recorded.withLock { $0 } }

        func execute(_ request: AppleHTTPRequest, timeout: Duration) async throws(TransportFailure) -> AppleHTTPResponse
        {
            self.recorded.withLock { $0.append(request.url) }
            return self.respond(request)
        }
    }

    static func json(_ status: Int, _ text: String, headers: [(name: String, value: String)] = []) -> AppleHTTPResponse
    {
        AppleHTTPResponse(status: status, headers: headers, body: Array(text.utf8))
    }

    static func source(_ http: ScriptedHTTP, legacy: Bool = false) throws -> AppStoreTransactionSource {
        let api = AppStoreServerAPIConfiguration(
            privateKeyPEM: P256.Signing.PrivateKey().pemRepresentation, keyId: "KEY", issuerId: "ISSUER",
            bundleId: TestApple.bundleId, productionBaseURL: "https://prod.test", sandboxBaseURL: "https://sandbox.test"
        )
        let receipts = VerifyReceiptClient.Configuration(
            productionURL: "https://buy.test/verifyReceipt", sandboxURL: "https://sandbox.test/verifyReceipt")
        return try AppStoreTransactionSource(api: api, verifyReceipt: legacy ? receipts : nil, executor: http)
    }

    static func outcome(_ body: () async throws(AppleCallFailure) -> Void) async -> AppleOutcome? {
        do throws(AppleCallFailure) {
            try await body()
            return nil
        } catch {
            return error.outcome
        }
    }

    @Test func transactionInfoAsksOnlyTheNamedEnvironment() async throws {
        let http = ScriptedHTTP { request in
            request.url.hasPrefix("https://prod.test")
                ? Self.json(404, #"{"errorCode":4040010,"errorMessage":"TransactionIdNotFoundError"}"#)
                : Self.json(200, #"{"signedTransactionInfo":"a.b.c"}"#)
        }
        let source = try Self.source(http)
        let production = await Self.outcome { () throws(AppleCallFailure) in
            _ = try await source.transactionInfo(id: "7", environment: .production)
        }
        #expect(production == .switchEnvironment(to: .sandbox))
        #expect(http.urls == ["https://prod.test/inApps/v1/transactions/7"])

        #expect(try await source.transactionInfo(id: "7", environment: .sandbox) == "a.b.c")
        #expect(http.urls.last == "https://sandbox.test/inApps/v1/transactions/7")
        #expect(http.urls.count == 2)
    }

    @Test func notFoundInSandboxIsFinal() async throws {
        let http = ScriptedHTTP { _ in
            Self.json(404, #"{"errorCode":4040010,"errorMessage":"TransactionIdNotFoundError"}"#)
        }
        let source = try Self.source(http)
        let outcome = await Self.outcome { () throws(AppleCallFailure) in
            _ = try await source.transactionInfo(id: "7", environment: .sandbox)
        }
        guard case .terminal(let reason) = outcome else {
            Issue.record("not terminal: \(String(describing: outcome))")
            return
        }
        #expect(reason.code == .transactionNotFound)
    }

    @Test func rateLimitKeepsApplesRetryAfter() async throws {
        let retryAt = String(Int64(Date().timeIntervalSince1970 * 1000) + 120_000)
        let http = ScriptedHTTP { _ in
            Self.json(
                429, #"{"errorCode":4290000,"errorMessage":"RateLimitExceededError"}"#,
                headers: [("Retry-After", retryAt)])
        }
        let source = try Self.source(http)
        let outcome = await Self.outcome { () throws(AppleCallFailure) in
            _ = try await source.transactionInfo(id: "7", environment: .production)
        }
        guard case .retry(let after, let reason) = outcome else {
            Issue.record("not a retry: \(String(describing: outcome))")
            return
        }
        #expect(reason.code == .rateLimited)
        #expect(after > .seconds(115))
    }

    @Test func verifyReceiptReportsSandboxReceiptsAndAsksSandboxOnce() async throws {
        let http = ScriptedHTTP { request in
            request.url.hasPrefix("https://buy.test")
                ? Self.json(200, #"{"status":21007}"#)
                : Self.json(
                    200, #"{"status":0,"environment":"Sandbox","receipt":{"bundle_id":"com.example.game","in_app":[]}}"#
                )
        }
        let source = try Self.source(http, legacy: true)
        let production = await Self.outcome { () throws(AppleCallFailure) in
            _ = try await source.verifyReceipt("MIIT", environment: .production)
        }
        #expect(production == .switchEnvironment(to: .sandbox))
        let answer = try await source.verifyReceipt("MIIT", environment: .sandbox)
        #expect(answer.status == 0)
        #expect(answer.receipt?.bundleId == "com.example.game")
        #expect(http.urls == ["https://buy.test/verifyReceipt", "https://sandbox.test/verifyReceipt"])
    }

    @Test func verifyReceiptUnconfiguredIsAConfigurationRetry() async throws {
        let http = ScriptedHTTP { _ in Self.json(500, "") }
        let source = try Self.source(http)
        let outcome = await Self.outcome { () throws(AppleCallFailure) in
            _ = try await source.verifyReceipt("MIIT", environment: .production)
        }
        guard case .retry(_, let reason) = outcome else {
            Issue.record("not a retry")
            return
        }
        #expect(reason.isConfigurationError)
        #expect(http.urls.isEmpty)
    }
}

/// The in-process gate: a ``GateTimeline`` per endpoint and environment.
@Suite(.timeLimit(.minutes(2))) struct InMemoryAppleCallGateTests {
    @Test func spendsItsBurstThenBooksSlots() async {
        let gate = InMemoryAppleCallGate(callsPerSecond: 5, sandboxShare: 0.2)
        let production = AppleCall(.transactionInfo, environment: .production)
        for _ in 0..<5 { #expect(await gate.acquire(production, holding: nil) == .proceed) }
        guard case .wait(let slot) = await gate.acquire(production, holding: nil) else {
            Issue.record("sixth call in the same second proceeded")
            return
        }
        #expect(slot.delay > .zero)
        #expect(slot.delay <= .milliseconds(200))
        #expect(slot.cause == .budget && slot.booking.call == production)
        // Sandbox has its own, smaller budget (1/s here).
        #expect(await gate.acquire(AppleCall(.transactionInfo, environment: .sandbox), holding: nil) == .proceed)
        #expect(await gate.acquire(AppleCall(.transactionInfo, environment: .sandbox), holding: nil) != .proceed)
        #expect(await gate.acquire(AppleCall(.verifyReceipt, environment: .production), holding: nil) == .proceed)
    }

    @Test func applesRetryAfterPausesTheCallUntilItPasses() async {
        let gate = InMemoryAppleCallGate(callsPerSecond: 5)
        let call = AppleCall(.transactionInfo, environment: .production)
        let first = await gate.backOff(call, for: .seconds(60))
        let second = await gate.backOff(call, for: .seconds(1))
        #expect(first.cause == .applePause && second.booking.at > first.booking.at)
        guard case .wait(let slot) = await gate.acquire(call, holding: nil) else {
            Issue.record("a paused call proceeded")
            return
        }
        #expect(slot.delay > .seconds(50))
        #expect(await gate.acquire(AppleCall(.verifyReceipt, environment: .production), holding: nil) == .proceed)
    }
}
