import ArgumentParser
import Basics
import Hosting
import Kafka

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `iap-dev bench consume-child`: the Swift side of `bench consume`, a process of its own as kcat
/// is, writing what kcat's `-f '%o\n'` writes (each record's offset on a line of its own, through
/// a 4 KiB buffer), so both sides are timed and charged CPU by the same code in the parent.
struct BenchConsumeChildCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "consume-child",
        abstract: "One group consumer for `bench consume`: prints each record's offset, exits after --messages.",
        shouldDisplay: false
    )

    @Option(help: "The broker (the parent's mock cluster).") var bootstrap: String
    @Option(help: "A group of its own.") var group: String
    @Option(help: "Records to read before exiting.") var messages: Int

    func run() async throws {
        // The topic and settings are the parent's own, read from the same binary: kcat gets the
        // same settings as `-X` arguments.
        var configuration = KafkaConsumerConfiguration(
            bootstrapServers: bootstrap, groupId: group, topics: [BenchConsumeCommand.topic])
        configuration.additionalProperties = BenchConsumeCommand.fetchProperties
        let consumer = try KafkaConsumer(configuration: configuration, logger: CLILogging.logger("iap.bench"))
        var output = OffsetLines()
        var count = 0
        loop: for await event in consumer.events {
            switch event {
            case .messages(let batch):
                for message in batch { output.append(message.offset) }
                count += batch.count
                if count >= messages { break loop }
            case .assigned:
                continue
            case .revoked(_, _, let acknowledgement):
                acknowledgement.acknowledge()
            }
        }
        output.flush()
        await consumer.close()
    }
}

/// Offsets as decimal lines on standard output, written 4 KiB at a time as glibc's `stdio` writes
/// kcat's `fprintf`s to a pipe (its block size; `strace` counted 247 writes for 200,000 lines),
/// without formatting a `String` per record.
private struct OffsetLines {
    private var buffer: [UInt8] = []

    init() { buffer.reserveCapacity(Self.capacity) }

    private static let capacity = 4 * 1024

    mutating func append(_ offset: Int64) {
        withDecimalDigits(of: offset) { buffer.append(contentsOf: $0) }
        buffer.append(UInt8(ascii: "\n"))
        if buffer.count >= Self.capacity - 24 { flush() }
    }

    mutating func flush() {
        var written = 0
        buffer.withUnsafeBytes { bytes in
            while written < bytes.count {
                let result = write(1, bytes.baseAddress! + written, bytes.count - written)
                if result < 0 && errno == EINTR { continue }
                guard result > 0 else { return }
                written += result
            }
        }
        buffer.removeAll(keepingCapacity: true)
    }
}
