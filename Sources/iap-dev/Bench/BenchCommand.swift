import ArgumentParser

/// `iap-dev bench`: load generation and measurement; figures go to docs/performance.md.
struct BenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Measure throughput on the embedded broker (results belong in docs/performance.md).",
        subcommands: [
            BenchE2ECommand.self, BenchConsumeCommand.self, BenchStageCommand.self, BenchJWSCommand.self,
            BenchAPICommand.self, BenchCompareCommand.self, BenchConsumeChildCommand.self,
        ]
    )
}
