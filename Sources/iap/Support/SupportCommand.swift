import ArgumentParser
import Customers
import Foundation
import Hosting
import Kafka
import Pipeline
import Redis
import Settings
import SupportTools
import WorkerCommon

/// `iap support order|refunds|history|status`: what Apple says about a customer, checked with
/// verify's trust, beside what the pipeline did (docs/operations.md, "Support").
struct SupportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "support",
        abstract:
            "Look a customer up with Apple (orders, refunds, history, statuses) and act there (finish, app account token, app transaction, extensions).",
        discussion: """
            Reads verify's settings (IAP_BUNDLE_ID, IAP_APPLE_KEY_ID, IAP_APPLE_ISSUER_ID, IAP_APPLE_PRIVATE_KEY_PATH, \
            IAP_APPLE_ROOT_CERTIFICATES, IAP_ENVIRONMENT, …), KAFKA_BROKERS, REDIS_URL (grant's) and IAP_PIPELINE \
            through the settings layer (environment, IAP_CONFIG_FILE). Every signed item is checked as verify \
            checks it. Exit status: 0 answered, 1 an error (Apple, settings, Kafka, Redis), 3 Apple knows no such order.
            """,
        subcommands: [
            SupportOrderCommand.self, SupportRefundsCommand.self, SupportHistoryCommand.self,
            SupportStatusCommand.self, SupportFinishCommand.self, SupportAppAccountTokenCommand.self,
            SupportAppTransactionCommand.self, SupportExtendCommand.self, SupportExtendStatusCommand.self,
        ]
    )
}

/// Shared by the support subcommands: settings, the JSON/text switch and error output.
enum SupportRun {
    /// - Parameter bundleId: `--bundle-id`; required when the deployment serves several apps.
    static func settings(app bundleId: String? = nil) async throws -> SupportSettings {
        try SupportSettings(reader: try await SettingsReader.load(), bundleId: bundleId)
    }

    /// Runs `body`; a failure is printed (as `{"error", "message"}` with `--json`) and exits 1.
    static func run(json: Bool, _ body: () async throws -> Void) async throws {
        do {
            try await body()
        } catch let exit as ExitCode {
            throw exit
        } catch {
            let (code, message) =
                if let support = error as? SupportError { (support.code.rawValue, support.detail) } else {
                    ("failed", "\(error)")
                }
            printError(code: code, message: message, json: json)
            throw ExitCode(1)
        }
    }

    /// `{"error": code, "message": …}` with `--json`, else `iap support: <message>` on stderr.
    static func printError(code: String, message: String, json: Bool) {
        if json {
            CLIInput.printError(code: code, message: message)
        } else {
            FileHandle.standardError.write(Data("iap support: \(message)\n".utf8))
        }
    }

    static func print(_ value: some Encodable, json: Bool, text: () -> String) throws {
        Swift.print(json ? try SupportJSON.encode(value) : text())
    }
}

struct SupportOrderCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "order",
        abstract: "Look Up Order ID: the order's transactions, verified, with grant's state of each purchase.",
        discussion: """
            --republish feeds the verified transactions to intake as iap.purchase.v1 events (source "reconcile", \
            the transaction id as payload, eventId derived from order and transaction): the pipeline then applies \
            whatever it missed. Running it twice changes nothing. The user is grant's owner of the purchase; \
            --user-id names it for a purchase grant never saw.
            """
    )

    @Argument(help: "The order id from the customer's Apple receipt email.")
    var orderId: String

    @Flag(name: .long, help: "Publish the verified transactions to intake again.")
    var republish = false

    @Option(name: .customLong("user-id"), help: "With --republish: the user of purchases grant never saw.")
    var userId: String?

    @Option(name: .customLong("bundle-id"), help: "The app (required when the deployment serves several).")
    var bundleId: String?

    @Flag(name: .long, help: "Print the report as JSON.")
    var json = false

    func run() async throws {
        try await SupportRun.run(json: json) {
            let settings = try await SupportRun.settings(app: bundleId)
            let logger = CLILogging.logger("iap.support")
            let lookups = try settings.appleLookups(logger: logger)
            let redis = try settings.redisClient(logger: logger)
            var report: OrderReport
            do {
                report = try await OrderReport.make(
                    orderId: orderId, lookups: lookups, grants: RedisEntitlementStateStore(client: redis))
            } catch {
                await redis.shutdown()
                throw error
            }
            await redis.shutdown()
            if republish {
                let republisher = OrderRepublisher(
                    purchasesTopic: try settings.purchasesTopic(), bundleId: settings.app.bundleId)
                let events = try republisher.events(for: report, userId: userId)
                let kafka = try KafkaProducer(
                    configuration: settings.kafka.producer(clientId: "iap-support"), logger: logger)
                do {
                    report.republished = try await republisher.publish(events, with: kafka)
                } catch {
                    await kafka.close()
                    throw error
                }
                await kafka.close()
            }
            try SupportRun.print(report, json: json) { SupportText.order(report) }
            if !report.found { throw ExitCode(3) }
        }
    }
}

