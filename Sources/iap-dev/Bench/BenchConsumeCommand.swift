import ArgumentParser
import Basics
import Foundation
import Hosting
import Kafka
import LocalServices
import LocalStack

/// `iap-dev bench consume`: the Swift consumer's rate and CPU against kcat's on the same broker
/// and data.
struct BenchConsumeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "consume",
        abstract: "Consume rate and CPU of KafkaConsumer vs kcat on one mock-cluster topic, as ratios (target ≥ 1.0).",
        discussion: """
            Both consumers are processes of their own reading the broker this process hosts: kcat -G, and \
            `iap-dev bench consume-child` (KafkaConsumer). Each writes every record's offset on a line, and this \
            process times each from its first line to its last and charges it the CPU (/proc/<pid>/stat) it used \
            between them, so start-up and the group join count for neither. Rounds alternate which goes first; \
            the ratios are the medians of each round's ratio, which a machine busy with something else moves \
            less than a ratio of medians.
            """
    )

    @Option(help: "Messages to publish and consume.") var messages = 1_000_000
    @Option(help: "Bytes per message value.") var size = 100
    /// The mock cluster keeps only about 5 MiB per partition (older message sets are trimmed),
    /// so the topic needs enough partitions to hold every message (decision D7).
    @Option(help: "Partitions of the benchmark topic (enough that each holds < 5 MiB).") var partitions: Int32 = 64
    @Option(help: "Path of kcat (Debian package kcat).") var kcat = "/usr/bin/kcat"
    @Option(help: "Rounds; each runs both consumers, alternating which goes first.") var rounds = 5
    @Flag(help: "Print the result as JSON.") var json = false

    func validate() throws {
        guard rounds >= 1 else { throw ValidationError("--rounds must be at least 1") }
    }

    func run() async throws {
        let logger = CLILogging.logger("iap.bench")
        let cluster = try KafkaMockCluster(brokers: 1, logger: logger)
        try await cluster.createTopic(Self.topic, partitions: partitions)
        try await publish(to: cluster)

        let bootstrap = cluster.bootstrapServers
        let this = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().path
        let swift = ConsumerCommand(executable: this) { group in
            ["bench", "consume-child", "--bootstrap", bootstrap, "--group", group, "--messages", String(messages)]
        }
        // kcat's balanced (group) consumer, the same librdkafka path as ours. (kcat's simple
        // consumer was slower here.)
        let settings = Self.fetchProperties.sorted { $0.key < $1.key }.flatMap { ["-X", "\($0.key)=\($0.value)"] }
        let kcat = ConsumerCommand(executable: kcat) { group in
            [
                "-C", "-b", bootstrap, "-G", group, "-X", "auto.offset.reset=earliest", "-c", String(messages), "-q",
                "-f", "%o\n",
            ] + settings + [Self.topic]
        }
        var swiftRuns: [ConsumeRun] = []
        var kcatRuns: [ConsumeRun] = []
        for round in 0..<rounds {
            if round % 2 == 0 {
                swiftRuns.append(try consume(swift, group: "bench-swift-\(UUID().uuidString)"))
                kcatRuns.append(try consume(kcat, group: "bench-kcat-\(UUID().uuidString)"))
            } else {
                kcatRuns.append(try consume(kcat, group: "bench-kcat-\(UUID().uuidString)"))
                swiftRuns.append(try consume(swift, group: "bench-swift-\(UUID().uuidString)"))
            }
        }
        let rateRatios = zip(swiftRuns, kcatRuns).map { $1.seconds / $0.seconds }
        let cpuRatios = zip(swiftRuns, kcatRuns).map { $0.cpuSeconds / $1.cpuSeconds }
        let swiftRate = Double(messages) / median(swiftRuns.map(\.seconds))
        let kcatRate = Double(messages) / median(kcatRuns.map(\.seconds))
        let swiftCPU = median(swiftRuns.map(\.cpuSeconds)) / Double(messages) * 1_000_000
        let kcatCPU = median(kcatRuns.map(\.cpuSeconds)) / Double(messages) * 1_000_000
        func rounded(_ value: Double) -> Double { (value * 1000).rounded() / 1000 }
        if json {
            let result: [String: Any] = [
                "messages": messages, "rounds": rounds,
                "swiftSeconds": swiftRuns.map(\.seconds), "kcatSeconds": kcatRuns.map(\.seconds),
                "swiftCPUSeconds": swiftRuns.map(\.cpuSeconds), "kcatCPUSeconds": kcatRuns.map(\.cpuSeconds),
                "swiftPerSecond": Int(swiftRate), "kcatPerSecond": Int(kcatRate),
                "swiftCPUMicrosecondsPerMessage": rounded(swiftCPU), "kcatCPUMicrosecondsPerMessage": rounded(kcatCPU),
                "ratio": rounded(median(rateRatios)), "ratios": rateRatios.map(rounded),
                "cpuRatio": rounded(median(cpuRatios)), "cpuRatios": cpuRatios.map(rounded),
            ]
            let data = try JSONSerialization.data(withJSONObject: result, options: [.sortedKeys])
            print(String(decoding: data, as: UTF8.self))
        } else {
            func list(_ values: [Double]) -> String { values.map { String(format: "%.2f", $0) }.joined(separator: " ") }
            print("messages: \(messages) × \(size) B over \(partitions) partitions, \(rounds) rounds")
            print(
                "swift KafkaConsumer: \(Int(swiftRate)) msg/s · \(String(format: "%.3f", swiftCPU)) µs CPU/msg"
                    + " (seconds \(list(swiftRuns.map(\.seconds))); CPU \(list(swiftRuns.map(\.cpuSeconds))))")
            print(
                "kcat -G:             \(Int(kcatRate)) msg/s · \(String(format: "%.3f", kcatCPU)) µs CPU/msg"
                    + " (seconds \(list(kcatRuns.map(\.seconds))); CPU \(list(kcatRuns.map(\.cpuSeconds))))")
            print("ratio swift/kcat:    \(String(format: "%.3f", median(rateRatios))) (rounds: \(list(rateRatios)))")
            print("CPU swift/kcat:      \(String(format: "%.3f", median(cpuRatios))) (rounds: \(list(cpuRatios)))")
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
                KafkaRecord(topic: Self.topic, key: Array("k\($0 % 1024)".utf8), value: value)
            }
            _ = try await producer.send(records)
        }
        await producer.close()
    }

    /// The topic both consumers read.
    static let topic = "bench"

    /// Prefetch settings both consumers get, so the ratio compares clients, not settings. The
    /// prefetch queue must hold more than a second of records: librdkafka 2.0.2 stops fetching
    /// once `queued.min.messages` or `queued.max.messages.kbytes` is reached and looks again only
    /// after a second (2.3.0 added `fetch.queue.backoff.ms` for this). With the defaults, both
    /// consumers read ~180,000 records and then waited out the second. Neither stores offsets:
    /// `KafkaConsumer` leaves that to its application, and kcat's default would store each
    /// record's under a lock that ours does not take.
    static let fetchProperties = [
        "fetch.max.bytes": "52428800", "queued.max.messages.kbytes": "262144", "queued.min.messages": "2000000",
        "enable.auto.offset.store": "false",
    ]

    /// One consume: the command's process, timed and charged CPU from its first output line to
    /// its last (the one that completes `messages` lines).
    private func consume(_ command: ConsumerCommand, group: String) throws -> ConsumeRun {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: command.executable)
        process.arguments = command.arguments(group)
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
        let pid = process.processIdentifier
        var lines = 0
        var first: (at: ContinuousClock.Instant, cpu: Double)?
        var last: (at: ContinuousClock.Instant, cpu: Double)?
        // read(2), not `FileHandle.read(upToCount:)`, which waits until it has the whole count:
        // each line is seen as soon as the pipe has it.
        let descriptor = output.fileHandleForReading.fileDescriptor
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            let now = clock.now
            // Read after the lines: what the process used up to them (a little more, never less).
            // Nil once it exited; the last sample then stands.
            let cpu = ProcessCPU.seconds(pid: pid)
            if first == nil, let cpu { first = (now, cpu) }
            lines += buffer[..<count].reduce(0) { $0 + ($1 == UInt8(ascii: "\n") ? 1 : 0) }
            if let cpu { last = (now, cpu) }
        }
        if exited.wait(timeout: .now() + 10) == .timedOut { process.terminate() }
        guard lines == messages, let first, let last else {
            let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile().suffix(2000), as: UTF8.self)
            throw ValidationError(
                "\(command.executable) read \(lines) of \(messages) messages (more partitions? the mock keeps ~5 MiB each): \(stderr)"
            )
        }
        return ConsumeRun(seconds: (last.at - first.at).seconds, cpuSeconds: last.cpu - first.cpu)
    }

    private func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted[sorted.count / 2]
    }
}

/// A consumer to run: its executable and its arguments for a group of its own.
private struct ConsumerCommand {
    var executable: String
    var arguments: (_ group: String) -> [String]
}

/// One consume's wall time and CPU, from its first record to its last.
private struct ConsumeRun {
    var seconds: Double
    var cpuSeconds: Double
}
