import Basics
internal import CRdKafka
public import Logging
import Synchronization

/// An asynchronous Kafka producer whose `send` returns once the broker acknowledged the record.
///
/// The pipeline stores an input offset only after its outputs are acknowledged, so delivery
/// reports are surfaced as awaitable results rather than fire-and-forget callbacks.
public final class KafkaProducer: Sendable {
    private let client: RDKafkaClient
    private let poller: PollThread
    private let logger: Logger

    public init(configuration: KafkaProducerConfiguration, logger: Logger) throws(KafkaError) {
        let client = try RDKafkaClient.make(
            kind: .producer,
            properties: configuration.properties,
            context: RDKafkaCallbackContext(logger: logger)
        ) { conf in
            rd_kafka_conf_set_dr_msg_cb(conf) { _, message, _ in
                guard let message, let opaque = message.pointee._private else { return }
                let promise = Unmanaged<DeliveryPromise>.fromOpaque(opaque).takeRetainedValue()
                let m = message.pointee
                if m.err == RD_KAFKA_RESP_ERR_NO_ERROR {
                    let topic = String(cString: rd_kafka_topic_name(m.rkt))
                    promise.complete(
                        .success(KafkaDeliveryReport(topic: topic, partition: m.partition, offset: m.offset)))
                } else {
                    promise.complete(.failure(KafkaError.from(m.err, code: .delivery, context: "delivery failed")))
                }
            }
        }
        self.client = client
        self.logger = logger
        self.poller = PollThread(name: "kafka-producer") {
            rd_kafka_poll(client.handle, 50)
        }
    }

    /// Enqueues one record and waits for the broker's acknowledgement.
    public func send(_ record: KafkaRecord) async throws -> KafkaDeliveryReport {
        try await withUnsafeThrowingContinuation { continuation in
            let promise = DeliveryPromise(continuation)
            do {
                try enqueue(record, promise: promise)
            } catch {
                continuation.resume(throwing: error)
            }
        }
    }

    /// Enqueues every record before waiting, so a batch costs one round of broker latency and
    /// one continuation, not one task per record. Fails with the first delivery error.
    public func send(_ records: [KafkaRecord]) async throws -> [KafkaDeliveryReport] {
        guard !records.isEmpty else { return [] }
        return try await withUnsafeThrowingContinuation { continuation in
            let batch = BatchDelivery(count: records.count, continuation: continuation)
            for (index, record) in records.enumerated() {
                do {
                    try enqueue(record, promise: DeliveryPromise(batch: batch, index: index))
                } catch {
                    // Records already enqueued still report; the batch resumes once, with this error.
                    batch.fail(error, remaining: records.count - index)
                    return
                }
            }
        }
    }

    /// Waits until every enqueued record was delivered or failed.
    public func flush(timeout: Duration = .seconds(30)) async throws(KafkaError) {
        let client = self.client
        let err = await BlockingExecutor.run {
            rd_kafka_flush(client.handle, Int32(timeout.milliseconds(rounding: .towardZero)))
        }
        if err != RD_KAFKA_RESP_ERR_NO_ERROR {
            throw KafkaError.from(err, code: .delivery, context: "flush")
        }
    }

    /// Flushes outstanding records, then stops the poll thread. Call before dropping the producer.
    public func close(timeout: Duration = .seconds(30)) async {
        do {
            try await flush(timeout: timeout)
        } catch {
            logger.error("producer close: records still undelivered", metadata: ["error": "\(error)"])
        }
        await poller.stop()
    }

    private func enqueue(_ record: KafkaRecord, promise: DeliveryPromise) throws(KafkaError) {
        var attempt = 0
        while true {
            let result = produce(record, promise: promise)
            guard let error = result else { return }
            // A full local queue is transient back-pressure: the poll thread drains it as
            // reports arrive, so yield briefly and try again rather than failing the record.
            if error.librdkafkaCode == RD_KAFKA_RESP_ERR__QUEUE_FULL.rawValue, attempt < 10_000 {
                attempt += 1
                rd_kafka_poll(client.handle, 1)
                continue
            }
            throw error
        }
    }

