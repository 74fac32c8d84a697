import Hosting
import Kafka
import ServiceLifecycle
import Synchronization

/// Keeps `/readyz` honest for the gateway: ready while the brokers answer metadata and know the
/// notifications topic (so a write can be acknowledged), not ready otherwise.
///
/// A fatal producer error (reported through ``markFatal(_:)``) cannot heal inside the process:
/// the probe then fails its service, which ends the service group and the process, and the
/// orchestrator starts a fresh one.
final class KafkaTopicProbe: Service, Sendable {
    private let admin: KafkaAdmin
    private let topic: String
    private let readiness: ReadinessFlag
    private let interval: Duration
    private let fatal = Mutex<String?>(nil)

    init(admin: KafkaAdmin, topic: String, readiness: ReadinessFlag, interval: Duration = .seconds(5)) {
        self.admin = admin
        self.topic = topic
        self.readiness = readiness
        self.interval = interval
    }

    func markFatal(_ reason: String) {
        fatal.withLock { $0 = $0 ?? reason }
        readiness.set(.notReady(reason: "Kafka producer failed for good: \(reason)"))
    }

    func run() async throws {
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            if let reason = fatal.withLock({ $0 }) {
                throw ProducerFailed(reason: reason)
            }
            let state = await check()
            // A fatal error may have been marked while the check ran; it wins.
            if fatal.withLock({ $0 }) == nil { readiness.set(state) }
            // Wakes at once on graceful shutdown, so the ops server behind it is not held up.
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: self.interval) }
        }
        readiness.set(.notReady(reason: "shutting down"))
    }

    private func check() async -> Readiness {
        do {
            let counts = try await admin.partitionCounts(of: [topic], timeout: .seconds(3))
            return counts[topic] == nil ? .notReady(reason: "Kafka topic \(topic) not found") : .ready
        } catch {
            return .notReady(reason: "Kafka unreachable: \(error)")
        }
    }

    struct ProducerFailed: Error, CustomStringConvertible {
        let reason: String
        var description: String {
            "the Kafka producer failed for good (\(reason)); exiting so a fresh process takes over"
        }
    }
}
