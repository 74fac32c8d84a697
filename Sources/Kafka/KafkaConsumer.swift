import Basics
internal import CRdKafka
public import Logging
import Synchronization

/// A group consumer for concurrent at-least-once processing.
///
/// A dedicated thread polls librdkafka and serves rebalances; records and rebalances reach the
/// application in order through `events`. Offsets are stored only by the application
/// (`store(_:)`), which lets it keep the committed position below every unfinished record.
public final class KafkaConsumer: Sendable {
    /// The single stream of records and rebalances. Iterate it from one task.
    public let events: AsyncStream<KafkaConsumerEvent>

    private let client: RDKafkaClient
    private let context: ConsumerContext
    private let poller: PollThread
    private let logger: Logger

    public init(configuration: KafkaConsumerConfiguration, logger: Logger) throws(KafkaError) {
        let (events, continuation) = AsyncStream<KafkaConsumerEvent>.makeStream()
        let context = ConsumerContext(
            logger: logger, events: continuation, drainTimeout: configuration.revocationDrainTimeout
        )
        let client = try RDKafkaClient.make(kind: .consumer, properties: configuration.properties, context: context) {
            conf in
            rd_kafka_conf_set_rebalance_cb(conf) { rk, err, partitions, opaque in
                guard let rk, let partitions, let opaque else { return }
                Unmanaged<ConsumerContext>.fromOpaque(opaque).takeUnretainedValue()
                    .rebalance(rk, err: err, partitions: partitions)
            }
        }
        // Route the main queue (errors, stats) to the consumer queue so one poll serves all.
        rd_kafka_poll_set_consumer(client.handle)
        if let assignment = configuration.assignment {
            try context.assign(client.handle, assignment)
        } else {
            let topics = RDKafkaPartitionList.make(
                configuration.topics.map { TopicPartition($0, Int32(RD_KAFKA_PARTITION_UA)) })
            defer { RDKafkaPartitionList.destroy(topics) }
            let err = rd_kafka_subscribe(client.handle, topics)
            guard err == RD_KAFKA_RESP_ERR_NO_ERROR else {
                throw KafkaError.from(err, code: .consumer, context: "subscribe to \(configuration.topics)")
            }
        }

        self.events = events
        self.client = client
        self.context = context
        self.logger = logger
        let batchSize = configuration.maxBatchSize
        self.poller = PollThread(name: "kafka-consumer") {
            context.pollOnce(client.handle, maxBatch: batchSize)
        } finish: {
            // Close on the poll thread: it serves the final revoke, commits stored offsets and
            // leaves the group, so partitions move to other replicas at once (not after
            // session.timeout.ms).
            let err = rd_kafka_consumer_close(client.handle)
            if err != RD_KAFKA_RESP_ERR_NO_ERROR {
                logger.warning("consumer close", metadata: ["error": "\(String(cString: rd_kafka_err2str(err)))"])
            }
            continuation.finish()
        }
    }

    /// Stores positions to commit: each offset is the next record to read (last done + 1).
    public func store(_ offsets: [TopicPartitionOffset]) throws(KafkaError) {
        guard !offsets.isEmpty else { return }
        let list = RDKafkaPartitionList.make(offsets)
        defer { RDKafkaPartitionList.destroy(list) }
        let err = rd_kafka_offsets_store(client.handle, list)
        if err != RD_KAFKA_RESP_ERR_NO_ERROR {
            throw KafkaError.from(err, code: .consumer, context: "store offsets")
        }
    }

    /// Commits stored offsets now and waits for the broker's answer.
    public func commit() async throws(KafkaError) {
        let client = self.client
        let err = await BlockingExecutor.run { rd_kafka_commit(client.handle, nil, 0) }
        // _NO_OFFSET only means nothing new was stored since the last commit.
        if err != RD_KAFKA_RESP_ERR_NO_ERROR && err != RD_KAFKA_RESP_ERR__NO_OFFSET {
            throw KafkaError.from(err, code: .consumer, context: "commit")
        }
    }

    /// Stops fetching these partitions (the in-flight bound was reached).
    public func pause(_ partitions: [TopicPartition]) throws(KafkaError) {
        try pauseOrResume(partitions, pause: true)
    }

    /// Fetches these partitions again.
    public func resume(_ partitions: [TopicPartition]) throws(KafkaError) {
        try pauseOrResume(partitions, pause: false)
    }

