import Dispatch
import Kafka
import LocalServices
import Logging
import Synchronization
import TestSupport
import Testing

/// A handle's destroy (`rd_kafka_destroy` joins librdkafka's threads) never runs on the thread
/// that released the handle: on Swift's cooperative pool it stalled every other task of the
/// process (session 26, performance.md).
@Suite(.timeLimit(.minutes(2))) struct TeardownTests {
    /// A producer released by a task: librdkafka's own "terminating" line, which
    /// `rd_kafka_destroy` logs on the thread that calls it, comes from outside any task.
    @Test func aReleasedHandleIsDestroyedOffTheReleasingTask() async throws {
        let kafka = try await TestKafka.shared(topics: ["t": 1])
        // Whether each of librdkafka's log lines was logged from inside a task.
        let log = LogCapture { ["inTask": "\(withUnsafeCurrentTask { $0 != nil })"] }
        await Task {
            var configuration = KafkaProducerConfiguration(bootstrapServers: kafka.cluster.bootstrapServers)
            configuration.additionalProperties = ["debug": "generic"]
            let producer = try? KafkaProducer(configuration: configuration, logger: log.logger(level: .debug))
            _ = try? await producer?.send([KafkaRecord(topic: kafka.topic("t"), key: "k", value: "v")])
            await producer?.close()
        }.value
        let terminating = try await eventually("librdkafka logged its destroy") {
            log.entries(containing: "Terminating instance").first
        }
        #expect(
            terminating.metadata["inTask"] == "false", "rd_kafka_destroy ran inside the task that released the producer"
        )
    }

    /// `detach` returns while its teardown still runs.
    @Test func detachReturnsBeforeItsTeardownEnds() async throws {
        let release = DispatchSemaphore(value: 0)
        let ended = Atomic<Bool>(false)
        BlockingExecutor.detach {
            release.wait()
            ended.store(true, ordering: .releasing)
        }
        let endedBeforeReturn = ended.load(ordering: .acquiring)
        #expect(!endedBeforeReturn)
        release.signal()
        try await eventually("the teardown ended") { ended.load(ordering: .acquiring) ? true : nil }
    }
}
