import Kafka
import Synchronization

/// Writes one record and waits for Kafka's acknowledgement, but never longer than `timeout`.
///
/// librdkafka's `message.timeout.ms` is set to the same timeout, so it normally reports the
/// failure itself; the deadline here is the backstop the HTTP contract rests on (a broker that
/// accepts the connection and never answers holds in-flight requests up to
/// `request.timeout.ms`). A record that times out here may still be delivered later; Apple then
/// retries the notification, and intake deduplicates on its notificationUUID.
struct NotificationWriter: Sendable {
    let producer: KafkaProducer
    let timeout: Duration

    enum Failure: Error, CustomStringConvertible {
        case kafka(any Error)
        case timedOut(Duration)

        var description: String {
            switch self {
            case .kafka(let error): "Kafka did not acknowledge the write: \(error)"
            case .timedOut(let timeout): "Kafka did not acknowledge the write within \(timeout)"
            }
        }

        /// The producer instance is unusable (librdkafka `__FATAL`, e.g. a fenced idempotent
        /// producer); only a new process recovers.
        var isFatal: Bool {
            guard case .kafka(let error) = self, let kafkaError = error as? KafkaError else { return false }
            return kafkaError.isFatal || kafkaError.librdkafkaCode == Self.librdkafkaFatal
        }

        /// `RD_KAFKA_RESP_ERR__FATAL`.
        private static let librdkafkaFatal: Int32 = -150
    }

    func write(_ record: KafkaRecord) async -> Result<KafkaDeliveryReport, Failure> {
        let producer = producer
        let timeout = timeout
        return await withCheckedContinuation {
            (continuation: CheckedContinuation<Result<KafkaDeliveryReport, Failure>, Never>) in
            let once = ResumeOnce(continuation)
            // The send cannot be cancelled once enqueued (librdkafka owns the record until it
            // reports), so it runs unstructured and whichever of report or deadline comes first answers.
            let deadline = Task {
                try? await Task.sleep(for: timeout + .milliseconds(500))
                once.resume(.failure(.timedOut(timeout)))
            }
            Task {
                do {
                    once.resume(.success(try await producer.send(record)))
                } catch {
                    once.resume(.failure(.kafka(error)))
                }
                deadline.cancel()
            }
        }
    }
}

/// Resumes a continuation with the first result offered and ignores the rest.
private final class ResumeOnce<Value: Sendable>: Sendable {
    private let continuation: Mutex<CheckedContinuation<Value, Never>?>

    init(_ continuation: CheckedContinuation<Value, Never>) {
        self.continuation = Mutex(continuation)
    }

    func resume(_ value: Value) {
        let continuation = self.continuation.withLock { continuation in
            defer { continuation = nil }
            return continuation
        }
        continuation?.resume(returning: value)
    }
}
