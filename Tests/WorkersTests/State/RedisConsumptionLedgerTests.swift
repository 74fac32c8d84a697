import Pipeline
import Purchases
import Redis
import TestSupport
import Testing
import WorkerCommon

/// Grant's note of answered consumption requests (decision D34): one key per transaction,
/// expiring with Apple's answer window.
@Suite(.timeLimit(.minutes(2))) struct RedisConsumptionLedgerTests {
    @Test func notesTheAnswerForTheWindow() async throws {
        try await withRedisClient { _, client throws in
            let ledger = RedisConsumptionLedger(client: client)
            #expect(try await ledger.answer(transactionId: "2000000000000001") == nil)
            try await ledger.recordAnswer(
                transactionId: "2000000000000001", notificationUUID: "n-1", window: .seconds(12 * 3600))
            #expect(try await ledger.answer(transactionId: "2000000000000001") == "n-1")
            #expect(try await ledger.answer(transactionId: "2000000000000002") == nil)
            #expect(isFresh(try await pttl(client, "iap:consumption:{2000000000000001}"), ttl: .seconds(12 * 3600)))
        }
    }

    @Test func keysFollowThePrefix() throws {
        #expect(try Keyspace(prefix: "staging:iap:").consumptionAnswer("7") == "staging:iap:consumption:{7}")
    }
}
