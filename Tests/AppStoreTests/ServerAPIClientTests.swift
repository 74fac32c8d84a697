import AppStore
import AppStoreModels
import Crypto
import Foundation
import TestSupport
import Testing

/// The Server API client: URLs, bearer token, environment fallback and classification.
@Suite(.timeLimit(.minutes(2))) struct ServerAPIClientTests {
    static let key = P256.Signing.PrivateKey()

    static func client(_ fake: FakeAppleHTTP, sandboxFallback: Bool = true) throws -> AppStoreServerAPIClient {
        try AppStoreServerAPIClient(
            configuration: .init(
                privateKeyPEM: key.pemRepresentation, keyId: "KEY123", issuerId: "issuer-uuid",
                bundleId: "com.example.game",
                sandboxFallback: sandboxFallback, productionBaseURL: "https://prod.test",
                sandboxBaseURL: "https://sandbox.test"
            ),
            executor: fake
        )
    }

    static func claims(of request: AppleHTTPRequest) throws -> (
        header: [String: Any], claims: [String: Any], signingInput: String, signature: Data
    ) {
        let authorization = try #require(request.header("Authorization"))
        #expect(authorization.hasPrefix("Bearer "))
        let parts = authorization.dropFirst("Bearer ".count).split(separator: ".").map(String.init)
        try #require(parts.count == 3)
        let headerData = try #require(TestSigningChain.base64URLDecode(parts[0]))
        let claimsData = try #require(TestSigningChain.base64URLDecode(parts[1]))
        let signature = try #require(TestSigningChain.base64URLDecode(parts[2]))
        let header = try #require(try JSONSerialization.jsonObject(with: headerData) as? [String: Any])
        let claims = try #require(try JSONSerialization.jsonObject(with: claimsData) as? [String: Any])
        return (header, claims, "\(parts[0]).\(parts[1])", signature)
    }

    @Test func getTransactionInfoSendsASignedBearerToken() async throws {
        let fake = FakeAppleHTTP { _ in FakeAppleHTTP.json(200, "{\"signedTransactionInfo\":\"a.b.c\"}") }
        let response = try await Self.client(fake).getTransactionInfo(transactionId: "2000000847061981")
        #expect(response.value.signedTransactionInfo == "a.b.c")
        #expect(response.environment == .production)
        let request = try #require(fake.requests.first)
        #expect(request.method == "GET")
        #expect(request.url == "https://prod.test/inApps/v1/transactions/2000000847061981")

        let token = try Self.claims(of: request)
        #expect(token.header["alg"] as? String == "ES256")
        #expect(token.header["kid"] as? String == "KEY123")
        #expect(token.claims["iss"] as? String == "issuer-uuid")
        #expect(token.claims["bid"] as? String == "com.example.game")
        #expect(token.claims["aud"] as? String == "appstoreconnect-v1")
        let iat = try #require(token.claims["iat"] as? Int)
        let exp = try #require(token.claims["exp"] as? Int)
        let now = Int(Date().timeIntervalSince1970)
        #expect(iat <= now - 30, "iat is back-dated for clock skew")
        #expect(exp - iat <= 300)
        #expect(exp > now)
        let signature = try P256.Signing.ECDSASignature(rawRepresentation: token.signature)
        #expect(Self.key.publicKey.isValidSignature(signature, for: Data(token.signingInput.utf8)))
    }

    @Test func tokenIsReusedAcrossCalls() async throws {
        let fake = FakeAppleHTTP { _ in FakeAppleHTTP.json(200, "{}") }
        let client = try Self.client(fake)
        _ = try await client.getTransactionInfo(transactionId: "1")
        _ = try await client.getTransactionInfo(transactionId: "2")
        #expect(fake.requests.count == 2)
        #expect(fake.requests[0].header("Authorization") == fake.requests[1].header("Authorization"))
    }

    @Test func transactionNotFoundInProductionIsLookedUpInSandboxOnce() async throws {
        let fake = FakeAppleHTTP { request in
            request.url.hasPrefix("https://prod.test")
                ? FakeAppleHTTP.json(404, "{\"errorCode\":4040010,\"errorMessage\":\"Transaction id not found.\"}")
                : FakeAppleHTTP.json(200, "{\"signedTransactionInfo\":\"s.s.s\"}")
        }
        let response = try await Self.client(fake).getTransactionInfo(transactionId: "42")
        #expect(response.environment == .sandbox)
        #expect(
            fake.requests.map(\.url) == [
                "https://prod.test/inApps/v1/transactions/42", "https://sandbox.test/inApps/v1/transactions/42",
            ])
    }

    @Test func transactionNotFoundInBothEnvironmentsIsTerminal() async throws {
        let fake = FakeAppleHTTP { _ in FakeAppleHTTP.json(404, "{\"errorCode\":4040010,\"errorMessage\":\"nope\"}") }
        await #expect(throws: AppStoreAPIError.self) {
            _ = try await Self.client(fake).getTransactionInfo(transactionId: "42")
        }
        let client = try Self.client(fake)
        do throws(AppStoreAPIError) {
            _ = try await client.getTransactionInfo(transactionId: "42")
        } catch {
            #expect(error.outcome == .terminal(TerminalReason(.transactionNotFound)))
            #expect(error.apiErrorCode == 4_040_010)
            #expect(error.environment == .sandbox)
        }
        #expect(fake.requests.count == 4)
    }

    @Test func withoutSandboxFallbackNotFoundIsTerminalInProduction() async throws {
        let fake = FakeAppleHTTP { _ in FakeAppleHTTP.json(404, "{\"errorCode\":4040010}") }
        let client = try Self.client(fake, sandboxFallback: false)
        do throws(AppStoreAPIError) {
            _ = try await client.getTransactionInfo(transactionId: "42")
            Issue.record("expected an error")
        } catch {
            #expect(error.outcome == .terminal(TerminalReason(.transactionNotFound)))
            #expect(error.environment == .production)
        }
        #expect(fake.requests.count == 1)
    }

    @Test func rateLimitHonoursRetryAfterInMilliseconds() async throws {
        let resumeAt = Int64((Date().timeIntervalSince1970 + 30) * 1000)
        let fake = FakeAppleHTTP { _ in
            FakeAppleHTTP.json(
                429, "{\"errorCode\":4290000,\"errorMessage\":\"Rate limit exceeded.\"}",
                headers: [("Retry-After", String(resumeAt))])
        }
        let client = try Self.client(fake)
        do throws(AppStoreAPIError) {
            _ = try await client.getAllSubscriptionStatuses(transactionId: "1")
            Issue.record("expected an error")
        } catch {
            guard case .retry(let after, let reason) = error.outcome else {
                Issue.record("\(error)")
                return
            }
            #expect(reason.code == .rateLimited)
            #expect(after > .seconds(20) && after <= .seconds(30))
        }
    }

    @Test func unauthorizedIsASlowConfigurationRetry() async throws {
        let fake = FakeAppleHTTP { _ in .success(AppleHTTPResponse(status: 401)) }
        let client = try Self.client(fake)
        do throws(AppStoreAPIError) {
            _ = try await client.getTransactionInfo(transactionId: "1")
            Issue.record("expected an error")
        } catch {
            guard case .retry(let after, let reason) = error.outcome else {
                Issue.record("\(error)")
                return
            }
            #expect(reason.isConfigurationError)
            #expect(after == .seconds(60))
        }
    }

    @Test func transportFailuresAndHTMLAreRetryable() async throws {
        let timeout = FakeAppleHTTP { _ in .failure(.timeout) }
        let html = FakeAppleHTTP { _ in FakeAppleHTTP.json(200, "<html>Service Unavailable</html>") }
        for fake in [timeout, html] {
            let client = try Self.client(fake)
            do throws(AppStoreAPIError) {
                _ = try await client.getTransactionInfo(transactionId: "1")
                Issue.record("expected an error")
            } catch {
                guard case .retry = error.outcome else {
                    Issue.record("\(error)")
                    return
                }
            }
        }
    }

    @Test func historyPagesFollowRevisionAndKeepFilters() async throws {
        let fake = FakeAppleHTTP { request in
            if request.url.contains("revision=r1") {
                return FakeAppleHTTP.json(
                    200, "{\"revision\":\"r2\",\"hasMore\":false,\"signedTransactions\":[\"t3\"]}")
            }
            return FakeAppleHTTP.json(
                200,
                "{\"revision\":\"r1\",\"hasMore\":true,\"signedTransactions\":[\"t1\",\"t2\"],\"environment\":\"Production\"}"
            )
        }
        let request = TransactionHistoryRequest(
            productIds: ["a", "b"], productTypes: [.consumable], sort: .ascending, revoked: false
        )
        let all = try await Self.client(fake).getAllTransactionHistory(transactionId: "9", request: request)
        #expect(all.value == ["t1", "t2", "t3"])
        #expect(
            fake.requests.map(\.url) == [
                "https://prod.test/inApps/v2/history/9?productId=a&productId=b&productType=CONSUMABLE&sort=ASCENDING&revoked=false",
                "https://prod.test/inApps/v2/history/9?revision=r1&productId=a&productId=b&productType=CONSUMABLE&sort=ASCENDING&revoked=false",
            ])
    }

    @Test func otherEndpointsUseApplePaths() async throws {
        let fake = FakeAppleHTTP { request in
            request.method == "PUT" ? .success(AppleHTTPResponse(status: 202)) : FakeAppleHTTP.json(200, "{}")
        }
        let client = try Self.client(fake)
        _ = try await client.getAllSubscriptionStatuses(transactionId: "1", statuses: [.active, .billingGracePeriod])
        _ = try await client.lookUpOrderId("MQ5ZX2ABCD")
        _ = try await client.getRefundHistory(transactionId: "1", revision: "rev")
        _ = try await client.getNotificationHistory(
            .init(
                startDate: .init(millisecondsSince1970: 1), endDate: .init(millisecondsSince1970: 2), onlyFailures: true
            ),
            paginationToken: "tok"
        )
        _ = try await client.requestTestNotification()
        _ = try await client.getTestNotificationStatus(token: "abc")
        _ = try await client.sendConsumptionInformation(
            transactionId: "1", .init(customerConsented: true, sampleContentProvided: false, deliveryStatus: .delivered)
        )
        #expect(
            fake.requests.map { "\($0.method) \($0.url)" } == [
                "GET https://prod.test/inApps/v1/subscriptions/1?status=1&status=4",
                "GET https://prod.test/inApps/v1/lookup/MQ5ZX2ABCD",
                "GET https://prod.test/inApps/v2/refund/lookup/1?revision=rev",
                "POST https://prod.test/inApps/v1/notifications/history?paginationToken=tok",
                "POST https://prod.test/inApps/v1/notifications/test",
                "GET https://prod.test/inApps/v1/notifications/test/abc",
                "PUT https://prod.test/inApps/v2/transactions/consumption/1",
            ])
        let historyBody = try #require(fake.requests[3].body)
        let history = try #require(try JSONSerialization.jsonObject(with: Data(historyBody)) as? [String: Any])
        #expect(history["startDate"] as? Int == 1)
        #expect(history["onlyFailures"] as? Bool == true)
        let consumptionBody = try #require(fake.requests[6].body)
        let consumption = try #require(try JSONSerialization.jsonObject(with: Data(consumptionBody)) as? [String: Any])
        #expect(consumption["deliveryStatus"] as? String == "DELIVERED")
    }

    @Test func badSigningKeyIsAConfigurationError() {
        #expect(throws: ConfigurationError(.invalidSigningKey, "")) {
            try AppStoreServerAPIClient(
                configuration: .init(privateKeyPEM: "not a key", keyId: "k", issuerId: "i", bundleId: "b"),
                executor: FakeAppleHTTP { _ in FakeAppleHTTP.json(200, "{}") }
            )
        }
    }
}
