import AppStore
import AppStoreModels
import Foundation
import Testing

/// The legacy verifyReceipt client: environment switching and transient bodies.
@Suite(.timeLimit(.minutes(2))) struct VerifyReceiptClientTests {
    static func client(_ fake: FakeAppleHTTP, sandboxAllowed: Bool = true) -> VerifyReceiptClient {
        VerifyReceiptClient(
            configuration: .init(
                sharedSecret: "s3cret", excludeOldTransactions: true, sandboxAllowed: sandboxAllowed,
                productionURL: "https://buy.test/verifyReceipt", sandboxURL: "https://sandbox.test/verifyReceipt"
            ),
            executor: fake
        )
    }

    @Test func sandboxReceiptIsResentToSandbox() async throws {
        let fake = FakeAppleHTTP { request in
            request.url.hasPrefix("https://buy.test")
                ? FakeAppleHTTP.json(200, "{\"status\":21007}")
                : FakeAppleHTTP.json(
                    200,
                    "{\"status\":0,\"environment\":\"Sandbox\",\"receipt\":{\"bundle_id\":\"com.example\",\"in_app\":[{\"transaction_id\":\"1\",\"quantity\":\"1\"}]}}"
                )
        }
        let response = try await Self.client(fake).verify(receiptData: "MIIB")
        #expect(response.environment == .sandbox)
        #expect(response.value.receipt?.inApp?.first?.transactionId == "1")
        #expect(fake.requests.count == 2)
        let requestBody = try #require(fake.requests[0].body)
        let body = try #require(try JSONSerialization.jsonObject(with: Data(requestBody)) as? [String: Any])
        #expect(body["receipt-data"] as? String == "MIIB")
        #expect(body["password"] as? String == "s3cret")
        #expect(body["exclude-old-transactions"] as? Bool == true)
    }

    @Test func sandboxReceiptWithoutSandboxIsTerminal() async throws {
        let fake = FakeAppleHTTP { _ in FakeAppleHTTP.json(200, "{\"status\":21007}") }
        do throws(VerifyReceiptClient.Failure) {
            _ = try await Self.client(fake, sandboxAllowed: false).verify(receiptData: "MIIB")
            Issue.record("expected a failure")
        } catch {
            #expect(error.outcome == .terminal(TerminalReason(.sandboxNotAllowed)))
            #expect(error.status == 21007)
        }
    }

    @Test func htmlWithStatus200IsTransient() async throws {
        let fake = FakeAppleHTTP { _ in FakeAppleHTTP.json(200, "<html><body>Service Unavailable</body></html>") }
        do throws(VerifyReceiptClient.Failure) {
            _ = try await Self.client(fake).verify(receiptData: "MIIB")
            Issue.record("expected a failure")
        } catch {
            #expect(error.outcome == .retry(after: .seconds(5), reason: RetryReason(.invalidResponseBody)))
        }
    }

    @Test func retryableInternalErrorHonoursEitherFlagSpelling() async throws {
        for body in ["{\"status\":21100,\"is_retryable\":true}", "{\"status\":21100,\"is-retryable\":1}"] {
            let fake = FakeAppleHTTP { _ in FakeAppleHTTP.json(200, body) }
            do throws(VerifyReceiptClient.Failure) {
                _ = try await Self.client(fake).verify(receiptData: "MIIB")
                Issue.record("expected a failure")
            } catch {
                #expect(error.outcome == .retry(after: .seconds(5), reason: RetryReason(.appleRetryable)))
            }
        }
    }
}
