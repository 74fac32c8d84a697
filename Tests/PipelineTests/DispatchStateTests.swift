import Kafka
import Testing

@testable import Pipeline

private func record(_ offset: Int64, key: String?, partition: Int32 = 0) -> KafkaMessage {
    KafkaMessage(topic: "t", partition: partition, offset: offset, key: key.map { Array($0.utf8) }, value: [])
}

@Suite(.timeLimit(.minutes(2))) struct PartitionOffsetsTests {
    @Test func storedOffsetNeverPassesAnUnfinishedRecord() {
        var offsets = PartitionOffsets()
        for offset in Int64(10)...14 {
            offsets.accept(offset)
            offsets.didStart(offset)
        }
        #expect(offsets.finish(12) == nil)
        #expect(offsets.finish(14) == nil)
        #expect(offsets.committable == nil)
        #expect(offsets.finish(10) == 11)
        #expect(offsets.finish(11) == 13, "12 finished earlier, so the position jumps past it")
        #expect(offsets.finish(13) == 15)
        #expect(offsets.unfinishedCount == 0)
    }

    @Test(arguments: [[3, 1, 4, 0, 2], [4, 3, 2, 1, 0], [0, 1, 2, 3, 4], [2, 0, 4, 1, 3]])
    func everyCompletionOrderEndsAtLastPlusOne(order: [Int64]) {
        var offsets = PartitionOffsets()
        for offset in Int64(0)...4 {
            offsets.accept(offset)
            offsets.didStart(offset)
        }
        var finished: Set<Int64> = []
        for offset in order {
            let stored = offsets.finish(offset)
            finished.insert(offset)
            let lowestUnfinished = (0...4).first { !finished.contains($0) } ?? 5
            if let stored { #expect(stored == lowestUnfinished) }
            #expect((offsets.committable ?? 0) <= lowestUnfinished)
        }
        #expect(offsets.committable == 5)
    }

    /// A record started under an earlier assignment of the partition (its drain timed out, the
    /// partition came back) finishing here: it must not pass for the new assignment's copy of
    /// the same offset, which has not run yet.
    @Test func aFinishFromAnEarlierAssignmentChangesNothing() {
        var offsets = PartitionOffsets()
        offsets.accept(5)
        offsets.accept(6)
        offsets.didStart(6)
        #expect(offsets.finish(5) == nil, "this assignment's offset 5 has not run")
        #expect(offsets.committable == nil)
        #expect(offsets.running == 1)
        offsets.didStart(5)
        #expect(offsets.finish(5) == 6)
        #expect(offsets.finish(6) == 7)
        #expect(offsets.running == 0)
    }
}

@Suite(.timeLimit(.minutes(2))) struct DispatchStateTests {
    @Test func sameKeyWaitsAndRunsInOrder() {
        var state = DispatchState(maxRunning: 8)
        #expect(state.accept(record(0, key: "a"))?.offset == 0)
        #expect(state.accept(record(1, key: "a")) == nil)
        #expect(state.accept(record(2, key: "b"))?.offset == 2)
        #expect(state.accept(record(3, key: "a")) == nil)
        #expect(state.inFlight == 4)
        #expect(state.runningTotal == 2)

        let first = state.finish(record(0, key: "a"))
        #expect(first.store?.offset == 1)
        #expect(first.next?.offset == 1)
        let second = state.finish(record(1, key: "a"))
        #expect(second.store?.offset == 2)
        #expect(second.next?.offset == 3)
        let third = state.finish(record(3, key: "a"))
        #expect(third.store == nil, "offset 2 (key b) is still running")
        #expect(third.next == nil)
        #expect(state.finish(record(2, key: "b")).store?.offset == 4)
        #expect(state.inFlight == 0)
    }

    @Test func recordsWithoutKeysRunConcurrently() {
        var state = DispatchState(maxRunning: 8)
        #expect(state.accept(record(0, key: nil)) != nil)
        #expect(state.accept(record(1, key: nil)) != nil)
        #expect(state.accept(record(2, key: "")) != nil)
        #expect(state.runningTotal == 3)
    }

    @Test func revokeDropsWaitingRecordsOfThatPartitionOnly() {
        var state = DispatchState(maxRunning: 8)
        let p0 = TopicPartition("t", 0)
        _ = state.accept(record(0, key: "k", partition: 0))
        _ = state.accept(record(1, key: "k", partition: 0))
        _ = state.accept(record(0, key: "k", partition: 1))
        #expect(state.inFlight == 3)
        #expect(state.revoke([p0]) == 1, "offset 0 of partition 0 is still running")
        #expect(state.inFlight == 2)
        let done = state.finish(record(0, key: "k", partition: 0))
        #expect(done.next?.topicPartition == TopicPartition("t", 1), "the other partition's record still runs")
        #expect(state.running(in: [p0]) == 0)
        #expect(
            state.remove([p0]) == [TopicPartitionOffset(p0, offset: 1)], "final position stops below the dropped record"
        )
    }

    /// The drain timed out with offset 0 still running, the partition was removed and assigned
    /// again, and its new assignment read offset 0 again: the old run finishing neither stores a
    /// position for the new assignment nor miscounts what runs there.
    @Test func aRecordThatOutlivedItsAssignmentLeavesTheNextOneAlone() {
        var state = DispatchState(maxRunning: 8)
        let p0 = TopicPartition("t", 0)
        #expect(state.accept(record(0, key: "a")) != nil)
        #expect(state.revoke([p0]) == 1)
        #expect(state.remove([p0]).isEmpty, "nothing finished: no position to store")
        state.assign([p0])
        #expect(state.accept(record(0, key: "a")) == nil, "waits behind the old run of its key")
        #expect(state.accept(record(1, key: "b"))?.offset == 1)
        #expect(state.running(in: [p0]) == 1)

        let old = state.finish(record(0, key: "a"))
        #expect(old.store == nil, "the new assignment's offset 0 has not run")
        #expect(old.next?.offset == 0)
        #expect(state.running(in: [p0]) == 2)
        #expect(state.finish(record(1, key: "b")).store == nil)
        #expect(state.finish(record(0, key: "a")).store?.offset == 2)
        #expect(state.running(in: [p0]) == 0)
        #expect(state.inFlight == 0)
    }

    @Test func runningIsBoundedAndReadyRecordsTakeFreedSlotsInOrder() {
        var state = DispatchState(maxRunning: 2)
        #expect(state.accept(record(0, key: "a")) != nil)
        #expect(state.accept(record(1, key: "b")) != nil)
        #expect(state.accept(record(2, key: "c")) == nil, "both slots are taken")
        #expect(state.accept(record(3, key: "a")) == nil, "behind its key")
        #expect(state.accept(record(4, key: "d")) == nil)
        #expect(state.runningTotal == 2)
        #expect(state.inFlight == 5)
        #expect(state.finish(record(1, key: "b")).next?.offset == 2, "the oldest ready record takes the slot")
        #expect(state.finish(record(0, key: "a")).next?.offset == 3, "the same key goes first")
        #expect(state.finish(record(2, key: "c")).next?.offset == 4)
        #expect(state.runningTotal == 2)
        _ = state.finish(record(3, key: "a"))
        let last = state.finish(record(4, key: "d"))
        #expect(last.next == nil)
        #expect(last.store?.offset == 5)
        #expect(state.runningTotal == 0)
        #expect(state.inFlight == 0)
    }

    @Test func revokeDropsReadyRecordsAndPassesTheirKeyOn() {
        var state = DispatchState(maxRunning: 1)
        let p1 = TopicPartition("t", 1)
        _ = state.accept(record(0, key: "x", partition: 0))
        _ = state.accept(record(0, key: "k", partition: 1))  // ready: no slot
        _ = state.accept(record(5, key: "k", partition: 0))  // behind k
        #expect(state.revoke([p1]) == 0)
        #expect(state.inFlight == 2)
        #expect(
            state.finish(record(0, key: "x", partition: 0)).next?.offset == 5,
            "k's reservation passed to partition 0's record")
    }

    @Test func drainingStopsStartingWaitingRecords() {
        var state = DispatchState(maxRunning: 8)
        _ = state.accept(record(0, key: "a"))
        _ = state.accept(record(1, key: "a"))
        state.isDraining = true
        let result = state.finish(record(0, key: "a"))
        #expect(result.next == nil)
        #expect(result.store?.offset == 1)
        #expect(state.inFlight == 0)
        #expect(state.committablePositions == [TopicPartitionOffset(TopicPartition("t", 0), offset: 1)])
    }

    /// A record waiting to be tried again in place (D68) stays only while the worker keeps its
    /// partition; given back, it frees its slot and its key, and the position never passes it.
    @Test func aRecordGivenBackFreesItsKeyButNeverItsOffset() {
        var state = DispatchState(maxRunning: 8)
        let p0 = TopicPartition("t", 0)
        let p1 = TopicPartition("t", 1)
        state.assign([p0, p1])
        #expect(state.accept(record(0, key: "a")) != nil)
        #expect(state.accept(record(1, key: "b")) != nil)
        #expect(state.accept(record(0, key: "a", partition: 1)) == nil, "behind its key")
        #expect(state.keeps(p0) && state.keeps(p1))
        #expect(state.finish(record(1, key: "b")).store == nil, "offset 0 is unfinished")

        #expect(state.revoke([p0]) == 1)
        #expect(!state.keeps(p0), "revoking: the record must not be tried again here")
        #expect(state.keeps(p1))
        let given = state.finish(record(0, key: "a"), done: false)
        #expect(given.store == nil)
        #expect(given.next?.topicPartition == p1, "its key passes on")
        #expect(state.running(in: [p0]) == 0, "the revocation's drain need not wait for it")
        #expect(state.remove([p0]).isEmpty, "no position past the record given back")
        state.assign([p0])
        #expect(state.keeps(p0))
        state.isDraining = true
        #expect(!state.keeps(p1))
    }

    /// A batch holds its partitions' offsets like running records, outside the running slots and
    /// the lanes: a single record behind it in another partition runs at once, and the batch's
    /// partition stores nothing until the batch is done.
    @Test func aBatchHoldsItsPartitionsOffsetsUntilItIsDoneAndTakesNoSlot() {
        var state = DispatchState(maxRunning: 1)
        let batch = [
            record(0, key: "a", partition: 0), record(1, key: "a", partition: 0), record(0, key: "b", partition: 1),
        ]
        state.acceptBatch(batch)
        #expect(state.inFlight == 3)
        #expect(state.runningTotal == 0)
        #expect(state.running(in: [TopicPartition("t", 0), TopicPartition("t", 1)]) == 3, "a revocation waits for it")
        #expect(state.accept(record(2, key: "a", partition: 0))?.offset == 2, "no lane, no slot taken")
        #expect(state.finish(record(2, key: "a", partition: 0)).store == nil, "offsets 0 and 1 are unfinished")
        let stored = state.finishBatch(batch).sorted { $0.topicPartition < $1.topicPartition }
        #expect(stored.map(\.offset) == [3, 1], "one position per partition: past the single record too")
        #expect(state.inFlight == 0)
        #expect(state.committablePositions.count == 2)
    }
}
