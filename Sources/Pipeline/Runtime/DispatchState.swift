import DequeModule
import Kafka

/// What the runtime knows about accepted records: per-key lanes, per-partition offsets and
/// the in-flight count that drives pausing. Pure bookkeeping, guarded by the runtime's lock.
struct DispatchState {
    private var partitions: [TopicPartition: PartitionOffsets] = [:]
    /// A present key is busy; its deque holds records waiting behind the running one.
    private var lanes: [LaneKey: Deque<KafkaMessage>] = [:]
    /// Accepted, not finished and not dropped.
    private(set) var inFlight = 0
    /// Once set, finishing a record starts no further record (graceful shutdown).
    var isDraining = false
    /// Whether the runtime paused its partitions because `inFlight` reached the bound.
    var isPaused = false

    /// Takes a record; returns it when it may start now, nil when it waits behind its key.
    mutating func accept(_ message: KafkaMessage) -> KafkaMessage? {
        partitions[message.topicPartition, default: PartitionOffsets()].accept(message.offset)
        inFlight += 1
        let lane = LaneKey(message)
        if lanes[lane] != nil {
            lanes[lane]!.append(message)
            return nil
        }
        lanes[lane] = []
        partitions[message.topicPartition]!.didStart()
        return message
    }

    /// Marks a record done; returns the offset to store (if it advanced) and the next record of
    /// the same key to run (unless draining).
    mutating func finish(_ message: KafkaMessage) -> (store: TopicPartitionOffset?, next: KafkaMessage?) {
        inFlight -= 1
        let advanced = partitions[message.topicPartition]?.finish(message.offset)
        let store = advanced.map { TopicPartitionOffset(message.topicPartition, offset: $0) }
        let lane = LaneKey(message)
        guard var waiting = lanes[lane], !waiting.isEmpty, !isDraining else {
            if isDraining, let waiting = lanes[lane] { inFlight -= waiting.count }
            lanes[lane] = nil
            return (store, nil)
        }
        let next = waiting.removeFirst()
        lanes[lane] = waiting
        partitions[next.topicPartition]!.didStart()
        return (store, next)
    }

    /// Starts tracking newly assigned partitions from a clean slate (a re-assigned partition
    /// restarts from its committed offset, so older bookkeeping no longer applies).
    mutating func assign(_ assigned: [TopicPartition]) {
        for partition in assigned { partitions[partition] = PartitionOffsets() }
    }

    /// Drops waiting records of revoked partitions (the next owner reads them again) and
    /// returns how many of their records are still running.
    mutating func revoke(_ revoked: Set<TopicPartition>) -> Int {
        for (lane, waiting) in lanes where waiting.contains(where: { revoked.contains($0.topicPartition) }) {
            let kept = waiting.filter { !revoked.contains($0.topicPartition) }
            inFlight -= waiting.count - kept.count
            lanes[lane] = kept
        }
        return running(in: revoked)
    }

    func running(in partitionSet: Set<TopicPartition>) -> Int {
        partitionSet.reduce(0) { $0 + (partitions[$1]?.running ?? 0) }
    }

    var runningTotal: Int { partitions.values.reduce(0) { $0 + $1.running } }

    /// Forgets revoked partitions once drained, returning their final positions to store.
    mutating func remove(_ revoked: Set<TopicPartition>) -> [TopicPartitionOffset] {
        var finalOffsets: [TopicPartitionOffset] = []
        for partition in revoked {
            if let offset = partitions.removeValue(forKey: partition)?.committable {
                finalOffsets.append(TopicPartitionOffset(partition, offset: offset))
            }
        }
        return finalOffsets
    }

    var committablePositions: [TopicPartitionOffset] {
        partitions.compactMap { partition, offsets in offsets.committable.map { TopicPartitionOffset(partition, offset: $0) } }
    }
}
