import AppStoreModels
public import Contracts
import Foundation
import Kafka
import Pipeline
import Purchases
public import SupportTools
import Synchronization

/// What a scenario may do: buy on the simulator, publish as a backend, wait for the pipeline.
public struct DemoContext: Sendable {
    public let simulator: SimulatorClient
    public let bundleId: String
    /// The stack's second app (D57), nil when it serves one.
    public let secondApp: String?
    /// Apple's Server API for the first app as a backend or an operator calls it (`iap support`'s
    /// actions): through the workers' shared gate, with the stack's key.
    public let apple: AppleServerActions
    /// Makes ids unique per run, so runs against one stack never collide.
    public let runId: String
    let topics: ContractTopics
    let producer: KafkaProducer
    let observer: TopicObserver
    let resultTopics: ResultTopics
    /// Without a gateway the simulator cannot post notifications; the scenario publishes them.
    let publishesNotifications: Bool
    /// The eventIds of the purchase events the scenarios published, whose statuses the demo
    /// reads at the end (D51).
    let published = PublishedEvents()

    public func user(_ name: String) -> String { "\(name)-\(runId)" }

    /// - Parameter app: the event's app; the stack's first app by default.
    public func purchaseEvent(
        _ payload: PurchasePayload, user: String, orderId: String? = nil, appAccountToken: String? = nil,
        eventId: String? = nil, app: String? = nil
    ) -> PurchaseEvent {
        PurchaseEvent(
            eventId: eventId ?? "evt-\(UUID().uuidString.prefix(13).lowercased())", bundleId: app ?? bundleId,
            userId: user,
            payload: payload,
            orderId: orderId, appAccountToken: appAccountToken,
            source: payload.kind == .signedTransaction || payload.kind == .appTransaction ? .storeKit2 : .storeKit1
        )
    }

    public func publish(_ purchase: PurchaseEvent) async throws {
        _ = try await producer.send([try topics.record(purchase)])
        published.note(purchase.eventId, of: purchase.bundleId)
    }

    public func publish(_ order: OrderEvent) async throws {
        _ = try await producer.send([try topics.record(order)])
    }

    /// Publishes raw bytes to the purchases topic (malformed input).
    public func publishRaw(_ bytes: [UInt8], user: String) async throws {
        _ = try await producer.send([KafkaRecord(topic: topics.purchases, key: Array(user.utf8), value: bytes)])
    }

    /// Delivers a notification the simulator signed: through the gateway when it runs (the
    /// simulator posts it there itself), else straight to the notifications topic.
    public func notify(_ signedPayload: String) async throws {
        guard publishesNotifications else { return }
        let event = NotificationEvent(receivedAt: Timestamp(Date()), signedPayload: signedPayload)
        _ = try await producer.send([try topics.record(event, notificationUUID: nil)])
    }

    /// Waits until the pipeline shows `expectation` (e.g. a grant before refunding it).
    public func waitFor(_ expectation: Expectation, timeout: Duration = .seconds(90)) async throws {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            switch expectation.check(Outcomes(records: observer.records, topics: resultTopics), settled: false) {
            case .met: return
            case .failed(let why): throw LocalStackError("while waiting for \(expectation): \(why)")
            case .pending: try await Task.sleep(for: .milliseconds(100))
            }
        }
        throw LocalStackError("timed out waiting for \(expectation)")
    }
}

/// The eventIds a run published, with their apps, in order.
final class PublishedEvents: Sendable {
    private let ids = Mutex<[(bundleId: String, eventId: String)]>([])

    func note(_ eventId: String, of bundleId: String) { ids.withLock { $0.append((bundleId, eventId)) } }
    var all: [(bundleId: String, eventId: String)] { ids.withLock { $0 } }
}

/// One realistic situation the pipeline must handle, with the end states it must reach.
public struct DemoScenario: Sendable {
    public var name: String
    /// Publishes what a backend (and Apple) would and returns the expected end states.
    public var run: @Sendable (DemoContext) async throws -> [Expectation]

    public init(_ name: String, run: @escaping @Sendable (DemoContext) async throws -> [Expectation]) {
        self.name = name
        self.run = run
    }
}
