import AppStoreModels
import Contracts
import Foundation
import Kafka
import LocalServices
import Logging
import Pipeline
import Redis
import TestSupport
import Testing
import Topology

@testable import WorkerCommon
@testable import Workers

/// The customer state as `iap-state` assembles it retries a failed change where it is (D68):
/// backends read its input, `iap.entitlements`, which carries each change as grant wrote it, once.
@Suite(.serialized, .timeLimit(.minutes(3))) struct RetriesInPlaceTests {
    @Test func theCustomerStateRetriesAChangeWithoutPublishingItAgain() async throws {
        let change = EntitlementEvent(
            eventId: "t-1|grant|1", action: .grant, userId: "u-1", orderId: nil, bundleId: "com.example.game",
            productId: "remove_ads", productType: .nonConsumable, quantity: 1, transactionId: "t-1",
            originalTransactionId: "t-1", environment: .production,
            purchaseDate: Timestamp(millisecondsSince1970: 1_780_000_000_000), expiresDate: nil, revocationDate: nil,
            matchedBy: .user, warnings: [], source: .storeKit2, status: .active, autoRenewStatus: nil)
        let fastRetries: (inout StageSpec) -> Void = { $0.retry.initialBackoff = .milliseconds(200) }
        try await withStage(.state, environment: [:], adjust: fastRetries) { stage in
            var logger = Logger(label: "test.redis")
            logger.logLevel = .critical
            let redis = RedisClient(configuration: try stage.redis.configuration(), logger: logger)
            // The customer's key holds a hash: reading it as the record fails (WRONGTYPE) until
            // the key is gone, a failure of Redis the stage can only retry.
            let key = Keyspace.standard.customer(bundleId: change.bundleId, userId: change.userId)
            _ = try await redis.execute(HSET(key, field: "broken", value: .string("yes")))
            let before = try await Self.wrongTypeErrors(redis)

            let entitlements = try stage.spec.input("entitlements")
            _ = try await stage.producer.send(
                KafkaRecord(topic: entitlements, key: Array(change.userId.utf8), value: try EventEncoder.encode(change))
            )
            _ = try await eventually("the stage failed the change twice", timeout: .seconds(30)) {
                try await Self.wrongTypeErrors(redis) >= before + 2 ? true : nil
            }
            _ = try await redis.execute(DEL(key))

            let customers = try stage.probe(try stage.spec.output("customers"))
            #expect(try await customers.waitForMessages(1, timeout: .seconds(30)).count == 1)
            let admin = try KafkaAdmin(bootstrapServers: stage.cluster.bootstrapServers, logger: logger)
            let readers = try stage.probe(entitlements)
            let carried = try await readers.waitUntilCaughtUp(on: entitlements, admin: admin)
            #expect(carried.count == 1, "iap.entitlements carried the change \(carried.count) times")
            await customers.close()
            await readers.close()
            await redis.shutdown()
        }
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
