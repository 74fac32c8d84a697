import Contracts
import Purchases
import Redis
import TestSupport
import Testing
import WorkerCommon

@Suite(.timeLimit(.minutes(2))) struct RedisVerifiedTransactionCacheTests {
    @Test func roundTripsEveryFieldAndExpiresAfterAWeek() async throws {
        try await withRedisClient { _, client throws in
            let cache = RedisVerifiedTransactionCache(client: client)
            let transaction = StateFixtures.details()
            #expect(try await cache.get(transactionId: transaction.transactionId) == nil)
            try await cache.put(transaction)
            #expect(try await cache.get(transactionId: transaction.transactionId) == transaction)
            #expect(isFresh(try await pttl(client, "iap:verified:{2000000000000002}"), ttl: .seconds(7 * 86_400)))
        }
    }

    @Test func theNewestPutReplacesAndRestartsTheExpiry() async throws {
        try await withRedisClient { _, client throws in
            let cache = RedisVerifiedTransactionCache(client: client, retention: .seconds(60))
            var transaction = StateFixtures.details()
            try await cache.put(transaction)
            _ = try await client.send("PEXPIRE", "iap:verified:{2000000000000002}", 5000)
            transaction.revocationDate = nil
            transaction.revocationReason = nil
            try await cache.put(transaction)
            #expect(try await cache.get(transactionId: transaction.transactionId) == transaction)
            #expect(isFresh(try await pttl(client, "iap:verified:{2000000000000002}"), ttl: .seconds(60)))
        }
    }

    @Test func undecodableEntryThrowsAStateDecodingError() async throws {
        try await withRedisClient { _, client throws in
            _ = try await client.send("SET", "iap:verified:{1}", #"{"transactionId": "1"}"#)
            await #expect(throws: StateDecodingError.self) {
                try await RedisVerifiedTransactionCache(client: client).get(transactionId: "1")
            }
        }
    }
}
