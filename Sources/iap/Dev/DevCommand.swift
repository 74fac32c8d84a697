import ArgumentParser

/// `iap dev`: the embedded stack for local work.
struct DevCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dev",
        abstract: "Run local stand-ins: the embedded Kafka broker (librdkafka's mock cluster).",
        subcommands: [DevBrokerCommand.self]
    )
}
