import ArgumentParser
import Basics
import Foundation
import Hosting
import Kafka
import LocalServices

/// `iap-dev bench consume`: the Swift consumer's rate against kcat's on the same broker and data.
struct BenchConsumeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "consume",
        abstract: "Consume rate of KafkaConsumer vs kcat on one mock-cluster topic, as a ratio (target ≥ 0.8)."
    )

    @Option(help: "Messages to publish and consume.") var messages = 1_000_000
    @Option(help: "Bytes per message value.") var size = 100
    /// The mock cluster keeps only about 5 MiB per partition (older message sets are trimmed),
    /// so the topic needs enough partitions to hold every message (decision D7).
    @Option(help: "Partitions of the benchmark topic (enough that each holds < 5 MiB).") var partitions: Int32 = 64
    @Option(help: "Path of kcat (Debian package kcat).") var kcat = "/usr/bin/kcat"
    @Option(help: "Alternating rounds of each consumer; medians are reported.") var rounds = 3
    @Flag(help: "Print the result as JSON.") var json = false

    func run() async throws {
        let logger = CLILogging.logger("iap.bench")
        let cluster = try KafkaMockCluster(brokers: 1, logger: logger)
        try await cluster.createTopic("bench", partitions: partitions)
        try await publish(to: cluster)

        // Both sides are group consumers timed from their first record to their last, each
        // round in a fresh group, alternating which goes first; medians smooth out the noise
        // of a broker that shares this process's cores.
        var swiftTimes: [Double] = []
        var kcatTimes: [Double] = []
        for round in 0..<rounds {
            if round % 2 == 0 {
                swiftTimes.append(try await consumeWithSwift(cluster.bootstrapServers))
                kcatTimes.append(try runKcat(cluster.bootstrapServers))
            } else {
                kcatTimes.append(try runKcat(cluster.bootstrapServers))
                swiftTimes.append(try await consumeWithSwift(cluster.bootstrapServers))
            }
        }
        let swiftSeconds = median(swiftTimes)
        let kcatSeconds = median(kcatTimes)
        let swiftRate = Double(messages) / swiftSeconds
        let kcatRate = Double(messages) / kcatSeconds
        let result: [String: Any] = [
            "messages": messages, "rounds": rounds, "swiftSeconds": swiftTimes, "kcatSeconds": kcatTimes,
            "swiftPerSecond": Int(swiftRate), "kcatPerSecond": Int(kcatRate),
            "ratio": (swiftRate / kcatRate * 1000).rounded() / 1000,
        ]
        if json {
            let data = try JSONSerialization.data(withJSONObject: result, options: [.sortedKeys])
            print(String(decoding: data, as: UTF8.self))
        } else {
            print("messages: \(messages) × \(size) B over \(partitions) partitions")
            print(
                "swift KafkaConsumer: \(Int(swiftRate)) msg/s (median of \(swiftTimes.map { String(format: "%.2f", $0) }) s)"
            )
            print(
                "kcat -G:             \(Int(kcatRate)) msg/s (median of \(kcatTimes.map { String(format: "%.2f", $0) }) s)"
            )
            print("ratio swift/kcat:    \(String(format: "%.3f", swiftRate / kcatRate))")
        }
    }

    private func publish(to cluster: KafkaMockCluster) async throws {
        var configuration = KafkaProducerConfiguration(bootstrapServers: cluster.bootstrapServers)
        configuration.linger = .milliseconds(20)
        configuration.additionalProperties = ["queue.buffering.max.messages": "2000000", "batch.num.messages": "10000"]
        let producer = try KafkaProducer(configuration: configuration, logger: CLILogging.logger("iap.bench"))
        let value = [UInt8](repeating: UInt8(ascii: "x"), count: size)
        let chunk = 50_000
        for start in stride(from: 0, to: messages, by: chunk) {
            let records = (start..<min(start + chunk, messages)).map {
                KafkaRecord(topic: "bench", key: Array("k\($0 % 1024)".utf8), value: value)
            }
            _ = try await producer.send(records)
        }
        await producer.close()
    }

    /// Prefetch settings both consumers get, so the ratio compares clients, not settings. The
    /// prefetch queue must hold more than a second of records: librdkafka 2.0.2 stops fetching
    /// once `queued.min.messages` or `queued.max.messages.kbytes` is reached and looks again only
    /// after a second (2.3.0 added `fetch.queue.backoff.ms` for this). With the defaults, both
    /// consumers read ~180,000 records and then waited out the second.
    static let fetchProperties = [
        "fetch.max.bytes": "52428800", "queued.max.messages.kbytes": "262144", "queued.min.messages": "2000000",
    ]

    /// Group consumption, timed from the first record to the last, so the mock cluster's
    /// 3-second initial group-join delay (an artefact of the mock) is not counted.
    private func consumeWithSwift(_ bootstrap: String) async throws -> Double {
        var configuration = KafkaConsumerConfiguration(
            bootstrapServers: bootstrap, groupId: "bench-\(UUID().uuidString)", topics: ["bench"])
        configuration.additionalProperties = Self.fetchProperties
        let consumer = try KafkaConsumer(configuration: configuration, logger: CLILogging.logger("iap.bench"))
        let clock = ContinuousClock()
        var first: ContinuousClock.Instant?
        var count = 0
        loop: for await event in consumer.events {
            switch event {
            case .messages(let batch):
                if first == nil { first = clock.now }
                count += batch.count
                if count >= messages { break loop }
            case .assigned:
                continue
            case .revoked(_, _, let acknowledgement):
                acknowledgement.acknowledge()
            }
        }
        let elapsed = clock.now - (first ?? clock.now)
        await consumer.close()
        return elapsed.seconds
    }

    /// kcat's balanced (group) consumer, the same librdkafka path as ours, timed from its first
    /// output line to its last. (kcat's simple consumer was slower here, and its run would
    /// include start-up that ours excludes.)
    private func runKcat(_ bootstrap: String) throws -> Double {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: kcat)
        process.arguments =
            [
                "-C", "-b", bootstrap, "-G", "bench-kcat-\(UUID().uuidString)", "-X", "auto.offset.reset=earliest",
                "-c", String(messages), "-q", "-f", "%o\n",
            ] + Self.fetchProperties.sorted { $0.key < $1.key }.flatMap { ["-X", "\($0.key)=\($0.value)"] } + ["bench"]
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        // Not `waitUntilExit()`: it spins the caller's run loop and can miss a child that
        // already exited (see `LocalRedisServer`). The handler is set before `run()`.
        let exited = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in exited.signal() }
        let clock = ContinuousClock()
        try process.run()
        var lines = 0
        var first: ContinuousClock.Instant?
        let handle = output.fileHandleForReading
        while let data = try handle.read(upToCount: 1 << 20), !data.isEmpty {
            if first == nil { first = clock.now }
            lines += data.reduce(0) { $0 + ($1 == UInt8(ascii: "\n") ? 1 : 0) }
        }
        let last = clock.now
        if exited.wait(timeout: .now() + 10) == .timedOut { process.terminate() }
        guard lines == messages, let first else {
            let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile().suffix(2000), as: UTF8.self)
            throw ValidationError(
                "kcat read \(lines) of \(messages) messages (more partitions? the mock keeps ~5 MiB each): \(stderr)")
        }
        return (last - first).seconds
    }

    private func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted[sorted.count / 2]
    }
}
