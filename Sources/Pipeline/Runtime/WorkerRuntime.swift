import Basics
import Contracts
public import CoreMetrics
import Foundation
public import Kafka
public import Logging
import Metrics
public import ServiceLifecycle
import Synchronization
import Topology
public import Traces
public import Tracing

/// Runs one stage: consumes its input topics, many records in flight but at most one per key,
/// acts on each outcome durably, and stores offsets only below every unfinished record.
///
/// Guarantees, in order of importance:
/// - nothing is lost: a record's offset becomes committable only after its outputs were
///   acknowledged by Kafka, its retry was scheduled in the retry store, or its rejection or
///   dead letter was written; infrastructure failures while doing so are retried in place;
/// - a crash replays only unfinished records (and the records behind them in the partition);
/// - two records with the same key never run concurrently in this worker, and the
///   idempotency guard keeps replicas from repeating a finished side effect.
public final class WorkerRuntime<Handler: MessageHandler>: Service {
    private let configuration: WorkerConfiguration
    private let handler: Handler
    private let consumer: KafkaConsumer
    private let producer: KafkaProducer
    private let retries: any RetryStore
    private let idempotency: (any IdempotencyGuard)?
    private let logger: Logger
    private let metrics: StageMetrics
    private let state: Mutex<DispatchState>
    private let tracer: any Tracer
    private let spanName: String
    /// Where the outcomes the runtime writes are audited (D51); nil when the stage keeps no trail.
    private let audit: AuditTrail?
    /// The handler's inputs taken a poll's worth at a time (D62), when it has any.
    private let batched: (any BatchedInputHandler)?
    private let batchedInputs: Set<String>

    /// - Parameter tracer: opens each record's span and carries its `traceparent` onto what the
    ///   record produces (decision D42); the default propagates W3C trace context and exports nothing.
    public init(
        configuration: WorkerConfiguration, handler: Handler, consumer: KafkaConsumer, producer: KafkaProducer,
        retries: any RetryStore, idempotency: (any IdempotencyGuard)?, logger: Logger,
        metricsFactory: any MetricsFactory = MetricsSystem.factory, tracer: any Tracer = PropagatingTracer()
    ) {
        self.tracer = tracer
        self.spanName = RecordTrace.operationName(stage: configuration.stage)
        self.configuration = configuration
        self.audit = configuration.auditTopic.map { AuditTrail(topic: $0, stage: configuration.stage) }
        self.state = Mutex(DispatchState(maxRunning: configuration.maxInFlight))
        self.handler = handler
        self.batched = handler as? any BatchedInputHandler
        self.batchedInputs = batched?.batchedInputs ?? []
        self.consumer = consumer
        self.producer = producer
        self.retries = retries
        self.idempotency = idempotency
        var logger = logger
        logger[metadataKey: "stage"] = "\(configuration.stage)"
        self.logger = logger
        self.metrics = StageMetrics(stage: configuration.stage, factory: metricsFactory)
    }

    /// Consumes until graceful shutdown, then drains running records, commits and leaves the group.
    public func run() async {
        await withDiscardingTaskGroup { group in
            for await event in consumer.events.cancelOnGracefulShutdown() {
                switch event {
                case .messages(var batch):
                    let together = takeBatched(from: &batch)
                    let startable = state.withLock { state in
                        if !together.isEmpty { state.acceptBatch(together) }
                        return batch.compactMap { state.accept($0) }
                    }
                    for ready in startable {
                        group.addTask { await self.runLane(startingWith: ready) }
                    }
                    if let batched, !together.isEmpty {
                        group.addTask { await self.run(together, batched) }
                    }
                    applyBackpressure()
                case .assigned(let partitions):
                    let paused = state.withLock { state in
                        state.assign(partitions)
                        return state.isPaused
                    }
                    if paused { pause(partitions) }
                case .revoked(let partitions, let lost, let acknowledgement):
                    await drain(Set(partitions), lost: lost)
                    acknowledgement.acknowledge()
                }
            }
            // Graceful shutdown: take nothing new; running records finish (the group waits for
            // them), records waiting behind their key are left for redelivery.
            state.withLock { $0.isDraining = true }
            pause(consumer.assignment)
            logger.info("draining", metadata: ["running": "\(state.withLock { $0.runningTotal })"])
        }
        state.withLock { storeLocked($0.committablePositions) }
        await consumer.close()
        logger.info("stopped: offsets committed, group left")
    }

