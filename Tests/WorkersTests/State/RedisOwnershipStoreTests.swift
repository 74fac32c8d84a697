import Purchases
import Redis
import TestSupport
import Testing
import WorkerCommon

@Suite(.timeLimit(.minutes(2))) struct RedisOwnershipStoreTests {
    @Test func firstBindingIsFinal() async throws {
        try await withRedisClient { _, client throws in
            let store = RedisOwnershipStore(client: client)
            #expect(try await store.owner(originalTransactionId: "100") == nil)
            #expect(try await store.bind(originalTransactionId: "100", userId: "u-1") == "u-1")
            #expect(try await store.bind(originalTransactionId: "100", userId: "u-2") == "u-1")
            #expect(try await store.owner(originalTransactionId: "100") == "u-1")
            #expect(try await store.owner(originalTransactionId: "101") == nil)
            // Bindings are forever: renewals and refunds come years later.
            #expect(try await pttl(client, "iap:owner:{100}") == -1)
        }
    }

    @Test func concurrentBindsFromTwoReplicasHaveExactlyOneWinner() async throws {
        try await withTwoStateClients { first, second in
            let stores = [RedisOwnershipStore(client: first), RedisOwnershipStore(client: second)]
            let purchases = (0..<50).map { "\(1000 + $0)" }
            let results = try await withThrowingTaskGroup(of: (String, String, String).self) { group in
                for purchase in purchases {
                    for (replica, store) in stores.enumerated() {
                        group.addTask {
                            let user = "u-\(replica)"
                            return (purchase, user, try await store.bind(originalTransactionId: purchase, userId: user))
                        }
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            for purchase in purchases {
                let binds = results.filter { $0.0 == purchase }
                #expect(binds.count == 2)
                #expect(Set(binds.map(\.2)).count == 1)
                #expect(binds.filter { $0.1 == $0.2 }.count == 1)
                #expect(try await stores[0].owner(originalTransactionId: purchase) == binds.first?.2)
            }
        }
    }

    @Test func retentionWhenConfigured() async throws {
        try await withRedisClient { _, client throws in
            let store = RedisOwnershipStore(client: client, retention: .seconds(600))
            _ = try await store.bind(originalTransactionId: "100", userId: "u-1")
            #expect(isFresh(try await pttl(client, "iap:owner:{100}"), ttl: .seconds(600)))
        }
    }
}
