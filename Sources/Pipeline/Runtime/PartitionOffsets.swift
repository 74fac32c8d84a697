import DequeModule

/// Completion tracking for one partition whose records finish out of order, for one assignment
/// of it.
///
/// Kafka stores one position per partition, so with many records in flight the only safe
/// position is the lowest unfinished offset: storing anything higher would skip that record
/// after a crash. Offsets arrive in increasing order, so a deque of unfinished offsets plus a
/// set of finished-ahead-of-the-front ones gives O(1) amortised updates.
///
/// A record that outlived its partition's revocation (the drain timed out) finishes into
/// whatever tracks the partition then: nothing, or a new assignment that has read the same
/// offsets again. Only records started here count, so such a finish neither moves the new
/// assignment's position nor its count of running records.
struct PartitionOffsets {
    /// Accepted and not finished, in arrival (= offset) order.
    private var unfinished: Deque<Int64> = []
    /// Finished while a lower offset was still unfinished.
    private var finishedAhead: Set<Int64> = []
    /// Offsets of this partition's records started under this assignment and not finished
    /// (inside a handler, not waiting in a lane).
    private var started: Set<Int64> = []
    /// The position to store: the next record to read after a restart.
    private(set) var committable: Int64?
    /// Set when this assignment is being revoked: its running records are drained, and one that
    /// would otherwise wait here to be tried again gives itself back instead (D68).
    var isRevoking = false

    var unfinishedCount: Int { unfinished.count }
    var running: Int { started.count }

    mutating func accept(_ offset: Int64) {
        unfinished.append(offset)
    }

    mutating func didStart(_ offset: Int64) { started.insert(offset) }

    /// Forgets that `offset` runs without finishing it: the position never passes it, so the
    /// partition's next owner reads it again (a record given back, D68).
    mutating func giveBack(_ offset: Int64) { started.remove(offset) }

    /// Marks `offset` finished; returns the new position to store when it advanced. A record
    /// started under an earlier assignment changes nothing.
    mutating func finish(_ offset: Int64) -> Int64? {
        guard started.remove(offset) != nil else { return nil }
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
