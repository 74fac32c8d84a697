import Contracts
import Foundation
import Kafka
import Pipeline
import Purchases
import Synchronization
import Testing
import Workers

@Suite(.timeLimit(.minutes(2))) struct WebhookHandlerTests {
    /// Records what was posted and answers with a scripted status.
    final class FakeTransport: WebhookTransport {
        struct Post: Sendable {
            var url: String
            var headers: [String: String]
            var body: [UInt8]
        }
        let posts = Mutex<[Post]>([])
        let answer: @Sendable () throws -> (status: Int, headers: [(String, String)])

        init(_ answer: @escaping @Sendable () throws -> (status: Int, headers: [(String, String)])) {
            self.answer = answer
        }

        func post(url: String, headers: [(String, String)], body: [UInt8], timeout: Duration) async throws -> (
            status: Int, headers: [(String, String)]
        ) {
            posts.withLock {
                $0.append(Post(url: url, headers: Dictionary(headers, uniquingKeysWith: { a, _ in a }), body: body))
            }
            return try answer()
        }
    }

    static let event =
        #"{"schema":"iap.entitlement.v1","eventId":"e-1","action":"grant","userId":"u-1","orderId":null,"bundleId":"com.example.game","productId":"gems_100","productType":"Consumable","quantity":1,"transactionId":"1","originalTransactionId":"1","environment":"Sandbox","purchaseDate":"2026-11-21T21:00:00.000Z","expiresDate":null,"revocationDate":null,"matchedBy":"user","warnings":[],"source":"storekit2"}"#

    static func message(_ value: String = event) -> InboundMessage {
        InboundMessage(
            record: KafkaMessage(
                topic: "iap.entitlements", partition: 0, offset: 7, key: Array("u-1".utf8), value: Array(value.utf8)),
            attempt: 0)
    }

    static let now = Date(timeIntervalSince1970: 1_790_000_000)

    func handler(_ transport: FakeTransport) -> WebhookHandler {
        WebhookHandler(
            url: "https://backend.example/iap", signer: WebhookSigner(secret: "s3cret"), transport: transport,
            now: { Self.now })
    }

    @Test func deliversTheEventSignedWithItsIdempotencyKey() async throws {
        let transport = FakeTransport { (204, []) }
        let handler = handler(transport)
        let prepared = try handler.prepare(Self.message())
        #expect(prepared.idempotencyKey == "webhook:e-1")
        guard case .skip = try await handler.handle(prepared.work, message: Self.message()) else {
            Issue.record("a 2xx is a finished delivery")
            return
        }
        let post = try #require(transport.posts.withLock { $0.first })
        #expect(post.url == "https://backend.example/iap")
        #expect(post.headers["Idempotency-Key"] == "e-1")
        #expect(post.body == Array(Self.event.utf8))
        let signature = try #require(post.headers[WebhookSigner.header])
        let signer = WebhookSigner(secret: "s3cret")
        #expect(signer.verify(signature, body: post.body, now: Int64(Self.now.timeIntervalSince1970)))
        #expect(
            !signer.verify(signature, body: post.body + [0x20], now: Int64(Self.now.timeIntervalSince1970)),
            "a changed body must not verify")
        #expect(
            !WebhookSigner(secret: "other").verify(
                signature, body: post.body, now: Int64(Self.now.timeIntervalSince1970)))
        #expect(
            !signer.verify(signature, body: post.body, now: Int64(Self.now.timeIntervalSince1970) + 3600),
            "an old signature is a replay")
    }

    @Test func failuresAreRetriedNeverEarlierThanRetryAfter() async throws {
        let unavailable = handler(FakeTransport { (503, [("Retry-After", "120")]) })
        guard
            case .retry(let after, let reason) = try await unavailable.handle(
                try unavailable.prepare(Self.message()).work, message: Self.message())
        else {
            Issue.record("a 503 must be retried")
            return
        }
        #expect(after == .seconds(120))
        #expect(reason.contains("503"))

        struct Refused: Error {}
        let unreachable = handler(FakeTransport { throw Refused() })
        guard
            case .retry = try await unreachable.handle(
                try unreachable.prepare(Self.message()).work, message: Self.message())
        else {
            Issue.record("an unreachable receiver must be retried")
            return
        }
    }

    @Test func somethingOtherThanAnEntitlementIsRejected() {
        #expect(throws: Rejection.self) {
            try handler(FakeTransport { (200, []) }).prepare(Self.message(#"{"schema":"iap.order.v1"}"#))
        }
    }
}