    // MARK: Lanes

    private func runLane(startingWith first: KafkaMessage) async {
        var next: KafkaMessage? = first
        while let message = next {
            let ending = await process(message)
            guard ending != .stopped else { return }  // cancelled or state lost: leave it unfinished
            next = state.withLock { state in
                let (position, following) = state.finish(message, done: ending == .finished)
                if let position { storeLocked([position]) }
                return following
            }
            applyBackpressure()
        }
    }

    /// Stores positions while the caller holds the state lock.
    ///
    /// librdkafka keeps whatever position was stored last (`rd_kafka_offsets_store` does not
    /// compare with the one it holds), so positions must reach it in the order they were
    /// computed. Two lanes of one partition that finish together would otherwise race between
    /// the lock and the store, and a lower position stored last left the commit behind the log
    /// end for good once the partition went quiet (decision D1).
    private func storeLocked(_ positions: [TopicPartitionOffset]) {
        do {
            try consumer.store(positions)
        } catch {
            // The partition was revoked meanwhile; its next owner replays from the commit.
            logger.debug("offset store refused", metadata: ["positions": "\(positions)", "error": "\(error)"])
        }
    }

    private func applyBackpressure() {
        let (change, inFlight): (BackpressureChange?, Int) = state.withLock { state in
            if !state.isPaused && state.inFlight >= configuration.bufferBound {
                state.isPaused = true
                return (.pause, state.inFlight)
            }
            // Resume at half the bound: the consumer does not flap, and the records still
            // buffered keep every slot busy while the partitions are fetched again.
            if state.isPaused && !state.isDraining && state.inFlight <= configuration.bufferBound / 2 {
                state.isPaused = false
                return (.resume, state.inFlight)
            }
            return (nil, state.inFlight)
        }
        metrics.inFlight.record(inFlight)
        switch change {
        case .pause:
            metrics.paused.record(1)
            pause(consumer.assignment)
        case .resume:
            metrics.paused.record(0)
            do { try consumer.resume(consumer.assignment) } catch {
                logger.warning("resume failed", metadata: ["error": "\(error)"])
            }
        case nil:
            break
        }
    }

    private func pause(_ partitions: [TopicPartition]) {
        do { try consumer.pause(partitions) } catch { logger.warning("pause failed", metadata: ["error": "\(error)"]) }
    }

    private func drain(_ partitions: Set<TopicPartition>, lost: Bool) async {
        var running = state.withLock { $0.revoke(partitions) }
        let clock = ContinuousClock()
        let deadline = clock.now + configuration.revocationDrainTimeout
        while running > 0, clock.now < deadline {
            try? await Task.sleep(for: .milliseconds(10))
            running = state.withLock { $0.running(in: partitions) }
        }
        state.withLock { state in
            let finalPositions = state.remove(partitions)
            if !lost { storeLocked(finalPositions) }
        }
        if running > 0 {
            logger.warning(
                "revoked partitions still had running records; they will be redelivered",
                metadata: ["running": "\(running)"])
        }
    }

    // MARK: Batched inputs

    /// Moves the records of batched inputs out of `batch`, keeping the others in order.
    private func takeBatched(from batch: inout [KafkaMessage]) -> [KafkaMessage] {
        guard !batchedInputs.isEmpty else { return [] }
        var together: [KafkaMessage] = []
        batch.removeAll { message in
            guard batchedInputs.contains(message.topic) else { return false }
            together.append(message)
            return true
        }
        return together
    }

