import ArgumentParser
import Hosting
import Kafka
import Redis

@main
struct IAPCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "iap",
        abstract: "Operate the iap-pipeline: dev stack, topics, lag, the order index, support lookups, benchmarks.",
        version: "\(BuildInfo.versionLine); librdkafka \(LibrdKafka.version), hiredis \(Hiredis.version)",
        subcommands: [
            DevCommand.self, DemoCommand.self, PublishCommand.self, SimCommand.self, TopicsCommand.self,
            LagCommand.self, DLQCommand.self, OrdersCommand.self, ConfigCommand.self, JWSCommand.self,
            ReceiptCommand.self, BenchCommand.self, SoakCommand.self, ReconcileCommand.self, SupportCommand.self,
            NotificationsCommand.self,
        ]
    )
}
