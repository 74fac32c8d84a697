import AppStoreModels
import ArgumentParser
import Contracts
import Foundation
import Hosting
import Kafka
import Pipeline
import Purchases
import Topology
import Traces
import Tracing

/// `iap publish`: publish purchase and order events the way a backend does, for trying the
/// pipeline from a shell.
struct PublishCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "publish",
        abstract: "Publish iap.purchase.v1 / iap.order.v1 events (as a backend would).",
        subcommands: [PublishPurchaseCommand.self, PublishOrderCommand.self, PublishFileCommand.self]
    )
}

struct PublishOptions: ParsableArguments {
    @Option(help: "Kafka bootstrap servers (default: KAFKA_BROKERS).") var brokers: String?
    @Option(help: "Pipeline file naming the topics (default: IAP_PIPELINE).") var pipeline: String?
    @Option(name: .customLong("purchases-topic"), help: "Default: the pipeline file's (intake's purchases input).")
    var purchasesTopic: String?
    @Option(name: .customLong("orders-topic"), help: "Default: the pipeline file's (match's orders input).")
    var ordersTopic: String?
    @Option(
        help: """
            W3C traceparent to continue (00-<trace id>-<span id>-<flags>); default, or when malformed: \
            each record starts a trace. Every record gets a traceparent header (docs/events.md).
            """)
    var traceparent: String?

    /// The topics from the pipeline file, each overridden by its option; with both options
    /// given the file is not read.
    func topics(_ settings: CLISettings) throws -> ContractTopics {
        if let purchasesTopic, let ordersTopic {
            var topics = ContractTopics()
            (topics.purchases, topics.orders) = (purchasesTopic, ordersTopic)
            return topics
        }
        var topics = try ContractTopics(pipeline: PipelineFile.load(path: settings.pipelinePath(pipeline)))
        if let purchasesTopic { topics.purchases = purchasesTopic }
        if let ordersTopic { topics.orders = ordersTopic }
        return topics
    }

    /// Writes the records, each under its own publish span, and waits until the broker
    /// acknowledged every one.
    func send(_ records: [KafkaRecord], _ settings: CLISettings) async throws {
        let tracer = PropagatingTracer()
        let parent = tracer.extracting(
            from: traceparent.map { [KafkaHeader(name: TraceHeaders.traceparent, string: $0)] } ?? [])
        let records = records.map { record in
            var record = record
            let span = tracer.startSpan("publish", context: parent, ofKind: .producer)
            record.headers = tracer.injecting(span.context, into: record.headers)
            return record
        }
        let cluster = try settings.cluster(brokers: brokers)
        let producer = try KafkaProducer(
            configuration: cluster.producer(clientId: "iap-publish"), logger: CLILogging.logger("iap.publish"))
        do {
            _ = try await producer.send(records)
        } catch {
            await producer.close()
            throw error
        }
        await producer.close()
        for record in records {
            let traceparent = record.headers.last(named: TraceHeaders.traceparent)?.stringValue ?? "-"
            print("\(record.topic) <- \(String(decoding: record.value, as: UTF8.self)) traceparent=\(traceparent)")
        }
    }
}

