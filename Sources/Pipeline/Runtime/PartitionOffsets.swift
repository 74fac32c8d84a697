import DequeModule

/// Completion tracking for one partition whose records finish out of order.
///
/// Kafka stores one position per partition, so with many records in flight the only safe
/// position is the lowest unfinished offset: storing anything higher would skip that record
/// after a crash. Offsets arrive in increasing order, so a deque of unfinished offsets plus a
/// set of finished-ahead-of-the-front ones gives O(1) amortised updates.
struct PartitionOffsets {
    /// Accepted and not finished, in arrival (= offset) order.
    private var unfinished: Deque<Int64> = []
    /// Finished while a lower offset was still unfinished.
    private var finishedAhead: Set<Int64> = []
    /// Records of this partition currently inside a handler (not waiting in a lane).
    private(set) var running = 0
    /// The position to store: the next record to read after a restart.
    private(set) var committable: Int64?

    var unfinishedCount: Int { unfinished.count }

    mutating func accept(_ offset: Int64) {
        unfinished.append(offset)
    }

    mutating func didStart() { running += 1 }

    /// Marks `offset` finished; returns the new position to store when it advanced.
    mutating func finish(_ offset: Int64) -> Int64? {
        running -= 1
        finishedAhead.insert(offset)
        var advanced: Int64?
        while let first = unfinished.first, finishedAhead.remove(first) != nil {
            unfinished.removeFirst()
            advanced = first + 1
        }
        if let advanced { committable = advanced }
        return advanced
    }
}
