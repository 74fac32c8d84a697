import ArgumentParser
import Hosting
import Kafka
import Redis

/// The operator CLI, the one command-line tool the production image ships: it reaches the
/// cluster, Redis and Apple the deployed processes reach and links none of the local stand-ins
/// (`DependencyClosureTests`). The developer tools (`dev`, `demo`, `sim`, `soak`, `bench`) are
/// `iap-dev` (decision D46).
@main
struct IAPCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "iap",
        abstract:
            "Operate the iap-pipeline: topics, lag, dead letters, the order index, reconcile, support lookups, offer signatures.",
        version: "\(BuildInfo.versionLine); librdkafka \(LibrdKafka.version), hiredis \(Hiredis.version)",
        subcommands: [
            PublishCommand.self, TopicsCommand.self, LagCommand.self, DLQCommand.self, OrdersCommand.self,
            ConfigCommand.self, JWSCommand.self, ReceiptCommand.self, ReconcileCommand.self, SupportCommand.self,
            NotificationsCommand.self, APIKeyCommand.self, OffersCommand.self,
        ]
    )
}
