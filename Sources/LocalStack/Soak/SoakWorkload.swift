import Contracts
import Foundation
import Kafka
import Pipeline
import Purchases

/// The purchases a soak publishes, made on the simulator first, and the hostile input mixed in.
struct SoakWorkload: Sendable {
    enum Kind: String, Sendable, CaseIterable {
        /// StoreKit 2 signed transaction: verified locally.
        case signed
        /// A bare transaction id: one Apple Server API call.
        case bareId
        /// A StoreKit 1 transaction receipt.
        case receipt
        /// A signed transaction whose appAccountToken names an order published after it; the
        /// publisher's userId hint names someone else, so a purchase bound by the hint shows.
        case ordered
    }

    struct Purchase: Sendable {
        var transactionId: String
        /// The publisher's eventId of `record`: a lost purchase's audit trail is found by it too.
        var eventId: String
        var kind: Kind
        /// The user the entitlement must name.
        var expectedUser: String
        var record: KafkaRecord
        /// Published a moment after `record` (kind `ordered`).
        var order: KafkaRecord?
        /// Published at once with the rest of the backlog, before the steady stream.
        var inBacklog = false
    }

    var purchases: [Purchase]
    /// Where the records go: the stack's pipeline file's topics.
    var topics: ContractTopics

    /// Makes `count` purchases, the kinds in a fixed rotation (4 signed, 3 bare ids, 1 receipt,
    /// 2 ordered of every 10), and `backlog` bare ids more.
    static func make(
        count: Int, backlog: Int = 0, simulator: SimulatorClient, bundleId: String, topics: ContractTopics
    ) async throws -> SoakWorkload {
        let rotation: [Kind] = [
            .signed, .bareId, .signed, .ordered, .bareId, .signed, .receipt, .bareId, .signed, .ordered,
        ]
        let made = try await withThrowingTaskGroup(of: [Purchase].self) { group in
            let lanes = 16
            for lane in 0..<lanes {
                group.addTask {
                    var made: [Purchase] = []
                    for index in stride(from: lane, to: count + backlog, by: lanes) {
                        let inBacklog = index >= count
                        let kind = inBacklog ? .bareId : rotation[index % rotation.count]
                        let token = kind == .ordered ? UUID().uuidString.lowercased() : nil
                        // The backlog's notifications are never delivered: each bare id costs verify
                        // an Apple call, as after an outage nobody sent them again.
                        let transaction = try await simulator.purchase(
                            productId: "soak_\(index % 7)", type: "Consumable", bundleId: bundleId,
                            appAccountToken: token, deliver: !inBacklog
                        )
                        let payload: PurchasePayload =
                            switch kind {
                            case .signed, .ordered: .signedTransaction(transaction.signedTransaction)
                            case .bareId: .transactionId(transaction.transactionId)
                            case .receipt: .transactionReceipt(transaction.transactionReceipt)
                            }
                        let user = "soak-user-\(index)"
                        let hint = kind == .ordered ? "soak-hint-\(index)" : user
                        let event = PurchaseEvent(
                            eventId: "soak-\(index)", bundleId: bundleId, userId: hint, payload: payload)
                        let order = try token.map { token in
                            try topics.record(
                                OrderEvent(
                                    orderId: "soak-order-\(index)", userId: user, productId: "soak_\(index % 7)",
                                    bundleId: bundleId, appAccountToken: token
                                ))
                        }
                        made.append(
                            Purchase(
                                transactionId: transaction.transactionId, eventId: event.eventId, kind: kind,
                                expectedUser: user,
                                record: try topics.record(event), order: order, inBacklog: inBacklog
                            ))
                    }
                    return made
                }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
        return SoakWorkload(purchases: made.sorted { $0.transactionId < $1.transactionId }, topics: topics)
    }

    /// A hostile record for the purchases topic, keyed `bad-<n>` so its rejection can be found.
    func badRecord(_ number: Int, using random: inout some RandomNumberGenerator) -> KafkaRecord {
        let value: [UInt8]
        switch Int.random(in: 0..<6, using: &random) {
        case 0:
            value = (0..<Int.random(in: 1...512, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
        case 1:
            let valid =
                #"{"schema":"iap.purchase.v1","eventId":"b","bundleId":"com.example.game","userId":"u","transactionId":"1"}"#
            value = Array(valid.utf8.prefix(Int.random(in: 1..<valid.utf8.count, using: &random)))
        case 2:
            value = Array(#"{"schema":"iap.purchase.v9","eventId":"b"}"#.utf8)
        case 3:
            value = Array(#"{"schema":"iap.purchase.v1","eventId":"b","bundleId":"com.example.game","userId":7}"#.utf8)
        case 4:
            let token = String(repeating: "x", count: 200_000)
            value = Array(
                #"{"schema":"iap.purchase.v1","eventId":"b","bundleId":"com.example.game","userId":"u","appAccountToken":"\#(token)"}"#
                    .utf8)
        default:
            value = [0xC3, 0x28, 0x7B, 0xFF, 0xFE]
        }
        return KafkaRecord(topic: topics.purchases, key: Array("bad-\(number)".utf8), value: value)
    }

    /// A body that is not a notification, for the gateway.
    static func badNotificationBody(using random: inout some RandomNumberGenerator) -> [UInt8] {
        switch Int.random(in: 0..<3, using: &random) {
        case 0: Array(#"{"signedPayload":"not.a.jws"}"#.utf8)
        case 1: (0..<Int.random(in: 1...256, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
        default: Array(#"{"signedPayload":12}"#.utf8)
        }
    }
}
