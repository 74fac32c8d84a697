public import Kafka

/// Where reconcile's events go: Kafka in production; tests put a failing one in to stop a run
/// midway.
public protocol ReconcilePublisher: Sendable {
    /// Returns once every record is acknowledged.
    func publish(_ records: [KafkaRecord]) async throws
}

extension KafkaProducer: ReconcilePublisher {
    public func publish(_ records: [KafkaRecord]) async throws {
        _ = try await send(records)
    }
}
