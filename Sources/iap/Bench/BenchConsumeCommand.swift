import ArgumentParser
import Foundation
import Kafka

/// `iap bench consume`: the Swift consumer's rate against kcat's on the same broker and data.
struct BenchConsumeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "consume",
        abstract: "Consume rate of KafkaConsumer vs kcat on one mock-cluster topic, as a ratio (target ≥ 0.8)."
    )

    @Option(help: "Messages to publish and consume.") var messages = 1_000_000
    @Option(help: "Bytes per message value.") var size = 100
    @Option(help: "Partitions of the benchmark topic.") var partitions: Int32 = 4
    @Option(help: "Path of kcat (Debian package kcat).") var kcat = "/usr/bin/kcat"
    @Flag(help: "Print the result as JSON.") var json = false

    func run() async throws {
        let logger = CLILogging.logger("iap.bench")
        let cluster = try KafkaMockCluster(brokers: 1, logger: logger)
        try cluster.createTopic("bench", partitions: partitions)
        try await publish(to: cluster)

        let kcatSeconds = try runKcat(cluster.bootstrapServers)
        let swiftSeconds = try await consumeWithSwift(cluster.bootstrapServers)
        let swiftRate = Double(messages) / swiftSeconds
        let kcatRate = Double(messages) / kcatSeconds
        let result: [String: Double] = [
            "messages": Double(messages), "swiftSeconds": swiftSeconds, "kcatSeconds": kcatSeconds,
            "swiftPerSecond": swiftRate.rounded(), "kcatPerSecond": kcatRate.rounded(), "ratio": (swiftRate / kcatRate * 1000).rounded() / 1000,
        ]
        if json {
            let data = try JSONSerialization.data(withJSONObject: result, options: [.sortedKeys])
            print(String(decoding: data, as: UTF8.self))
        } else {
            print("messages: \(messages) × \(size) B over \(partitions) partitions")
            print("swift KafkaConsumer: \(Int(swiftRate)) msg/s (\(String(format: "%.2f", swiftSeconds)) s)")
            print("kcat:                \(Int(kcatRate)) msg/s (\(String(format: "%.2f", kcatSeconds)) s)")
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
            let records = (start..<min(start + chunk, messages)).map { KafkaRecord(topic: "bench", key: Array("k\($0 % 1024)".utf8), value: value) }
            _ = try await producer.send(records)
        }
        await producer.close()
    }

    /// Group consumption, timed from the first record to the last, so the mock cluster's
    /// 3-second initial group-join delay (an artefact of the mock) is not counted.
    private func consumeWithSwift(_ bootstrap: String) async throws -> Double {
        var configuration = KafkaConsumerConfiguration(bootstrapServers: bootstrap, groupId: "bench-\(UUID().uuidString)", topics: ["bench"])
        configuration.additionalProperties = ["fetch.max.bytes": "52428800", "queued.max.messages.kbytes": "262144"]
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
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }

    /// kcat as a simple (assign-mode) consumer: no group join to exclude, so its whole run counts.
    private func runKcat(_ bootstrap: String) throws -> Double {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: kcat)
        process.arguments = ["-C", "-b", bootstrap, "-t", "bench", "-o", "beginning", "-e", "-q", "-f", "%o\n"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        let clock = ContinuousClock()
        let started = clock.now
        try process.run()
        var lines = 0
        let handle = output.fileHandleForReading
        while let data = try handle.read(upToCount: 1 << 20), !data.isEmpty {
            lines += data.reduce(0) { $0 + ($1 == UInt8(ascii: "\n") ? 1 : 0) }
        }
        process.waitUntilExit()
        let elapsed = clock.now - started
        guard lines == messages else { throw ValidationError("kcat read \(lines) of \(messages) messages") }
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }
}