    /// The committed offsets of this consumer's group for the given partitions.
    public func committed(_ partitions: [TopicPartition], timeout: Duration = .seconds(10)) async throws(KafkaError)
        -> [TopicPartitionOffset]
    {
        let client = self.client
        return try await BlockingExecutor.run { () throws(KafkaError) -> [TopicPartitionOffset] in
            let list = RDKafkaPartitionList.make(partitions)
            defer { RDKafkaPartitionList.destroy(list) }
            let err = rd_kafka_committed(client.handle, list, Int32(timeout.milliseconds(rounding: .towardZero)))
            if err != RD_KAFKA_RESP_ERR_NO_ERROR {
                throw KafkaError.from(err, code: .query, context: "committed offsets")
            }
            return RDKafkaPartitionList.read(list).map(\.0)
        }
    }

    /// Partitions currently assigned to this member.
    public var assignment: [TopicPartition] { context.assigned.withLock { Array($0).sorted() } }

    /// Stops polling, commits stored offsets and leaves the group; `events` then finishes.
    /// In-flight work must already be drained (or deliberately abandoned) by the caller.
    ///
    /// A revocation the caller never read (it arrived while the caller stopped reading
    /// `events` to shut down) counts as acknowledged: the caller has drained everything, and
    /// otherwise the poll thread would wait out the whole drain timeout before it could close.
    public func close() async {
        context.beginClosing()
        await poller.stop()
    }

    private func pauseOrResume(_ partitions: [TopicPartition], pause: Bool) throws(KafkaError) {
        guard !partitions.isEmpty else { return }
        let list = RDKafkaPartitionList.make(partitions)
        defer { RDKafkaPartitionList.destroy(list) }
        let err =
            pause ? rd_kafka_pause_partitions(client.handle, list) : rd_kafka_resume_partitions(client.handle, list)
        if err != RD_KAFKA_RESP_ERR_NO_ERROR {
            throw KafkaError.from(err, code: .consumer, context: pause ? "pause" : "resume")
        }
    }
}

/// The consumer's C-callback state. Only the poll thread calls `pollOnce` and `rebalance`.
///
/// `@unchecked Sendable`: `events` is a Sendable continuation, `assigned` and `closing` are
/// behind a Mutex, and the other mutable state is touched by the poll thread only.
final class ConsumerContext: RDKafkaCallbackContext, @unchecked Sendable {
    let events: AsyncStream<KafkaConsumerEvent>.Continuation
    let drainTimeout: Duration
    let assigned = Mutex<Set<TopicPartition>>([])
    /// Whether `close()` was called, and the revocation the poll thread is waiting on, if any.
    private let closing = Mutex<(requested: Bool, pending: RevocationAcknowledgement?)>((false, nil))
    /// Set on the first assignment callback, after which the sticky assignor has its state.
    private let everAssigned = Atomic<Bool>(false)

    override var isSafeToDestroy: Bool { everAssigned.load(ordering: .acquiring) }

    /// From here on no revocation waits for the application: it has drained and stopped reading.
    func beginClosing() {
        let pending = closing.withLock { state in
            state.requested = true
            return state.pending
        }
        pending?.acknowledge()
    }

    init(logger: Logger, events: AsyncStream<KafkaConsumerEvent>.Continuation, drainTimeout: Duration) {
        self.events = events
        self.drainTimeout = drainTimeout
        super.init(logger: logger)
    }

    /// The librdkafka messages of the current poll; reused so polling allocates nothing per poll.
    private nonisolated(unsafe) var polled: [UnsafeMutablePointer<rd_kafka_message_t>] = []

    func pollOnce(_ handle: OpaquePointer, maxBatch: Int) {
        guard let first = rd_kafka_consumer_poll(handle, 100) else { return }
        polled.removeAll(keepingCapacity: true)
        var next: UnsafeMutablePointer<rd_kafka_message_t>? = first
        while let message = next {
            polled.append(message)
            next = polled.count < maxBatch ? rd_kafka_consumer_poll(handle, 0) : nil
        }
        var batch: [KafkaMessage] = []
        batch.reserveCapacity(polled.count)
        var start = 0
        while start < polled.count {
            // Records go into one shared buffer until it would pass chunkBytes; a record larger
            // than that gets a buffer of its own.
            var end = start
            var bytes = 0
            while end < polled.count {
                let size = Self.payloadBytes(polled[end].pointee)
                if end > start && bytes + size > KafkaMessage.chunkBytes { break }
                bytes += size
                end += 1
            }
            take(polled[start..<end], bytes: bytes, into: &batch)
            start = end
        }
        for message in polled { rd_kafka_message_destroy(message) }
        if !batch.isEmpty { events.yield(.messages(batch)) }
    }

