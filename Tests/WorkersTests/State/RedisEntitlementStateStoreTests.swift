import AppStoreModels
import Contracts
import Purchases
import Redis
import TestSupport
import Testing
import WorkerCommon

@Suite(.timeLimit(.minutes(2))) struct RedisEntitlementStateStoreTests {
    @Test func roundTripsAFullStateWithoutExpiry() async throws {
        try await withRedisClient { _, client throws in
            let store = RedisEntitlementStateStore(client: client)
            let state = StateFixtures.entitlement()
            #expect(try await store.state(originalTransactionId: state.originalTransactionId) == nil)
            try await store.save(state)
            #expect(try await store.state(originalTransactionId: state.originalTransactionId) == state)
            #expect(try await pttl(client, "iap:entitlement:{2000000000000001}") == -1)
        }
    }

    @Test func saveReplaces() async throws {
        try await withRedisClient { _, client throws in
            let store = RedisEntitlementStateStore(client: client)
            var state = StateFixtures.entitlement()
            try await store.save(state)
            state.status = .active
            state.revokedTransactionIds = []
            state.orderId = nil
            state.productType = nil
            try await store.save(state)
            #expect(try await store.state(originalTransactionId: state.originalTransactionId) == state)
        }
    }

    @Test func retentionWhenConfigured() async throws {
        try await withRedisClient { _, client throws in
            let store = RedisEntitlementStateStore(client: client, retention: .seconds(3600))
            try await store.save(StateFixtures.entitlement())
            #expect(isFresh(try await pttl(client, "iap:entitlement:{2000000000000001}"), ttl: .seconds(3600)))
        }
    }

    @Test func undecodableStateThrowsAStateDecodingError() async throws {
        try await withRedisClient { _, client throws in
            _ = try await client.send(
                "SET", "iap:entitlement:{100}", #"{"originalTransactionId": "100", "status": "paused"}"#)
            await #expect {
                try await RedisEntitlementStateStore(client: client).state(originalTransactionId: "100")
            } throws: { error in
                (error as? StateDecodingError)?.key == "iap:entitlement:{100}"
            }
        }
    }

    /// Grant's two phases on the Redis store: the second delivery of a purchase is a repeat.
    @Test func grantRulesRunOnTheRedisStore() async throws {
        try await withRedisClient { _, client throws in
            let rules = GrantRules(store: RedisEntitlementStateStore(client: client))
            var transaction = StateFixtures.details("500", original: "500")
            transaction.revocationDate = nil
            transaction.revocationReason = nil
            transaction.productType = .consumable
            transaction.expiresDate = nil
            let matched = MatchedTransaction(
                verified: VerifiedTransaction(
                    transaction: transaction, hints: PublisherHints(eventId: "e-1", userId: "u-1"), source: .storeKit2,
                    receivedAt: StateFixtures.now, verifiedAt: StateFixtures.now
                ),
                userId: "u-1", orderId: nil, matchedBy: .user
            )
            let first = try await rules.decide(matched)
            #expect(first.events.map(\.action) == [.grant])
            try await rules.commit(first)
            #expect(try await rules.decide(matched).events.isEmpty)
        }
    }
}
