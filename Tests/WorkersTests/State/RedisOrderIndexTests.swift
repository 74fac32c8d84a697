import Contracts
import Pipeline
import Purchases
import Redis
import TestSupport
import Testing
import WorkerCommon

@Suite(.timeLimit(.minutes(2))) struct RedisOrderIndexTests {
    @Test func findsAnOrderByIdAndByToken() async throws {
        try await withRedisClient { _, client throws in
            let index = RedisOrderIndex(client: client)
            let order = StateFixtures.order()
            try await index.put(order)
            try await index.put(StateFixtures.order("o-2", token: nil))
            #expect(try await index.order(orderId: "o-1") == order)
            #expect(try await index.order(appAccountToken: StateFixtures.token) == order)
            #expect(try await index.order(orderId: "o-2")?.appAccountToken == nil)
            #expect(try await index.order(orderId: "o-missing") == nil)
            #expect(try await index.order(appAccountToken: StateFixtures.otherToken) == nil)
            #expect(try await client.send("GET", .string("iap:order-token:{\(StateFixtures.token)}")).string == "o-1")
        }
    }

    /// One look at the token and the orderId hint: the same order, two orders, or neither.
    @Test func looksUpTheTokenAndTheHintTogether() async throws {
        try await withRedisClient { _, client throws in
            let redis = RedisOrderIndex(client: client)
            let memory = InMemoryOrderIndex()
            let first = StateFixtures.order()
            let second = StateFixtures.order("o-2", userId: "u-2", token: StateFixtures.otherToken)
            for order in [first, second] {
                try await redis.put(order)
                await memory.put(order)
            }
            let questions: [(String?, String?)] = [
                (StateFixtures.token, "o-1"), (StateFixtures.token, "o-2"), (StateFixtures.otherToken, nil),
                (nil, "o-2"), (StateFixtures.token, "o-missing"), ("7e3d2a1c-0000-4000-8000-00000000ffff", "o-1"),
                (nil, nil),
            ]
            for (token, orderId) in questions {
                let found = try await redis.orders(appAccountToken: token, orderId: orderId)
                #expect(
                    found == (await memory.orders(appAccountToken: token, orderId: orderId)),
                    "token \(token ?? "-"), orderId \(orderId ?? "-")")
            }
            #expect(
                try await redis.orders(appAccountToken: StateFixtures.token, orderId: "o-2")
                    == OrderLookup(byToken: first, byOrderId: second))
        }
    }

    /// The orders topic is compacted and replayed: putting the same order again changes
    /// nothing, a later version of the orderId replaces it, and both tokens lead to it (as in
    /// `InMemoryOrderIndex`, which the Redis index is compared with step by step).
    @Test func replayIsIdempotentAndALaterPutReplaces() async throws {
        try await withRedisClient { _, client throws in
            let redis = RedisOrderIndex(client: client)
            let memory = InMemoryOrderIndex()
            let first = StateFixtures.order()
            var second = StateFixtures.order(userId: "u-2", token: StateFixtures.otherToken)
            second.quantity = 3
            for order in [first, first, second] {
                try await redis.put(order)
                await memory.put(order)
                #expect(try await redis.order(orderId: "o-1") == memory.order(orderId: "o-1"))
                for token in [StateFixtures.token, StateFixtures.otherToken] {
                    #expect(try await redis.order(appAccountToken: token) == memory.order(appAccountToken: token))
                }
            }
            #expect(try await redis.order(orderId: "o-1") == second)
            #expect(try await redis.order(appAccountToken: StateFixtures.token) == second)
        }
    }

    @Test func concurrentClaimsFromTwoReplicasHaveExactlyOneWinner() async throws {
        try await withTwoStateClients { first, second in
            let indexes = [RedisOrderIndex(client: first), RedisOrderIndex(client: second)]
            let orderIds = (0..<50).map { "o-\($0)" }
            let results = try await withThrowingTaskGroup(of: (String, String, String).self) { group in
                for orderId in orderIds {
                    for (replica, index) in indexes.enumerated() {
                        group.addTask {
                            let claimant = "tx-\(replica)-\(orderId)"
                            return (
                                orderId, claimant,
                                try await index.claim(orderId: orderId, originalTransactionId: claimant)
                            )
                        }
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            for orderId in orderIds {
                let claims = results.filter { $0.0 == orderId }
                #expect(claims.count == 2)
                // Both callers are told the same first claim, and it is one of theirs.
                #expect(Set(claims.map(\.2)).count == 1)
                #expect(claims.filter { $0.1 == $0.2 }.count == 1)
                let winner = try #require(claims.first?.2)
                #expect(try await indexes[1].claim(orderId: orderId, originalTransactionId: "tx-late") == winner)
            }
        }
    }

    @Test func noExpiryByDefaultAndRetentionWhenConfigured() async throws {
        try await withRedisClient { _, client throws in
            try await RedisOrderIndex(client: client).put(StateFixtures.order())
            _ = try await RedisOrderIndex(client: client).claim(orderId: "o-1", originalTransactionId: "100")
            for key in ["iap:order:{o-1}", "iap:order-token:{\(StateFixtures.token)}", "iap:order:{o-1}:claim"] {
                #expect(try await pttl(client, key) == -1, "\(key)")
            }

            let retention = Duration.seconds(3600)
            let expiring = RedisOrderIndex(client: client, keys: try Keyspace(prefix: "x:"), retention: retention)
            try await expiring.put(StateFixtures.order())
            _ = try await expiring.claim(orderId: "o-1", originalTransactionId: "100")
            for key in ["x:order:{o-1}", "x:order-token:{\(StateFixtures.token)}", "x:order:{o-1}:claim"] {
                #expect(isFresh(try await pttl(client, key), ttl: retention), "\(key)")
            }
        }
    }

    @Test func undecodableOrderThrowsAStateDecodingError() async throws {
        try await withRedisClient { _, client throws in
            let index = RedisOrderIndex(client: client)
            _ = try await client.send("SET", "iap:order:{o-1}", "{not json")
            _ = try await client.send("SET", "iap:order:{o-2}", #"{"schema": "iap.order.v9", "orderId": "o-2"}"#)
            _ = try await client.send("SET", .string("iap:order-token:{\(StateFixtures.token)}"), "o-1")
            for orderId in ["o-1", "o-2"] {
                await #expect(throws: StateDecodingError.self) { try await index.order(orderId: orderId) }
            }
            await #expect(throws: StateDecodingError.self) {
                try await index.order(appAccountToken: StateFixtures.token)
            }
        }
    }

    @Test func redisErrorsPropagate() async throws {
        try await withRedisClient { _, client throws in
            _ = try await client.send("HSET", "iap:order:{o-1}:claim", "f", "v")
            await #expect(throws: RedisError(code: .server, message: "")) {
                try await RedisOrderIndex(client: client).claim(orderId: "o-1", originalTransactionId: "100")
            }
        }
    }
}