    /// Takes a poll's records of batched inputs to a durable end together (D62): the rejections
    /// written first, then one ``BatchedInputHandler/handle(batch:)`` of the rest, retried in
    /// place; only then are the offsets stored. Cancelled first, the records stay unfinished.
    private func run<Batched: BatchedInputHandler>(_ records: [KafkaMessage], _ handler: Batched) async {
        let clock = ContinuousClock()
        let started = clock.now
        var entries: [Batched.Entry] = []
        entries.reserveCapacity(records.count)
        var rejections: [KafkaRecord] = []
        for record in records {
            let message = InboundMessage(delivered: record)
            do throws(Rejection) {
                if let oversize = oversize(record) { throw oversize }
                entries.append(try handler.prepareEntry(message))
            } catch {
                rejections.append(rejection(of: record, error))
            }
        }
        let rejected = rejections
        let log = RecordLog(
            logger: logger, record: records[0],
            trace: RecordTrace(
                stage: configuration.stage, operation: spanName, group: configuration.consumerGroup, record: records[0],
                tracer: tracer))
        defer { log.trace.end() }
        if !rejected.isEmpty {
            guard await durably("write rejections", log: log, { _ = try await self.producer.send(rejected) }) != nil
            else { return }
        }
        if !entries.isEmpty {
            let batch = entries
            guard await durably("handle batch", log: log, { try await handler.handle(batch: batch) }) != nil else {
                return
            }
        }
        let elapsed = (clock.now - started).nanoseconds
        for _ in records { metrics.processing.recordNanoseconds(elapsed) }
        metrics.count(.produced, entries.count)
        metrics.count(.rejected, rejected.count)
        state.withLock { storeLocked($0.finishBatch(records)) }
        applyBackpressure()
    }

    /// The reject record of a batched record `prepareEntry` refused, in a span of its own (a
    /// rejection is rare, and its trace shows where the record ended).
    private func rejection(of record: KafkaMessage, _ rejection: Rejection) -> KafkaRecord {
        let trace = RecordTrace(
            stage: configuration.stage, operation: spanName, group: configuration.consumerGroup, record: record,
            tracer: tracer)
        defer { trace.end() }
        return rejectRecord(
            rejection.reason, detail: Excerpt.of(rejection.detail),
            log: RecordLog(logger: logger, record: record, trace: trace))
    }

    /// Records past `maxMessageBytes` are refused before any decoding, batched or not.
    private func oversize(_ record: KafkaMessage) -> Rejection? {
        guard record.value.count > configuration.maxMessageBytes else { return nil }
        return Rejection(
            .malformedEvent,
            "message of \(record.value.count) bytes exceeds the \(configuration.maxMessageBytes)-byte limit")
    }

    /// The record's reject record under its trace, the refusal logged and noted on its span.
    private func rejectRecord(_ reason: ReasonCode, detail: String, log: RecordLog) -> KafkaRecord {
        log.info("rejected", metadata: ["reason": "\(reason)", "detail": "\(detail)"])
        log.trace.noteOutcome("rejected", failure: reason.rawValue)
        return log.trace.stamped(
            RejectRecord.make(
                for: log.record, reason: reason, detail: detail, stage: configuration.stage,
                topic: configuration.rejectTopic, group: configuration.consumerGroup))
    }

    // MARK: One record

    /// How processing a record ended.
    private enum Ending {
        /// Its outcome is durable: its offset may be stored.
        case finished
        /// Cancelled first, or the stage found its Redis state lost (``StateLost``): the record
        /// stays unfinished and its lane stops, for the worker is going away.
        case stopped
        /// Waiting to be tried again in place when the worker began to drain or lost the
        /// partition: its slot and key are freed, its offset stays unstored (D68).
        case givenBack
    }

    /// What a record's delivery came to before the runtime acts on it.
    private enum Decision {
        case act(StageOutcome, lock: IdempotencyLock?)
        case ended(Ending)
    }

