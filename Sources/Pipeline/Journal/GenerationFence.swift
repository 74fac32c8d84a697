public import Redis
import Synchronization

/// Lets a stage's state stores refuse to decide against a Redis that lost its data, in the
/// seconds before the ``GenerationWatch`` looks at the marker again.
///
/// A missing ownership binding or grant state reads as a first sighting: against an emptied
/// Redis, match would bind a replayed receipt to whoever sent it and grant would grant a
/// purchase again. So a store that reads such state sends `GET` of the stage's marker in the
/// same pipelined round trip, after its own read, and hands the reply to ``check(_:)`` when its
/// value was missing. A marker that is missing or not the one the worker started under means
/// the read may have met the loss: ``check(_:)`` throws ``StateLost`` (the runtime leaves the
/// record unfinished) and wakes the watch, which stops the worker so that its restart rebuilds.
/// The marker is read after the value: a loss before the value's read is also before the
/// marker's, so it cannot go unseen; a loss between the two only stops the worker early.
public final class GenerationFence: Sendable {
    public let generation: StateGeneration
    private let state = Mutex<Armed>(Armed())
    private let alarms: AsyncStream<StateLost>
    private let alarm: AsyncStream<StateLost>.Continuation

    private struct Armed {
        var expected: String?
        var lost: StateLost?
    }

    public init(generation: StateGeneration) {
        self.generation = generation
        (alarms, alarm) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1))
    }

    /// `<prefix>generation:{<stage>}`: what the stores' pipelines `GET`.
    public var key: String { generation.key }

    /// `GET` of the marker, for a store to append last to the pipeline of its read.
    public var read: GET { GET(key) }

    /// The marker the worker recovered under; until then every check fails.
    public func arm(_ expected: String) {
        state.withLock { $0.expected = expected }
    }

    /// Throws ``StateLost`` unless `marker` (the reply to ``read``) is the armed marker.
    public func check(_ marker: [UInt8]?) throws(StateLost) {
        try check(found: marker.map { String(decoding: $0, as: UTF8.self) })
    }

    /// Throws ``StateLost`` unless `found` is the armed marker; the first loss wakes the watch.
    func check(found: String?) throws(StateLost) {
        let lost: StateLost? = state.withLock { state in
            guard let expected = state.expected else {
                return StateLost(key: key, expected: "none (the stage has not recovered yet)", found: found)
            }
            guard found != expected else { return nil }
            let lost = StateLost(key: key, expected: expected, found: found)
            if state.lost == nil {
                state.lost = lost
                alarm.yield(lost)
            }
            return lost
        }
        if let lost { throw lost }
    }

    /// The first loss a check found: waits until there is one, and returns nil only when the
    /// waiting task is cancelled (the watch stopping with its worker).
    func firstLoss() async -> StateLost? {
        for await lost in alarms { return lost }
        return nil
    }
}