    /// One `rd_kafka_produceva` call; returns the error instead of throwing so the caller can retry.
    private func produce(_ record: KafkaRecord, promise: DeliveryPromise) -> KafkaError? {
        // Headers are built as an `rd_kafka_headers_t` (RD_KAFKA_VTYPE_HEADERS), never as
        // per-header varargs: 2.0.2 double-frees those when the partitioner fails (#4627).
        let headers: OpaquePointer? = record.headers.isEmpty ? nil : rd_kafka_headers_new(record.headers.count)
        if let headers {
            for header in record.headers {
                if let value = header.value {
                    _ = value.withUnsafeBytes {
                        rd_kafka_header_add(headers, header.name, -1, $0.baseAddress, $0.count)
                    }
                } else {
                    _ = rd_kafka_header_add(headers, header.name, -1, nil, 0)
                }
            }
        }
        let opaque = Unmanaged.passRetained(promise).toOpaque()
        let error: OpaquePointer? = record.topic.withCString { topic in
            record.value.withUnsafeBytes { value in
                withOptionalBytes(record.key) { key in
                    // At most seven arguments, on the stack: an array grown per append cost four
                    // allocations for every record every stage writes.
                    withUnsafeTemporaryAllocation(of: rd_kafka_vu_t.self, capacity: 7) { args in
                        var count = 0
                        /// One argument: a type tag and the union member it selects.
                        func add(_ type: rd_kafka_vtype_t, _ set: (inout rd_kafka_vu_t) -> Void) {
                            var argument = rd_kafka_vu_t()
                            argument.vtype = type
                            set(&argument)
                            args.initializeElement(at: count, to: argument)
                            count += 1
                        }
                        add(RD_KAFKA_VTYPE_TOPIC) { $0.u.cstr = topic }
                        if let partition = record.partition {
                            add(RD_KAFKA_VTYPE_PARTITION) { $0.u.i32 = partition }
                        }
                        // An empty value goes out as null: a tombstone on a compacted topic.
                        let payload = value.isEmpty ? nil : UnsafeMutableRawPointer(mutating: value.baseAddress)
                        add(RD_KAFKA_VTYPE_VALUE) { $0.u.mem = .init(ptr: payload, size: value.count) }
                        if let key {
                            add(RD_KAFKA_VTYPE_KEY) {
                                $0.u.mem = .init(
                                    ptr: UnsafeMutableRawPointer(mutating: key.baseAddress), size: key.count)
                            }
                        }
                        if let headers {
                            add(RD_KAFKA_VTYPE_HEADERS) { $0.u.headers = headers }
                        }
                        add(RD_KAFKA_VTYPE_MSGFLAGS) { $0.u.i = RD_KAFKA_MSG_F_COPY }
                        add(RD_KAFKA_VTYPE_OPAQUE) { $0.u.ptr = opaque }
                        return rd_kafka_produceva(client.handle, args.baseAddress, count)
                    }
                }
            }
        }
        guard let error else { return nil }
        // On failure librdkafka took ownership of nothing: release what we handed it.
        Unmanaged<DeliveryPromise>.fromOpaque(opaque).release()
        if let headers { rd_kafka_headers_destroy(headers) }
        return KafkaError.consuming(error, code: .delivery, context: "produce to \(record.topic)")
    }
}

private func withOptionalBytes<R>(_ bytes: [UInt8]?, _ body: (UnsafeRawBufferPointer?) -> R) -> R {
    guard let bytes else { return body(nil) }
    return bytes.withUnsafeBytes { body($0) }
}

/// Carries one record's completion through librdkafka's per-message opaque.
///
/// The continuations are unsafe (no checking canary, one allocation less per send, which every
/// record of every stage pays): librdkafka reports each enqueued message exactly once, and a
/// `BatchDelivery` takes its continuation out under its lock before resuming it.
final class DeliveryPromise: Sendable {
    private enum Target: Sendable {
        case single(UnsafeContinuation<KafkaDeliveryReport, any Error>)
        case batch(BatchDelivery, Int)
    }

    private let target: Target

    init(_ continuation: UnsafeContinuation<KafkaDeliveryReport, any Error>) {
        target = .single(continuation)
    }

    init(batch: BatchDelivery, index: Int) {
        target = .batch(batch, index)
    }

    func complete(_ result: Result<KafkaDeliveryReport, KafkaError>) {
        switch target {
        case .single(let continuation):
            continuation.resume(with: result.mapError { $0 as any Error })
        case .batch(let batch, let index):
            batch.complete(index, result)
        }
    }
}

/// Collects the delivery reports of one `send([KafkaRecord])` and resumes its caller once.
final class BatchDelivery: Sendable {
    private struct State {
        var reports: [KafkaDeliveryReport?]
        var pending: Int
        var error: (any Error)?
        var continuation: UnsafeContinuation<[KafkaDeliveryReport], any Error>?
    }

    private let state: Mutex<State>

    init(count: Int, continuation: UnsafeContinuation<[KafkaDeliveryReport], any Error>) {
        state = Mutex(
            State(reports: Array(repeating: nil, count: count), pending: count, error: nil, continuation: continuation))
    }

    func complete(_ index: Int, _ result: Result<KafkaDeliveryReport, KafkaError>) {
        settle(remaining: 1) { state in
            switch result {
            case .success(let report): state.reports[index] = report
            case .failure(let error): state.error = state.error ?? error
            }
        }
    }

    /// Records that were never enqueued count as settled with `error`.
    func fail(_ error: any Error, remaining: Int) {
        settle(remaining: remaining) { state in state.error = state.error ?? error }
    }

    private func settle(remaining: Int, _ update: (inout State) -> Void) {
        let resume: (UnsafeContinuation<[KafkaDeliveryReport], any Error>, Result<[KafkaDeliveryReport], any Error>)? =
            state.withLock { state in
                update(&state)
                state.pending -= remaining
                guard state.pending == 0, let continuation = state.continuation else { return nil }
                state.continuation = nil
                if let error = state.error { return (continuation, .failure(error)) }
                return (continuation, .success(state.reports.compactMap { $0 }))
            }
        if let (continuation, result) = resume { continuation.resume(with: result) }
    }
}