    /// Processes one record to a durable end (see ``Ending``). With ``WorkerConfiguration/
    /// retriesInPlace``, a retry the budget allows is waited out here and the record decided
    /// again from its lock, instead of being scheduled.
    private func process(_ record: KafkaMessage) async -> Ending {
        let message = InboundMessage(delivered: record)
        let clock = ContinuousClock()
        let started = clock.now
        let trace = RecordTrace(
            stage: configuration.stage, operation: spanName, group: configuration.consumerGroup, record: record,
            tracer: tracer)
        var log = RecordLog(logger: logger, record: record, trace: trace)
        defer {
            trace.end()
            metrics.processing.recordNanoseconds((clock.now - started).nanoseconds)
        }

        if let oversize = oversize(record) {
            return await act(
                .reject(oversize.reason, detail: oversize.detail), message: message, lock: nil, subject: nil, log: log)
                ? .finished : .stopped
        }
        let prepared: Prepared<Handler.Work>
        do {
            prepared = try handler.prepare(message)
        } catch {
            return await act(
                .reject(error.reason, detail: error.detail), message: message, lock: nil,
                subject: handler.auditSubject(ofRefused: message), log: log)
                ? .finished : .stopped
        }
        log.businessId = prepared.idempotencyKey
        if let key = prepared.idempotencyKey { trace.noteBusinessId(key) }

        // Failures of this delivery tried again in place; charged to the retry budget.
        var failures = 0
        var inPlace: Int?
        defer { if let inPlace { metrics.inPlace.end(inPlace) } }
        while true {
            let (outcome, lock): (StageOutcome, IdempotencyLock?)
            switch await decide(prepared, message: message, log: log) {
            case .ended(let ending): return ending
            case .act(let decided, let held): (outcome, lock) = (decided, held)
            }
            if configuration.retriesInPlace.contains(record.topic), case .retry(let after, let reason) = outcome,
                configuration.retryPolicy.allowsRetry(afterAttempts: message.attempt + failures + 1)
            {
                await release(lock)
                failures += 1
                if inPlace == nil { inPlace = metrics.inPlace.begin(since: clock.now) }
                let delay = configuration.retryPolicy.delay(forAttempt: message.attempt + failures, retryAfter: after)
                log.info(
                    "retrying in place",
                    metadata: [
                        "attempt": "\(message.attempt + failures)", "delay": "\(delay)",
                        "reason": "\(Excerpt.of(reason))",
                    ])
                metrics.count(.retried)
                if let ending = await waitInPlace(delay, record: record) { return ending }
                continue
            }
            var charged = message
            charged.attempt += failures
            let finished = await act(outcome, message: charged, lock: lock, subject: prepared.audit, log: log)
            if !finished { await release(lock) }
            return finished ? .finished : .stopped
        }
    }

    /// Takes the record's business-id lock and runs the handler: the outcome to act on with the
    /// lock held, or how the delivery ended without one (a duplicate, a superseded copy, stopped).
    private func decide(_ prepared: Prepared<Handler.Work>, message: InboundMessage, log: RecordLog) async
        -> Decision
    {
        let trace = log.trace
        var lock: IdempotencyLock?
        if let key = prepared.idempotencyKey, let idempotency {
            switch await acquire(key, attempt: message.attempt, guard: idempotency, log: log) {
            case .none:
                return .ended(.stopped)
            case .some(.alreadyDone):
                metrics.count(.duplicate)
                trace.noteOutcome("duplicate")
                let reason = "duplicate: \(configuration.stage) already processed \(key)"
                let audited = await appendAudit(.noEffect, about: prepared.audit, reason: reason, log: log)
                return .ended(audited != nil ? .finished : .stopped)
            case .some(.superseded):
                // A stale copy of a record whose later attempt is scheduled: nothing to tell anyone.
                metrics.count(.duplicate)
                trace.noteOutcome("duplicate")
                return .ended(.finished)
            case .some(.busy):
                let outcome = StageOutcome.retry(
                    after: RetryPolicy.lockedElsewhereFloor, reason: "business id \(key) is locked by another worker")
                return .act(outcome, lock: nil)
            case .some(.acquired(let token)):
                lock = IdempotencyLock(key: key, token: token, guard: idempotency)
            case .some(.acquiredOverWait(let token, let wait)):
                lock = IdempotencyLock(key: key, token: token, guard: idempotency, replacing: wait)
            }
        }
        do {
            return .act(try await handler.handle(prepared.work, message: message), lock: lock)
        } catch is CancellationError {
            await release(lock)
            return .ended(.stopped)
        } catch is StateLost {
            // Decided against a Redis that lost its data: nothing is acted on, and the record
            // stays unfinished (its offset is not stored) for the restart that rebuilds first.
            await release(lock)
            return .ended(.stopped)
        } catch {
            trace.recordError(error)
            return .act(.retry(after: .zero, reason: "\(error)"), lock: lock)
        }
    }