/// What every customer lookup takes: a transaction id and `--json`.
struct CustomerLookupArguments: ParsableArguments {
    @Argument(help: "Any transaction id of the customer.")
    var transactionId: String

    @Option(name: .customLong("bundle-id"), help: "The app (required when the deployment serves several).")
    var bundleId: String?

    @Flag(name: .long, help: "Print the report as JSON.")
    var json = false

    /// Asks Apple with verify's settings and prints the report, as JSON or as `text`.
    func run<Report: Encodable>(
        _ lookup: (AppleCustomerLookups, String) async throws -> Report, text: (Report) -> String
    ) async throws {
        try await SupportRun.run(json: json) {
            let lookups = try await SupportRun.settings(app: bundleId).appleLookups(
                logger: CLILogging.logger("iap.support"))
            let report = try await lookup(lookups, transactionId)
            try SupportRun.print(report, json: json) { text(report) }
        }
    }
}

struct SupportRefundsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "refunds", abstract: "Get Refund History: every refunded transaction of the customer, verified.")

    @OptionGroup var lookup: CustomerLookupArguments

    func run() async throws {
        try await lookup.run({ try await $0.refunds(of: $1) }, text: { SupportText.transactions("refunds", $0) })
    }
}

struct SupportHistoryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history",
        abstract: "Get Transaction History: every transaction of the customer in this app, verified.",
        discussion: """
            --pipeline prints the pipeline's own history of the transaction instead: every stage's decision \
            (accepted, verified, matched, changed, no effect, rejected, …) from the audit trail's index in the \
            state stage's Redis (decision D51), oldest first. It needs REDIS_URL and the app (--bundle-id, else \
            the deployment's only app), not Apple; exit status 3 when no decision about the transaction is known.
            """)

    @OptionGroup var lookup: CustomerLookupArguments

    @Flag(name: .long, help: "The pipeline's decisions about the transaction (the audit trail), not Apple's history.")
    var pipeline = false

    func run() async throws {
        guard pipeline else {
            try await lookup.run(
                { try await $0.history(of: $1) }, text: { SupportText.transactions("transactions", $0) })
            return
        }
        try await SupportRun.run(json: lookup.json) {
            let reader = try await SettingsReader.load()
            let bundleId = try lookup.bundleId ?? SupportSettings(reader: reader).app.bundleId
            let redis = RedisClient(
                configuration: try RedisSettings(reader: reader).configuration(),
                logger: CLILogging.logger("iap.support"))
            let history: TransactionHistory?
            do {
                history = try await RedisAuditIndex(client: redis).history(
                    bundleId: bundleId, transactionId: lookup.transactionId)
            } catch {
                await redis.shutdown()
                throw error
            }
            await redis.shutdown()
            guard let history else {
                SupportRun.printError(
                    code: "not_found", message: "no decision about transaction \(lookup.transactionId) is known",
                    json: lookup.json)
                throw ExitCode(3)
            }
            try SupportRun.print(history, json: lookup.json) { SupportText.timeline(history) }
        }
    }
}

struct SupportStatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Get All Subscription Statuses: per group, status, last transaction and renewal info, verified.")

    @OptionGroup var lookup: CustomerLookupArguments

    func run() async throws {
        try await lookup.run({ try await $0.statuses(of: $1) }, text: { SupportText.statuses($0) })
    }
}
