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
    /// Records whether each of librdkafka's log lines was logged from inside a task.
    final class TaskContextLog: Sendable {
        private let lines = Mutex<[(message: String, inTask: Bool)]>([])

        var logger: Logger {
            var logger = Logger(label: "teardown") { _ in Handler(capture: self) }
            logger.logLevel = .debug
            return logger
        }

        func lines(containing text: String) -> [(message: String, inTask: Bool)] {
            lines.withLock { $0.filter { $0.message.contains(text) } }
        }

        struct Handler: LogHandler {
            let capture: TaskContextLog
            var metadata: Logger.Metadata = [:]
            var logLevel: Logger.Level = .debug

            subscript(metadataKey key: String) -> Logger.Metadata.Value? {
                get { metadata[key] }
                set { metadata[key] = newValue }
            }

            func log(event: LogEvent) {
                let inTask = withUnsafeCurrentTask { $0 != nil }
                capture.lines.withLock { $0.append(("\(event.message)", inTask)) }
            }
        }
    }

    /// A producer released by a task: librdkafka's own "terminating" line, which
    /// `rd_kafka_destroy` logs on the thread that calls it, comes from outside any task.
    @Test func aReleasedHandleIsDestroyedOffTheReleasingTask() async throws {
        let kafka = try await TestKafka.shared(topics: ["t": 1])
        let log = TaskContextLog()
        await Task {
            var configuration = KafkaProducerConfiguration(bootstrapServers: kafka.cluster.bootstrapServers)
            configuration.additionalProperties = ["debug": "generic"]
            let producer = try? KafkaProducer(configuration: configuration, logger: log.logger)
            _ = try? await producer?.send([KafkaRecord(topic: kafka.topic("t"), key: "k", value: "v")])
            await producer?.close()
        }.value
        let terminating = try await eventually("librdkafka logged its destroy") {
            log.lines(containing: "Terminating instance").first
        }
        #expect(!terminating.inTask, "rd_kafka_destroy ran inside the task that released the producer")
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
