public import Pipeline
public import Purchases
public import Redis

/// ``ConsumptionLedger`` in Redis, shared by every grant replica.
///
/// Key (``Keyspace/consumptionAnswer(_:)``): `iap:consumption:{<transactionId>}`, holding the
/// notificationUUID that was answered, expiring with Apple's answer window: after it a new
/// request for the transaction is a new refund request and is answered again.
public struct RedisConsumptionLedger: ConsumptionLedger {
    private let client: RedisClient
    public let keys: Keyspace

    public init(client: RedisClient, keys: Keyspace = .standard) {
        self.client = client
        self.keys = keys
    }

    public func answer(transactionId: String) async throws -> String? {
        let key = keys.consumptionAnswer(transactionId)
        return try await client.execute(GET(key)).map { String(decoding: $0, as: UTF8.self) }
    }

    public func recordAnswer(transactionId: String, notificationUUID: String, window: Duration) async throws {
        StateStorage.checkTTL(window, "consumption answer window")
        let key = keys.consumptionAnswer(transactionId)
        _ = try await client.execute(StateStorage.set(key, .string(notificationUUID), ttl: window))
    }
}