    /// Waits out an in-place retry's delay; nil once it passed. A worker that drains or loses
    /// the record's partition meanwhile gives the record back at once rather than trying it
    /// again beside the partition's next owner.
    private func waitInPlace(_ delay: Duration, record: KafkaMessage) async -> Ending? {
        let clock = ContinuousClock()
        let deadline = clock.now + delay
        while true {
            guard state.withLock({ $0.keeps(record.topicPartition) }) else { return .givenBack }
            let left = deadline - clock.now
            guard left > .zero else { return nil }
            metrics.inPlace.report()
            do { try await Task.sleep(for: min(left, .milliseconds(250))) } catch { return .stopped }
        }
    }

    /// Best-effort unlock when abandoning a record, so its next owner need not wait out the
    /// lock TTL (after a hard kill the TTL is what frees it).
    private func release(_ lock: IdempotencyLock?) async {
        guard let lock else { return }
        try? await lock.guard.abandon(lock.key, token: lock.token)
    }

    private struct IdempotencyLock {
        var key: String
        var token: String
        var `guard`: any IdempotencyGuard
        /// The wait an earlier delivery of the key scheduled, which this one's outcome replaces.
        var replacing: String?
    }

    /// Takes the business-id lock, waiting briefly while another worker holds it.
    private func acquire(_ key: String, attempt: Int, guard idempotency: any IdempotencyGuard, log: RecordLog) async
        -> IdempotencyState?
    {
        let clock = ContinuousClock()
        let deadline = clock.now + configuration.lockTTL
        while true {
            guard
                let state = await durably(
                    "idempotency begin", log: log,
                    { try await idempotency.begin(key, lockTTL: self.configuration.lockTTL, attempt: attempt) })
            else {
                return nil
            }
            if state != .busy || clock.now >= deadline { return state }
            do { try await Task.sleep(for: .milliseconds(100)) } catch { return nil }
        }
    }

