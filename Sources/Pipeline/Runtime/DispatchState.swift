import DequeModule
import Kafka

/// What the runtime knows about accepted records: per-key lanes, a ready queue, per-partition
/// offsets and the counts that drive concurrency and pausing. Pure bookkeeping, guarded by the
/// runtime's lock.
///
/// Two bounds: at most `maxRunning` records run at once (the stage's concurrency), and records
/// accepted but not finished — running, waiting behind their key, or ready for a free slot — are
/// what the runtime compares with its buffer bound to pause partitions. Keeping a buffer of
/// fetched records instead of pausing at the concurrency bound matters: a paused partition's
/// prefetched records are dropped by librdkafka and fetched again on resume.
struct DispatchState {
    let maxRunning: Int
    private var partitions: [TopicPartition: PartitionOffsets] = [:]
    /// A present key is reserved (running or ready); its deque holds records waiting behind it.
    private var lanes: [LaneKey: Deque<KafkaMessage>] = [:]
    /// Records whose key is free, waiting for a running slot, in arrival order.
    private var ready: Deque<KafkaMessage> = []
    /// Accepted, not finished and not dropped.
    private(set) var inFlight = 0
    private(set) var runningTotal = 0
    /// Once set, finishing a record starts no further record (graceful shutdown).
    var isDraining = false
    /// Whether the runtime paused its partitions because the buffer bound was reached.
    var isPaused = false

    init(maxRunning: Int) {
        self.maxRunning = maxRunning
    }

    /// Takes a record; returns it when it may start now, nil when it waits (behind its key or
    /// for a running slot).
    mutating func accept(_ message: KafkaMessage) -> KafkaMessage? {
        partitions[message.topicPartition, default: PartitionOffsets()].accept(message.offset)
        inFlight += 1
        let lane = LaneKey(message)
        if lanes[lane] != nil {
            lanes[lane]!.append(message)
            return nil
        }
        lanes[lane] = []
        guard runningTotal < maxRunning else {
            ready.append(message)
            return nil
        }
        start(message)
        return message
    }

    /// Marks a record done; returns the offset to store (if it advanced) and the next record to
    /// run in the finished record's slot: the next of the same key, else the oldest ready one
    /// (none while draining). A record given back (`done` false) frees its slot and its key but
    /// keeps its offset unfinished, so the position never passes it.
    mutating func finish(_ message: KafkaMessage, done: Bool = true) -> (
        store: TopicPartitionOffset?, next: KafkaMessage?
    ) {
        inFlight -= 1
        runningTotal -= 1
        var advanced: Int64?
        if done {
            advanced = partitions[message.topicPartition]?.finish(message.offset)
        } else {
            partitions[message.topicPartition]?.giveBack(message.offset)
        }
        let store = advanced.map { TopicPartitionOffset(message.topicPartition, offset: $0) }
        let lane = LaneKey(message)
        if isDraining {
            // Waiting records are left for redelivery; only the bookkeeping of counts remains.
            inFlight -= lanes[lane]?.count ?? 0
            lanes[lane] = nil
            return (store, nil)
        }
        if var waiting = lanes[lane], !waiting.isEmpty {
            let next = waiting.removeFirst()
            lanes[lane] = waiting
            start(next)
            return (store, next)
        }
        lanes[lane] = nil
        guard let next = ready.popFirst() else { return (store, nil) }
        start(next)
        return (store, next)
    }

    /// Takes a poll's records of a batched input (``BatchedInputHandler``), all running at once
    /// outside the lanes and the running slots: they count towards the buffer bound, and keep
    /// their partitions' offsets (and a revocation's drain) waiting until ``finishBatch(_:)``.
    mutating func acceptBatch(_ messages: [KafkaMessage]) {
        for message in messages {
            partitions[message.topicPartition, default: PartitionOffsets()].accept(message.offset)
            partitions[message.topicPartition]!.didStart(message.offset)
        }
        inFlight += messages.count
    }

    /// Marks a batch done; returns the offsets to store, one per partition that advanced.
    mutating func finishBatch(_ messages: [KafkaMessage]) -> [TopicPartitionOffset] {
        inFlight -= messages.count
        var advanced: [TopicPartition: Int64] = [:]
        for message in messages {
            if let offset = partitions[message.topicPartition]?.finish(message.offset) {
                advanced[message.topicPartition] = offset
            }
        }
        return advanced.map { TopicPartitionOffset($0.key, offset: $0.value) }
    }

    private mutating func start(_ message: KafkaMessage) {
        runningTotal += 1
        partitions[message.topicPartition]!.didStart(message.offset)
    }

    /// Starts tracking newly assigned partitions from a clean slate (a re-assigned partition
    /// restarts from its committed offset, so older bookkeeping no longer applies).
    mutating func assign(_ assigned: [TopicPartition]) {
        for partition in assigned { partitions[partition] = PartitionOffsets() }
    }

    /// Whether a running record of `partition` may go on waiting in this worker: false once the
    /// worker drains for shutdown or the partition is being revoked.
    func keeps(_ partition: TopicPartition) -> Bool {
        !isDraining && partitions[partition].map { !$0.isRevoking } ?? false
    }

    /// Drops waiting and ready records of revoked partitions (the next owner reads them again)
    /// and returns how many of their records are still running.
    mutating func revoke(_ revoked: Set<TopicPartition>) -> Int {
        for partition in revoked { partitions[partition]?.isRevoking = true }
        for (lane, waiting) in lanes where waiting.contains(where: { revoked.contains($0.topicPartition) }) {
            let kept = waiting.filter { !revoked.contains($0.topicPartition) }
            inFlight -= waiting.count - kept.count
            lanes[lane] = kept
        }
        var keptReady: Deque<KafkaMessage> = []
        for message in ready {
            guard revoked.contains(message.topicPartition) else {
                keptReady.append(message)
                continue
            }
            inFlight -= 1
            // Its lane was reserved for it: hand the reservation to the next record of the key.
            let lane = LaneKey(message)
            if var waiting = lanes[lane], !waiting.isEmpty {
                keptReady.append(waiting.removeFirst())
                lanes[lane] = waiting
            } else {
                lanes[lane] = nil
            }
        }
        ready = keptReady
        return running(in: revoked)
    }

    func running(in partitionSet: Set<TopicPartition>) -> Int {
        partitionSet.reduce(0) { $0 + (partitions[$1]?.running ?? 0) }
    }

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
        partitions.compactMap { partition, offsets in
            offsets.committable.map { TopicPartitionOffset(partition, offset: $0) }
        }
    }
}
