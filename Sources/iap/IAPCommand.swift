import ArgumentParser
import Pipeline

@main
struct IAPCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "iap",
        abstract: "Operate the iap-pipeline: dev stack, topics, lag, benchmarks.",
        version: PipelineInfo.libraryVersions,
        subcommands: [JWSCommand.self, ReceiptCommand.self, BenchCommand.self, SimCommand.self]
    )
}