struct PublishPurchaseCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "purchase", abstract: "Publish one iap.purchase.v1 event (exactly one of the payload options)."
    )

    @OptionGroup var options: PublishOptions
    @Option(name: .customLong("user")) var userId: String
    @Option(name: .customLong("bundle-id")) var bundleId: String
    @Option(name: .customLong("event-id"), help: "Default: a new UUID.") var eventId: String?
    @Option(name: .customLong("order-id")) var orderId: String?
    @Option(name: .customLong("app-account-token")) var appAccountToken: String?
    @Option(help: "Production or Sandbox (a hint; only what Apple signed is trusted).") var environment: String?
    @Option(name: .customLong("signed-transaction"), help: "StoreKit 2 jwsRepresentation.") var signedTransaction:
        String?
    @Option(name: .customLong("app-receipt"), help: "Base64 app receipt.") var appReceipt: String?
    @Option(name: .customLong("transaction-receipt"), help: "Base64 StoreKit 1 transactionReceipt.")
    var transactionReceipt: String?
    @Option(name: .customLong("transaction-id"), help: "A bare transaction id.") var transactionId: String?
    @Option(
        name: .customLong("app-transaction"),
        help: "StoreKit 2 AppTransaction jwsRepresentation (the app's own purchase).")
    var appTransaction: String?

    func run() async throws {
        let payloads: [PurchasePayload] = [
            signedTransaction.map(PurchasePayload.signedTransaction), appReceipt.map(PurchasePayload.appReceipt),
            transactionReceipt.map(PurchasePayload.transactionReceipt),
            transactionId.map(PurchasePayload.transactionId), appTransaction.map(PurchasePayload.appTransaction),
        ].compactMap { $0 }
        guard payloads.count == 1, let payload = payloads.first else {
            throw ValidationError(
                "give exactly one of --signed-transaction, --app-receipt, --transaction-receipt, --transaction-id,"
                    + " --app-transaction")
        }
        let event = PurchaseEvent(
            eventId: eventId ?? UUID().uuidString, bundleId: bundleId, userId: userId, payload: payload,
            orderId: orderId,
            appAccountToken: appAccountToken,
            environment: try environment.map { text in try CLIEnvironment.parse(text) },
            source: payload.kind == .signedTransaction || payload.kind == .appTransaction ? .storeKit2 : .storeKit1
        )
        let settings = try await CLISettings.load()
        try await options.send([try options.topics(settings).record(event)], settings)
    }
}

struct PublishOrderCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "order", abstract: "Publish one iap.order.v1 event.")

    @OptionGroup var options: PublishOptions
    @Option(name: .customLong("order-id")) var orderId: String
    @Option(name: .customLong("user")) var userId: String
    @Option(name: .customLong("product-id")) var productId: String
    @Option(name: .customLong("bundle-id")) var bundleId: String
    @Option(name: .customLong("app-account-token")) var appAccountToken: String?
    @Option var quantity: Int?

    func run() async throws {
        let order = OrderEvent(
            orderId: orderId, userId: userId, productId: productId, bundleId: bundleId,
            appAccountToken: appAccountToken, quantity: quantity)
        let settings = try await CLISettings.load()
        try await options.send([try options.topics(settings).record(order)], settings)
    }
}

struct PublishFileCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "file",
        abstract: "Publish JSON lines (iap.purchase.v1 and iap.order.v1 events) from a file or '-' for stdin."
    )

    @OptionGroup var options: PublishOptions
    @Argument var path: String

    func run() async throws {
        let data =
            path == "-"
            ? FileHandle.standardInput.readDataToEndOfFile() : try Data(contentsOf: URL(fileURLWithPath: path))
        let settings = try await CLISettings.load()
        let topics = try options.topics(settings)
        var records: [KafkaRecord] = []
        for (number, line) in String(decoding: data, as: UTF8.self).split(separator: "\n").enumerated()
        where !line.trimmingCharacters(in: .whitespaces).isEmpty {
            let bytes = Array(line.utf8)
            do {
                switch try EventDecoder.schema(of: bytes) {
                case OrderEvent.schema:
                    records.append(try topics.record(try EventDecoder.decode(OrderEvent.self, from: bytes)))
                default: records.append(try topics.record(try EventDecoder.decode(PurchaseEvent.self, from: bytes)))
                }
            } catch {
                throw ValidationError("line \(number + 1): \(error)")
            }
        }
        try await options.send(records, settings)
    }
}

enum CLIEnvironment {
    static func parse(_ text: String) throws -> AppStoreEnvironment {
        switch text {
        case "Production": .production
        case "Sandbox": .sandbox
        default: throw ValidationError("environment must be Production or Sandbox")
        }
    }
}
