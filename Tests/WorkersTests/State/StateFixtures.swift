import AppStoreModels
import Contracts
import LocalServices
import Purchases
import Redis
import TestSupport
import Testing

/// Records with every field set, so a round trip through Redis shows nothing is lost.
enum StateFixtures {
    static let bundleId = "com.example.game"
    static let token = "7e3d2a1c-0000-4000-8000-000000000001"
    static let otherToken = "7e3d2a1c-0000-4000-8000-000000000002"
    static let now = Timestamp(millisecondsSince1970: 1_763_000_200_000)

    static func details(_ transactionId: String = "2000000000000002", original: String = "2000000000000001")
        -> TransactionDetails
    {
        TransactionDetails(
            transactionId: transactionId,
            originalTransactionId: original,
            bundleId: bundleId,
            productId: "pro_monthly",
            productType: .autoRenewableSubscription,
            quantity: 1,
            environment: .sandbox,
            purchaseDate: Timestamp(millisecondsSince1970: 1_763_000_000_001),
            originalPurchaseDate: Timestamp(millisecondsSince1970: 1_760_000_000_000),
            expiresDate: Timestamp(millisecondsSince1970: 1_765_592_000_001),
            revocationDate: Timestamp(millisecondsSince1970: 1_764_000_000_999),
            revocationReason: .refundedDueToIssue,
            appAccountToken: token.uppercased(),
            inAppOwnershipType: .familyShared,
            isUpgraded: false,
            signedDate: Timestamp(millisecondsSince1970: 1_764_000_001_000),
            webOrderLineItemId: "2000000000000099",
            subscriptionGroupIdentifier: "21000001"
        )
    }

    /// A notification delivery (no hints) of `details`.
    static func notification(_ transactionId: String = "2000000000000002", uuid: String = "n-1") -> VerifiedTransaction
    {
        VerifiedTransaction(
            transaction: details(transactionId),
            hints: PublisherHints(),
            source: .notification,
            receivedAt: Timestamp(millisecondsSince1970: 1_763_000_100_000),
            verifiedAt: Timestamp(millisecondsSince1970: 1_763_000_100_500),
            notification: NotificationContext(
                notificationType: .didRenew, subtype: .billingRecovery, notificationUUID: uuid,
                signedDate: Timestamp(millisecondsSince1970: 1_763_000_099_000)
            ),
            renewal: RenewalDetails(autoRenewProductId: "pro_yearly", autoRenewStatus: .on)
        )
    }

    /// A purchase delivery with every hint set.
    static func purchase(_ transactionId: String, eventId: String? = nil, orderId: String = "o-1")
        -> VerifiedTransaction
    {
        VerifiedTransaction(
            transaction: details(transactionId, original: transactionId),
            hints: PublisherHints(
                eventId: eventId ?? "e-\(transactionId)", userId: nil, orderId: orderId, appAccountToken: token,
                environment: .sandbox),
            source: .storeKit2,
            receivedAt: Timestamp(millisecondsSince1970: 1_763_000_100_000),
            verifiedAt: Timestamp(millisecondsSince1970: 1_763_000_100_500)
        )
    }

    static func order(_ orderId: String = "o-1", userId: String = "u-1", token: String? = StateFixtures.token)
        -> OrderEvent
    {
        OrderEvent(
            orderId: orderId, userId: userId, productId: "pro_monthly", bundleId: bundleId, appAccountToken: token,
            quantity: 1)
    }

    static func entitlement() -> EntitlementState {
        EntitlementState(
            originalTransactionId: "2000000000000001",
            userId: "u-1",
            orderId: "o-1",
            productId: "pro_monthly",
            productType: .autoRenewableSubscription,
            transactionId: "2000000000000002",
            purchaseDate: Timestamp(millisecondsSince1970: 1_763_000_000_001),
            expiresDate: Timestamp(millisecondsSince1970: 1_765_592_000_001),
            status: .revoked,
            signedDate: Timestamp(millisecondsSince1970: 1_764_000_001_000),
            revokedTransactionIds: ["2000000000000002", "2000000000000003"]
        )
    }
}

/// Runs `body` with two independent clients (separate pools, as two replicas would have) on
/// one database of their own on the shared `redis-server`.
func withTwoStateClients(_ body: (RedisClient, RedisClient) async throws -> Void) async throws {
    try await withRedisClient { server, first in
        try await withClient(try server.configuration()) { second in
            try await body(first, second)
        }
    }
}

/// `PTTL key`: -2 missing, -1 no expiry, else milliseconds left.
func pttl(_ client: RedisClient, _ key: String) async throws -> Int64 {
    try #require(try await client.send("PTTL", .string(key)).integer)
}

/// Whether a PTTL is a set expiry of at most `ttl` that has not run down by more than a minute.
func isFresh(_ pttl: Int64, ttl: Duration) -> Bool {
    let milliseconds = ttl.components.seconds * 1000
    return pttl > milliseconds - 60_000 && pttl <= milliseconds
}