    private static func payloadBytes(_ m: rd_kafka_message_t) -> Int {
        m.err == RD_KAFKA_RESP_ERR_NO_ERROR ? m.len + (m.key == nil ? 0 : m.key_len) : 0
    }

    /// Copies the keys and values of `messages` into one buffer and appends records slicing it.
    private func take(
        _ messages: ArraySlice<UnsafeMutablePointer<rd_kafka_message_t>>, bytes: Int, into batch: inout [KafkaMessage]
    ) {
        let chunk = [UInt8](unsafeUninitializedCapacity: bytes) { buffer, initialized in
            var at = 0
            for message in messages {
                let m = message.pointee
                guard m.err == RD_KAFKA_RESP_ERR_NO_ERROR else { continue }
                if let key = m.key, m.key_len > 0 {
                    (buffer.baseAddress! + at).initialize(
                        from: key.assumingMemoryBound(to: UInt8.self), count: m.key_len)
                    at += m.key_len
                }
                if let payload = m.payload, m.len > 0 {
                    (buffer.baseAddress! + at).initialize(
                        from: payload.assumingMemoryBound(to: UInt8.self), count: m.len)
                    at += m.len
                }
            }
            initialized = at
        }
        var at = 0
        for message in messages {
            let m = message.pointee
            guard m.err == RD_KAFKA_RESP_ERR_NO_ERROR else {
                logger.warning("consumer error", metadata: ["error": "\(String(cString: rd_kafka_err2str(m.err)))"])
                continue
            }
            var key: ArraySlice<UInt8>?
            if m.key != nil {
                key = chunk[at..<at + m.key_len]
                at += m.key_len
            }
            let value = chunk[at..<at + (m.payload == nil ? 0 : m.len)]
            at = value.endIndex
            var timestampType = RD_KAFKA_TIMESTAMP_NOT_AVAILABLE
            let timestamp = rd_kafka_message_timestamp(message, &timestampType)
            batch.append(
                KafkaMessage(
                    topic: topicName(m.rkt), partition: m.partition, offset: m.offset, key: key, value: value,
                    headers: headers(of: message),
                    timestampMilliseconds: timestampType == RD_KAFKA_TIMESTAMP_NOT_AVAILABLE ? nil : timestamp
                )
            )
        }
    }

    /// Parses headers only for records that have them; librdkafka allocates a parse per call.
    private func headers(of message: UnsafeMutablePointer<rd_kafka_message_t>) -> [KafkaHeader] {
        var hdrs: OpaquePointer?
        guard rd_kafka_message_headers(message, &hdrs) == RD_KAFKA_RESP_ERR_NO_ERROR, let hdrs else { return [] }
        var headers: [KafkaHeader] = []
        headers.reserveCapacity(rd_kafka_header_cnt(hdrs))
        var index = 0
        var name: UnsafePointer<CChar>?
        var valuePointer: UnsafeRawPointer?
        var size = 0
        while rd_kafka_header_get_all(hdrs, index, &name, &valuePointer, &size) == RD_KAFKA_RESP_ERR_NO_ERROR {
            headers.append(
                KafkaHeader(
                    name: name.map { String(cString: $0) } ?? "", value: valuePointer.map { copyBytes($0, size) }))
            index += 1
        }
        return headers
    }

    /// Topic names by librdkafka topic handle; handles live as long as the client, and only
    /// the poll thread reads or writes this cache.
    private nonisolated(unsafe) var topicNames: [OpaquePointer: String] = [:]
    /// The last name looked up: a poll's records mostly share a topic, and hashing the handle
    /// for every record was ~13 % of the poll thread.
    private nonisolated(unsafe) var lastTopic: (handle: OpaquePointer, name: String)?

    private func topicName(_ handle: OpaquePointer?) -> String {
        guard let handle else { return "" }
        if let lastTopic, lastTopic.handle == handle { return lastTopic.name }
        let name: String
        if let known = topicNames[handle] {
            name = known
        } else {
            name = String(cString: rd_kafka_topic_name(handle))
            topicNames[handle] = name
        }
        lastTopic = (handle, name)
        return name
    }

