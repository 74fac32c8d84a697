import ArgumentParser
import Foundation
import Hosting
import SupportTools

/// `iap notifications test`: the end-to-end self-check an operator runs after a deploy.
struct NotificationsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "notifications",
        abstract: "Check that Apple's notifications reach the pipeline.",
        subcommands: [Test.self]
    )

    struct Test: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Request a TEST notification and follow it: Apple, gateway, iap.notifications, intake, verify.",
            discussion: """
                Hops: requested (Apple accepted the request), sent (Get Test Notification Status lists a SUCCESS \
                attempt), recorded (the record keyed by its notificationUUID is on the notifications topic), intake \
                (intake's group committed past it), verify (verify's group committed past intake's request; TEST \
                carries no transaction, so nothing goes further). Reads verify's Apple settings, KAFKA_BROKERS and \
                IAP_PIPELINE through the settings layer. Exits 1 naming the first hop that did not happen within \
                --timeout of the request (joining the topics' throwaway consumer groups first may take up to 30 s more).
                """
        )

        @Option(name: .long, help: "Seconds the hops may take from the request on.")
        var timeout: Double = 60

        @Option(name: .customLong("bundle-id"), help: "The app (required when the deployment serves several).")
        var bundleId: String?

        @Flag(name: .long, help: "Print the report as JSON.")
        var json = false

        func validate() throws {
            guard timeout > 0, timeout.isFinite else {
                throw ValidationError("--timeout must be a positive number of seconds")
            }
        }

        func run() async throws {
            var report: NotificationSelfCheckReport?
            try await SupportRun.run(json: json) {
                let settings = try await SupportRun.settings(app: bundleId)
                let logger = CLILogging.logger("iap.notifications")
                let lookups = try settings.appleLookups(logger: logger)
                let check = NotificationSelfCheck(
                    client: lookups.client, checker: lookups.checker, cluster: settings.kafka,
                    route: try settings.notificationRoute(),
                    timeout: .milliseconds(Int64(timeout * 1000)), logger: logger)
                let result = try await check.run()
                report = result
                try SupportRun.print(result, json: json) { Self.text(result) }
            }
            if report?.passed != true { throw ExitCode(1) }
        }

        static func text(_ report: NotificationSelfCheckReport) -> String {
            var lines = ["test notification \(report.notificationUUID ?? "-")"]
            for hop in report.hops {
                let time = hop.elapsedMs.map { String(format: "%7.2f s", Double($0) / 1000) } ?? "      -  "
                lines.append(
                    "  \(hop.status.rawValue.padding(toLength: 10, withPad: " ", startingAt: 0)) \(time)  "
                        + "\(hop.name.rawValue.padding(toLength: 9, withPad: " ", startingAt: 0)) \(hop.detail ?? "")")
            }
            lines.append(report.passed ? "passed" : "FAILED at \(report.failedHop?.rawValue ?? "?")")
            return lines.joined(separator: "\n")
        }
    }
}
