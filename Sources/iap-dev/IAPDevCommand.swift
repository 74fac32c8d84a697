import ArgumentParser
import Hosting
import Kafka
import Redis

/// The developer tools, apart from the operator CLI `iap` (decision D46): they run the local
/// stand-ins (mock cluster, `redis-server` child, the App Store simulator, the embedded stack),
/// which nothing that ships to production links. The image's `dev` stage adds this executable
/// for the simulator service; the production image does not hold it.
@main
struct IAPDevCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "iap-dev",
        abstract: "Develop the iap-pipeline locally: the embedded stack, the demo, the simulator, soak and benchmarks.",
        version: "\(BuildInfo.versionLine); librdkafka \(LibrdKafka.version), hiredis \(Hiredis.version)",
        subcommands: [
            DevCommand.self, DemoCommand.self, SimCommand.self, SoakCommand.self, BenchCommand.self,
        ]
    )
}