    /// An assignment the application chose (``KafkaConsumerConfiguration/assignment``): announced
    /// as `.assigned` like a group's, and never revoked.
    func assign(_ rk: OpaquePointer, _ positions: [TopicPartitionOffset]) throws(KafkaError) {
        let list = RDKafkaPartitionList.make(positions)
        defer { RDKafkaPartitionList.destroy(list) }
        let err = rd_kafka_assign(rk, list)
        guard err == RD_KAFKA_RESP_ERR_NO_ERROR else {
            throw KafkaError.from(err, code: .consumer, context: "assign \(positions.map(\.topicPartition))")
        }
        // No group, so no sticky-assignor state the destroy trap is about.
        everAssigned.store(true, ordering: .releasing)
        let partitions = positions.map(\.topicPartition)
        assigned.withLock { $0.formUnion(partitions) }
        events.yield(.assigned(partitions))
    }

    func rebalance(
        _ rk: OpaquePointer, err: rd_kafka_resp_err_t, partitions: UnsafeMutablePointer<rd_kafka_topic_partition_list_t>
    ) {
        let cooperative = String(cString: rd_kafka_rebalance_protocol(rk)) == "COOPERATIVE"
        let changed = RDKafkaPartitionList.read(partitions).map(\.0.topicPartition)
        switch err {
        case RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS:
            everAssigned.store(true, ordering: .releasing)
            assigned.withLock { $0.formUnion(changed) }
            logger.info("partitions assigned", metadata: ["partitions": "\(changed.sorted())"])
            events.yield(.assigned(changed))
            if cooperative {
                if let error = rd_kafka_incremental_assign(rk, partitions) {
                    logger.error("\(KafkaError.consuming(error, code: .consumer, context: "incremental assign"))")
                }
            } else {
                _ = rd_kafka_assign(rk, partitions)
            }
        case RD_KAFKA_RESP_ERR__REVOKE_PARTITIONS:
            let lost = rd_kafka_assignment_lost(rk) != 0
            logger.info("partitions revoked", metadata: ["partitions": "\(changed.sorted())", "lost": "\(lost)"])
            let acknowledgement = RevocationAcknowledgement()
            let closeRequested = closing.withLock { state in
                state.pending = acknowledgement
                return state.requested
            }
            events.yield(.revoked(changed, lost: lost, acknowledgement))
            // On close the application drained before asking, and may no longer be reading events.
            if !closeRequested && !acknowledgement.wait(timeout: drainTimeout) {
                logger.warning("revocation drain timed out; uncommitted work will be redelivered")
            }
            closing.withLock { $0.pending = nil }
            if !lost {
                let commitErr = rd_kafka_commit(rk, nil, 0)
                if commitErr != RD_KAFKA_RESP_ERR_NO_ERROR && commitErr != RD_KAFKA_RESP_ERR__NO_OFFSET {
                    logger.warning(
                        "commit on revoke", metadata: ["error": "\(String(cString: rd_kafka_err2str(commitErr)))"])
                }
            }
            assigned.withLock { $0.subtract(changed) }
            if cooperative {
                if let error = rd_kafka_incremental_unassign(rk, partitions) {
                    logger.error("\(KafkaError.consuming(error, code: .consumer, context: "incremental unassign"))")
                }
            } else {
                _ = rd_kafka_assign(rk, nil)
            }
        default:
            logger.error("rebalance error", metadata: ["error": "\(String(cString: rd_kafka_err2str(err)))"])
            assigned.withLock { $0.removeAll() }
            _ = rd_kafka_assign(rk, nil)
        }
    }
}

/// Copies C bytes into an array with one allocation and a memcpy. `Array(UnsafeRawBufferPointer)`
/// goes through the generic sequence path byte by byte, which cost ~3 µs per record and capped
/// the consumer at a quarter of librdkafka's own rate (docs/performance.md).
@inline(__always)
func copyBytes(_ source: UnsafeRawPointer, _ count: Int) -> [UInt8] {
    [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
        if count > 0 { buffer.baseAddress!.initialize(from: source.assumingMemoryBound(to: UInt8.self), count: count) }
        initialized = count
    }
}
