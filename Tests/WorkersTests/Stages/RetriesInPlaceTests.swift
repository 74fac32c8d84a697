import AppStoreModels
import Contracts
import Foundation
import Kafka
import LocalServices
import Logging
import Pipeline
import Purchases
import Redis
import TestSupport
import Testing
import Topology

@testable import WorkerCommon
@testable import Workers

/// The stages whose retries would harm their input retry a failed record where it is (D68), as
/// their executables assemble them: the customer state, whose input backends read, and match,
/// whose orders' topic is compacted.
@Suite(.serialized, .timeLimit(.minutes(3))) struct RetriesInPlaceTests {
    @Test func theCustomerStateRetriesAChangeWithoutPublishingItAgain() async throws {
        let change = EntitlementEvent(
            eventId: "t-1|grant|1", action: .grant, userId: "u-1", orderId: nil, bundleId: "com.example.game",
            productId: "remove_ads", productType: .nonConsumable, quantity: 1, transactionId: "t-1",
            originalTransactionId: "t-1", environment: .production,
            purchaseDate: Timestamp(millisecondsSince1970: 1_780_000_000_000), expiresDate: nil, revocationDate: nil,
            matchedBy: .user, warnings: [], source: .storeKit2, status: .active, autoRenewStatus: nil)
        try await withStage(.state, environment: [:], adjust: Self.fastRetries) { stage in
            let redis = try Self.redis(stage)
            // The customer's key holds a hash: reading it as the record fails (WRONGTYPE) until
            // the key is gone, a failure of Redis the stage can only retry.
            let key = Keyspace.standard.customer(bundleId: change.bundleId, userId: change.userId)
            _ = try await redis.execute(HSET(key, field: "broken", value: .string("yes")))
            let entitlements = try stage.spec.input("entitlements")
            try await Self.failTwice(redis, repairing: key) {
                _ = try await stage.producer.send(
                    KafkaRecord(
                        topic: entitlements, key: Array(change.userId.utf8), value: try EventEncoder.encode(change)))
            }

            let customers = try stage.probe(try stage.spec.output("customers"))
            #expect(try await customers.waitForMessages(1, timeout: .seconds(30)).count == 1)
            let admin = try KafkaAdmin(bootstrapServers: stage.cluster.bootstrapServers, logger: Self.quiet)
            let readers = try stage.probe(entitlements)
            let carried = try await readers.waitUntilCaughtUp(on: entitlements, admin: admin)
            #expect(carried.count == 1, "iap.entitlements carried the change \(carried.count) times")
            await customers.close()
            await readers.close()
            await redis.shutdown()
        }
    }

    /// Match's `iap.orders` is compacted by token: an order re-published for a retry after a newer
    /// order of its token would become the copy compaction keeps. Match retries it in place (D69):
    /// the order is indexed once its Redis works, and `iap.orders` still holds only what the
    /// backend wrote.
    @Test func matchRetriesAnOrderWithoutPublishingItAgain() async throws {
        let token = "5b7a3c1e-0d2f-4a8b-9c6d-1e2f3a4b5c6d"
        let order = OrderEvent(
            orderId: "o-1", userId: "u-1", productId: "remove_ads", bundleId: "com.example.game",
            appAccountToken: token)
        try await withStage(.match, environment: [:], adjust: Self.fastRetries) { stage in
            let redis = try Self.redis(stage)
            // The token's index of parked transactions holds a string: reading it fails
            // (WRONGTYPE) until the key is gone, a failure of Redis the stage can only retry.
            let index = Keyspace.standard.waitingIndex(.appAccountToken(token))
            _ = try await redis.execute(SET(index, value: .string("broken")))
            let orders = try stage.spec.input("orders")
            try await Self.failTwice(redis, repairing: index) {
                _ = try await stage.producer.send(
                    KafkaRecord(topic: orders, key: Array(token.utf8), value: try EventEncoder.encode(order)))
            }

            let admin = try KafkaAdmin(bootstrapServers: stage.cluster.bootstrapServers, logger: Self.quiet)
            _ = try await eventually("match committed the order", timeout: .seconds(30)) {
                let lag = try await admin.consumerLag(group: stage.spec.consumerGroup, topics: [orders])
                let written = lag.filter { $0.highWatermark > 0 }
                return !written.isEmpty && written.allSatisfy { $0.committedOffset == $0.highWatermark } ? true : nil
            }
            let readers = try stage.probe(orders)
            let carried = try await readers.waitUntilCaughtUp(on: orders, admin: admin)
            #expect(carried.count == 1, "iap.orders carried the order \(carried.count) times")
            await readers.close()
            await redis.shutdown()
        }
    }

    /// Tries come 200 ms apart, so two fail within seconds.
    static let fastRetries: @Sendable (inout StageSpec) -> Void = { $0.retry.initialBackoff = .milliseconds(200) }

    static var quiet: Logger {
        var logger = Logger(label: "test.redis")
        logger.logLevel = .critical
        return logger
    }

    /// A client of the stage's Redis database, for breaking and repairing its keys.
    static func redis(_ stage: StageRun) throws -> RedisClient {
        RedisClient(configuration: try stage.redis.configuration(), logger: quiet)
    }

    /// Sends a record whose key in Redis holds the wrong type, waits until the stage failed it
    /// twice (Redis counts WRONGTYPE replies server-wide), then repairs the key.
    static func failTwice(_ redis: RedisClient, repairing key: String, send: () async throws -> Void)
        async throws
    {
        let before = try await wrongTypeErrors(redis)
        try await send()
        _ = try await eventually("the stage failed the record twice", timeout: .seconds(30)) {
            try await wrongTypeErrors(redis) >= before + 2 ? true : nil
        }
        _ = try await redis.execute(DEL(key))
    }

    /// Redis' count of WRONGTYPE replies, server-wide (`INFO errorstats`).
    static func wrongTypeErrors(_ redis: RedisClient) async throws -> Int {
        let info = try await redis.execute(INFO("errorstats"))
        guard let line = info.split(whereSeparator: \.isNewline).first(where: { $0.hasPrefix("errorstat_WRONGTYPE:") }),
            let count = line.split(separator: "=").last.flatMap({ Int($0) })
        else { return 0 }
        return count
    }
}
