public import Contracts
public import Kafka
import Purchases

/// The contract topics backends publish to, and their records under the contract keys:
/// purchases by userId, orders by appAccountToken (orderId when there is none), notifications
/// by notificationUUID when decodable (as `iap-gateway` writes them).
public struct ContractTopics: Sendable {
    public var purchases = "iap.purchases"
    public var orders = "iap.orders"
    public var notifications = "iap.notifications"

    public init() {}

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
