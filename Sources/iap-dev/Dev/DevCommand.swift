import ArgumentParser

/// `iap-dev dev`: the embedded stack for local work.
struct DevCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dev",
        abstract: "Run local stand-ins: the whole embedded stack (up) or the broker alone (broker).",
        subcommands: [DevUpCommand.self, DevBrokerCommand.self]
    )
}
