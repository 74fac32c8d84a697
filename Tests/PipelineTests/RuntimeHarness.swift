import Contracts
import CoreMetrics
import Foundation
import Kafka
import LocalServices
import Logging
import Pipeline
import ServiceLifecycle
import Synchronization
import TestSupport
import Topology

/// The test stage: `{"schema":"test.v1","id":"…","action":"ok|retry|block|fail"}`.
///
/// - ok: produce `{"id": …}` to its output topic (`out`, under the test's prefix);
/// - retry: ask for a retry after `retryAfterMs` until attempt `succeedAt`, then ok;
/// - block: wait on the harness gate (cancellable), then ok;
/// - fail: always ask for a retry (exhausts the budget);
/// - skip: nothing to do;
/// - reject: refuse, quoting the id in the detail;
/// - wait: wait (``StageOutcome/wait(_:)``, `retryAfterMs` or half a second at a time) until the
///   harness gate opens, then ok;
/// - deliver: ``StageOutcome/deliver(_:state:afterDelivery:)`` of `{"id": …}` to `out` with the
///   state `{"state": …}` to `state`, noting the id as saved afterwards.
struct TestEvent: PipelineEvent {
    static let schema = "test.v1"

    var schema: String
    var id: String
    var action: String
    var retryAfterMs: Int?
    var succeedAt: Int?
}

final class TestStage: MessageHandler {
    let observations = Observations()
    let gate = Gate()
    /// Where `ok` writes: `out` of the test's topics.
    let output: String
    /// Where `deliver` writes its state's copy.
    let stateOutput: String
    /// Inputs taken a poll's worth at a time (``BatchedInputHandler``): none by default, so every
    /// other test runs a stage that adopts the protocol and batches nothing.
    let batchedInputs: Set<String>

    init(output: String, stateOutput: String = "state", batched: Set<String> = []) {
        self.output = output
        self.stateOutput = stateOutput
        self.batchedInputs = batched
    }

    func prepare(_ message: InboundMessage) throws(Rejection) -> Prepared<TestEvent> {
        let event = try EventDecoder.decode(TestEvent.self, from: message.record.value)
        return Prepared(event, idempotencyKey: "test:\(event.id)")
    }

    func handle(_ event: TestEvent, message: InboundMessage) async throws -> StageOutcome {
        let key = "\(message.record.partition)/\(message.record.offset)"
        try observations.begin(
            key, event: event, attempt: message.attempt, waitingSince: message.waitingSince,
            traceparent: message.record.headers.last(named: "traceparent")?.stringValue)
        defer { observations.end(key) }
        switch event.action {
        case "retry" where message.attempt < (event.succeedAt ?? 1):
            return .retry(after: .milliseconds(event.retryAfterMs ?? 0), reason: "asked to retry")
        case "fail":
            return .retry(after: .zero, reason: "always fails")
        case "flaky" where observations.handled.filter({ $0.id == event.id }).count <= (event.succeedAt ?? 1):
            throw FlakyFailure()
        case "skip":
            return .skip(reason: "asked to skip")
        case "reject":
            return .reject(.malformedEvent, detail: "id '\(event.id)' is refused")
        case "wait" where !gate.isOpened:
            return .wait(
                .init(
                    until: Date().addingTimeInterval(Double(event.retryAfterMs ?? 500) / 1000),
                    since: message.waitingSince ?? Date(), on: "gate", reason: "waiting for the gate",
                    releasable: true))
        case "deliver":
            let saved = observations
            return .deliver(
                [KafkaRecord(topic: output, key: event.id, value: "{\"id\":\"\(event.id)\"}")],
                state: [KafkaRecord(topic: stateOutput, key: event.id, value: "{\"state\":\"\(event.id)\"}")]
            ) { saved.save(event.id) }
        case "block":
            try await gate.wait()
        default:
            break
        }
        try await Task.sleep(for: .milliseconds(Int.random(in: 0...3)))
        return .produce([KafkaRecord(topic: output, key: event.id, value: "{\"id\":\"\(event.id)\"}")])
    }
}

/// What a `flaky` event throws on its first `succeedAt` handles (1 by default).
struct FlakyFailure: Error, CustomStringConvertible {
    var description: String { "flaky: fails its first tries" }
}

/// A batch's events are noted as one ``Observations/batches`` entry; `block` in a batch waits on
/// the gate first, and a batch fails while ``Observations/failBatches(_:)`` has failures left.
extension TestStage: BatchedInputHandler {
    func prepareEntry(_ message: InboundMessage) throws(Rejection) -> TestEvent {
        try EventDecoder.decode(TestEvent.self, from: message.record.value)
    }

    func handle(batch: [TestEvent]) async throws {
        if batch.contains(where: { $0.action == "block" }) {
            observations.noteHeld()
            try await gate.wait()
        }
        try observations.handle(batch: batch.map(\.id))
    }
}

/// What the stage saw: every handled delivery, and whether any record ran twice at once.
final class Observations: Sendable {
    struct Handled: Sendable {
        var id: String
        var attempt: Int
        var at: ContinuousClock.Instant
        var waitingSince: Date?
        var traceparent: String?
    }
    private struct State {
        var running: Set<String> = []
        var handled: [Handled] = []
        var overlaps: [String] = []
        var saved: [String] = []
        var batches: [[String]] = []
        var batchFailures = 0
        var failuresLeft = 0
        var heldBatches = 0
    }
    private let state = Mutex(State())

