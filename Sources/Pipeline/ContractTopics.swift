public import Contracts
public import Kafka
public import Topology

/// The contract topics backends publish to, and their records under the contract keys:
/// purchases by userId, orders by appAccountToken (orderId when there is none), notifications
/// by notificationUUID when decodable (as `iap-gateway` writes them). Here, beside the runtime's
/// topics and `Keyspace`, rather than in `LocalStack`: `iap publish` writes them too, and the
/// operator CLI links none of the local stand-ins (decision D46).
public struct ContractTopics: Sendable {
    public var purchases: String
    public var orders: String
    public var notifications: String

    /// The topics `pipeline` names for them (``TopicRole``): what the stack and the commands use.
    public init(pipeline: PipelineFile) throws(PipelineFileError) {
        purchases = try pipeline.topic(.purchases)
        orders = try pipeline.topic(.orders)
        notifications = try pipeline.topic(.notifications)
    }

    /// The shipped pipeline file's names, for callers with no file at hand (tests).
    public init() {
        purchases = TopicRole.purchases.defaultName
        orders = TopicRole.orders.defaultName
        notifications = TopicRole.notifications.defaultName
    }

    public func record(_ purchase: PurchaseEvent) throws -> KafkaRecord {
        KafkaRecord(topic: purchases, key: Array(purchase.userId.utf8), value: try EventEncoder.encode(purchase))
    }

    public func record(_ order: OrderEvent) throws -> KafkaRecord {
        KafkaRecord(
            topic: orders, key: Array((order.appAccountToken ?? order.orderId).utf8),
            value: try EventEncoder.encode(order))
    }

    public func record(_ notification: NotificationEvent, notificationUUID: String?) throws -> KafkaRecord {
        KafkaRecord(
            topic: notifications, key: notificationUUID.map { Array($0.utf8) },
            value: try EventEncoder.encode(notification))
    }
}