    /// Makes the outcome durable, then settles the idempotency lock.
    ///
    /// - Parameter subject: who the record is about; the runtime audits the outcomes it writes
    ///   (a skip, a rejection, a dead letter) under it, in the same produce (D51).
    private func act(
        _ outcome: StageOutcome, message: InboundMessage, lock: IdempotencyLock?, subject: AuditSubject?,
        log: RecordLog
    ) async -> Bool {
        let record = message.record
        let trace = log.trace
        var settle = Settle.done
        let acted: Void?
        switch outcome {
        case .produce(let records):
            let records = trace.stamped(records)
            acted = await durably("produce outputs", log: log) { _ = try await self.producer.send(records) }
            metrics.count(.produced)
            trace.noteOutcome("produced")
        case .deliver(let records, let state, let afterDelivery):
            let records = trace.stamped(records)
            let state = trace.stamped(state)
            let delivered: Void? = await durably("produce outputs", log: log) {
                _ = try await self.producer.send(records)
            }
            let saved: Void? =
                delivered == nil
                ? nil : await durably("produce the state's copy", log: log) { _ = try await self.producer.send(state) }
            acted = saved == nil ? nil : await durably("after delivery", log: log) { try await afterDelivery() }
            metrics.count(.produced)
            trace.noteOutcome("produced")
        case .skip(let reason):
            log.debug("skipped", metadata: ["reason": "\(reason)"])
            acted = await appendAudit(.noEffect, about: subject, reason: Excerpt.of(reason), log: log)
            metrics.count(.skipped)
            trace.noteOutcome("skipped")
        case .reject(let reason, let detail):
            let detail = Excerpt.of(detail)
            let reject = rejectRecord(reason, detail: detail, log: log)
            let audited = auditRecords(.rejected, about: subject, reason: reason.rawValue, detail: detail, log: log)
            acted = await durably("write rejection", log: log) { _ = try await self.producer.send([reject] + audited) }
            metrics.count(.rejected)
        case .retry(let after, let reason):
            let reason = Excerpt.of(reason)
            let attempts = message.attempt + 1
            if !configuration.retryPolicy.allowsRetry(afterAttempts: attempts) {
                log.warning(
                    "retry budget exhausted; dead-lettering",
                    metadata: ["attempts": "\(attempts)", "error": "\(reason)"])
                acted = await deadLetter(
                    record, attempts: attempts, lastError: reason, auditReason: reason, subject: subject, log: log)
            } else {
                let delay = configuration.retryPolicy.delay(forAttempt: attempts, retryAfter: after)
                log.info(
                    "retry scheduled", metadata: ["attempt": "\(attempts)", "delay": "\(delay)", "reason": "\(reason)"])
                acted = await durably("schedule retry", log: log) {
                    let id = RetryEnvelope.id(for: record, attempt: attempts)
                    let payload = try RetryEnvelope(
                        message: trace.stamped(record), returningTo: self.configuration.retryTopic, attempt: attempts,
                        lastError: reason, deliveryId: id
                    )
                    .encoded()
                    try await self.retries.schedule(
                        ScheduledDelivery(id: id, payload: payload, kind: .retry, delay: delay))
                }
                metrics.count(.retried)
                trace.noteOutcome("retried")
                // Outlives the delay by the promoter's lease and more, so the retry finds it.
                settle = .postpone(untilAttempt: attempts, ttl: delay + .seconds(600))
            }
        case .wait(let wait):
            (acted, settle) = await act(on: wait, message: message, subject: subject, log: log)
        }
        guard acted != nil else { return false }
        if let replaced = lock?.replacing, replaced != record.deliveryId {
            // This delivery's outcome is durable and stands for the key now: the wait an earlier
            // delivery scheduled would only come back to find it done (match: a transaction its
            // order released). Cancelled, it is neither delivered nor owed after a Redis loss.
            let cancelled: Void? = await durably("cancel the wait this delivery replaces", log: log) {
                try await self.retries.acknowledge([replaced])
            }
            guard cancelled != nil else { return false }
        }
        if let lock {
            let retention = configuration.idempotencyRetention
            let settle = settle
            let settled: Void? = await durably("idempotency settle", log: log) {
                switch settle {
                case .done: try await lock.guard.complete(lock.key, token: lock.token, retention: retention)
                case .abandon: try await lock.guard.abandon(lock.key, token: lock.token)
                case .park(let wait, let ttl):
                    try await lock.guard.park(lock.key, token: lock.token, wait: wait, ttl: ttl)
                case .postpone(let attempt, let ttl):
                    try await lock.guard.postpone(lock.key, token: lock.token, untilAttempt: attempt, ttl: ttl)
                }
            }
            guard settled != nil else { return false }
        }
        return true
    }

    /// Schedules a wait, or dead-letters the record when it has waited past the stage's
    /// `retry.maxWait` since it first waited; nil when cancelled first.
    private func act(on wait: StageOutcome.Wait, message: InboundMessage, subject: AuditSubject?, log: RecordLog) async
        -> (Void?, Settle)
    {
        let record = message.record
        let reason = Excerpt.of(wait.reason)
        let maxWait = configuration.retryPolicy.maxWait
        let ceiling = wait.since.addingTimeInterval(maxWait.seconds)
        guard Date() < ceiling else {
            func hours(_ seconds: Double) -> String { String(format: "%.1f h", seconds / 3600) }
            let lastError =
                "waited \(hours(Date().timeIntervalSince(wait.since))) for \(wait.on) since "
                + "\(wait.since.formatted(.iso8601)), past the stage's retry.maxWait of \(hours(maxWait.seconds)): "
                + reason
            log.warning("waited past the ceiling; dead-lettering", metadata: ["error": "\(lastError)"])
            let acted: Void? = await deadLetter(
                record, attempts: message.attempt, lastError: lastError, auditReason: Excerpt.of(lastError),
                subject: subject, log: log)
            return (acted, .done)
        }
        log.debug(
            "waiting",
            metadata: ["until": "\(wait.until)", "since": "\(wait.since)", "on": "\(wait.on)", "reason": "\(reason)"])
        let id = RetryEnvelope.waitId(for: record)
        // Back at the ceiling at the latest, to be dead-lettered if still waiting.
        let due = min(wait.until, ceiling)
        let acted: Void? = await durably("schedule wait", log: log) {
            let payload = try RetryEnvelope(
                message: log.trace.stamped(record), returningTo: self.configuration.retryTopic,
                attempt: message.attempt, lastError: reason, waitingSince: wait.since,
                waitMemo: wait.memo, deliveryId: id
            ).encoded()
            try await self.retries.schedule(
                ScheduledDelivery(
                    id: id, payload: payload, kind: .wait, delay: .zero, notBefore: due,
                    waiting: ScheduledDelivery.Waiting(on: wait.on, since: wait.since)))
        }
        metrics.count(.waiting)
        log.trace.noteOutcome("waiting")
        guard wait.releasable else { return (acted, .abandon) }
        return (acted, .park(wait: id, ttl: .seconds(max(0, due.timeIntervalSinceNow)) + .seconds(600)))
    }