    struct BatchFailed: Error {}

    /// Makes the next `count` batches fail, as a Redis outage would.
    func failBatches(_ count: Int) { state.withLock { $0.failuresLeft = count } }

    func handle(batch ids: [String]) throws {
        try state.withLock { state in
            if state.failuresLeft > 0 {
                state.failuresLeft -= 1
                state.batchFailures += 1
                throw BatchFailed()
            }
            state.batches.append(ids)
        }
    }

    func noteHeld() { state.withLock { $0.heldBatches += 1 } }
    /// Batches that reached the gate with a `block` event.
    var heldBatches: Int { state.withLock { $0.heldBatches } }

    /// The ids of each batch handled, in order.
    var batches: [[String]] { state.withLock { $0.batches } }
    var batchFailures: Int { state.withLock { $0.batchFailures } }

    func begin(_ key: String, event: TestEvent, attempt: Int, waitingSince: Date?, traceparent: String?) throws {
        state.withLock { state in
            if !state.running.insert(key).inserted { state.overlaps.append(key) }
            state.handled.append(
                Handled(
                    id: event.id, attempt: attempt, at: ContinuousClock.now, waitingSince: waitingSince,
                    traceparent: traceparent))
        }
    }

    func end(_ key: String) { _ = state.withLock { $0.running.remove(key) } }
    var handled: [Handled] { state.withLock { $0.handled } }
    var overlaps: [String] { state.withLock { $0.overlaps } }
    /// Ids whose `deliver` ran its `afterDelivery`.
    func save(_ id: String) { state.withLock { $0.saved.append(id) } }
    var saved: [String] { state.withLock { $0.saved } }
}

/// A latch the `block` action waits on; waiting ends early when the task is cancelled.
final class Gate: Sendable {
    private let isOpen = Mutex(false)
    func open() { isOpen.withLock { $0 = true } }
    var isOpened: Bool { isOpen.withLock { $0 } }
    func wait() async throws {
        while !isOpen.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(20)) }
    }
}

/// One worker replica (runtime + retry promoter) in a service group of its own.
final class RuntimeReplica: Sendable {
    let stage: TestStage
    let group: ServiceGroup
    let task: Task<Void, any Error>

    /// A replica reading `inputs` (`in` by default) and writing `out` and `rejected` of `kafka`'s topics, in its group
    /// `test-stage`; `stage` defaults to a fresh ``TestStage`` writing to `out`.
    init(
        kafka: SharedKafka, stage: TestStage? = nil, retries: any RetryStore,
        idempotency: (any IdempotencyGuard)?, inputs: [String] = ["in"],
        metricsFactory: any MetricsFactory = MetricsSystem.factory,
        configure: (inout WorkerConfiguration) -> Void = { _ in }
    ) throws {
        let cluster = kafka.cluster
        let stage = stage ?? TestStage(output: kafka.topic("out"))
        var configuration = WorkerConfiguration(
            stage: "test", consumerGroup: kafka.group("test-stage"), inputTopics: inputs.map(kafka.topic),
            rejectTopic: kafka.topic("rejected"))
        configuration.retryPolicy = RetryPolicy(
            initialBackoff: .milliseconds(100), maxBackoff: .seconds(1), multiplier: 2, jitter: 0, maxAttempts: 3)
        configure(&configuration)
        let consumer = try KafkaConsumer(
            configuration: TestKafka.consumerConfiguration(
                cluster, group: configuration.consumerGroup, topics: configuration.inputTopics),
            logger: TestKafka.logger
        )
        let producer = try TestKafka.producer(cluster)
        let runtime = WorkerRuntime(
            configuration: configuration, handler: stage, consumer: consumer, producer: producer, retries: retries,
            idempotency: idempotency, logger: TestKafka.logger, metricsFactory: metricsFactory
        )
        let promoter = RetryPromoter(stage: "test", store: retries, producer: producer, logger: TestKafka.logger)
        self.stage = stage
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: [.init(service: promoter), .init(service: runtime)], logger: TestKafka.logger)
        )
        self.group = group
        task = Task {
            try await group.run()
            await producer.close()
        }
    }

    /// SIGTERM-like: drain running records, commit, leave the group.
    func stop() async throws {
        await group.triggerGracefulShutdown()
        try await task.value
    }

    /// Crash-like: cancel everything mid-flight; unfinished records stay uncommitted.
    func kill() async {
        task.cancel()
        _ = await task.result
    }
}

enum TestEvents {
    /// Publishes `events` to `topic`: the test's `in`.
    static func publish(
        _ producer: KafkaProducer, to topic: String, _ events: [(id: String, action: String)], extra: String = ""
    ) async throws {
        let records = events.map { event in
            KafkaRecord(
                topic: topic, key: event.id,
                value: "{\"schema\":\"test.v1\",\"id\":\"\(event.id)\",\"action\":\"\(event.action)\"\(extra)}")
        }
        _ = try await producer.send(records)
    }
}
