import Basics
import Dispatch
import Synchronization

/// What a `KafkaConsumer` hands to the application, in order.
public enum KafkaConsumerEvent: Sendable {
    /// Records in partition order (per partition), at most `maxBatchSize`.
    case messages([KafkaMessage])
    /// Partitions newly assigned to this member.
    case assigned([TopicPartition])
    /// Partitions leaving this member. The application stops dispatching them, drains or
    /// abandons their in-flight work, stores final offsets, then calls `acknowledge()`; the
    /// consumer then commits and hands them back. `lost` means the group already gave them to
    /// someone else (session timed out): nothing can be committed for them any more.
    case revoked([TopicPartition], lost: Bool, RevocationAcknowledgement)
}

/// The application's "drained" signal for a revocation; waiting happens on the poll thread.
public final class RevocationAcknowledgement: Sendable {
    private let semaphore = DispatchSemaphore(value: 0)
    private let acknowledged = Atomic<Bool>(false)

    init() {}

    /// Tells the consumer the revoked partitions hold no more in-flight work. Later calls do
    /// nothing (the consumer's `close()` also acknowledges a revocation nobody read).
    public func acknowledge() {
        guard !acknowledged.exchange(true, ordering: .acquiringAndReleasing) else { return }
        semaphore.signal()
    }

    func wait(timeout: Duration) -> Bool {
        semaphore.wait(timeout: .now() + .milliseconds(Int(timeout.milliseconds(rounding: .towardZero)))) == .success
    }
}