    /// Writes the record to its input's dead-letter topic with its audit entry, in one produce;
    /// nil when cancelled first. Both ends of a record's tries come here: its retry budget spent,
    /// or its wait past the stage's `retry.maxWait`.
    private func deadLetter(
        _ record: KafkaMessage, attempts: Int, lastError: String, auditReason: String, subject: AuditSubject?,
        log: RecordLog
    ) async -> Void? {
        let dead = log.trace.stamped(
            RejectRecord.deadLetter(
                record, attempts: attempts, lastError: lastError, group: configuration.consumerGroup))
        let audited = auditRecords(.deadLettered, about: subject, reason: auditReason, log: log)
        let acted: Void? = await durably("write dead letter", log: log) {
            _ = try await self.producer.send([dead] + audited)
        }
        metrics.count(.deadLettered)
        log.trace.noteOutcome("dead_lettered", failure: lastError)
        return acted
    }

    // MARK: Audit

    /// The audit record of a decision the runtime makes about `subject`; none without a trail or
    /// a subject. An entry that does not encode is logged and left out: the outcome itself must
    /// not wait on its audit.
    private func auditRecords(
        _ decision: AuditDecision, about subject: AuditSubject?, reason: String, detail: String? = nil, log: RecordLog
    ) -> [KafkaRecord] {
        guard let audit, let subject else { return [] }
        do {
            return [
                log.trace.stamped(
                    try audit.record(audit.entry(decision, about: subject, reason: reason, detail: detail)))
            ]
        } catch {
            log.warning("audit entry not written", metadata: ["error": "\(error)"])
            return []
        }
    }

    /// Writes the audit entry of a decision that writes nothing else (a skip, a duplicate);
    /// nil when cancelled first.
    private func appendAudit(_ decision: AuditDecision, about subject: AuditSubject?, reason: String, log: RecordLog)
        async -> Void?
    {
        let records = auditRecords(decision, about: subject, reason: reason, log: log)
        guard !records.isEmpty else { return () }
        return await durably("write audit entry", log: log) { _ = try await self.producer.send(records) }
    }

    /// How a record's business-id lock ends: done (the side effect happened, or the record was
    /// rejected or dead-lettered), abandoned (another delivery may try at once), parked (a wait:
    /// any delivery may look again, and learns which wait it replaces), or postponed for a
    /// scheduled retry.
    private enum Settle {
        case done
        case abandon
        case park(wait: String, ttl: Duration)
        case postpone(untilAttempt: Int, ttl: Duration)
    }

    /// Retries an infrastructure call (Kafka, Redis) until it succeeds or the task is cancelled.
    /// A purchase must never be dropped because a dependency blinked.
    private func durably<T: Sendable>(_ what: String, log: RecordLog, _ body: @Sendable () async throws -> T) async
        -> T?
    {
        var backoff = Duration.milliseconds(100)
        while !Task.isCancelled {
            do {
                return try await body()
            } catch is CancellationError {
                return nil
            } catch {
                metrics.infrastructureErrors.increment()
                log.warning("\(what) failed; retrying", metadata: ["error": "\(error)", "backoff": "\(backoff)"])
                do { try await Task.sleep(for: backoff) } catch { return nil }
                backoff = min(backoff * 2, .seconds(10))
            }
        }
        return nil
    }
}

private enum BackpressureChange { case pause, resume }
