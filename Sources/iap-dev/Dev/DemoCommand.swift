import ArgumentParser
import Contracts
import Customers
import Foundation
import Hosting
import LocalStack

/// `iap-dev demo`: the main job on the embedded default. Starts the whole stack (`dev up`),
/// publishes a realistic mixed batch of purchases, shows progress, prints a summary, and exits
/// 0 only when every purchase reached its expected end state.
struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Start the embedded stack, publish a mixed batch of purchases and check every end state.",
        discussion:
            "Exit status 0 means every scenario reached its expected end state; --json prints the summary as JSON."
    )

    @OptionGroup var stack: LocalStackOptions
    @Option(help: "Seconds to wait for every end state.") var timeout = 180.0
    @Flag(help: "Print the summary as JSON.") var json = false

    func run() async throws {
        let logger = CLILogging.logger("iap.demo")
        let say: (String) -> Void = { line in if !json { print(line) } }
        say("starting the embedded stack (broker, redis-server, App Store simulator, gateway, four workers)…")
        var configuration = try stack.configuration()
        configuration.otherApps = [DemoScenario.secondApp]
        let running = try await LocalStack.start(configuration, logger: logger)
        say(
            "ready: kafka \(running.endpoints.kafka), redis \(running.endpoints.redis), simulator \(running.endpoints.simulator)"
        )
        say("publishing \(DemoScenario.catalogue.count) scenarios…")
        let report: DemoRunner.Report
        do {
            report = try await DemoRunner(stack: running, logger: logger).run(
                timeout: .milliseconds(Int64(timeout * 1000))
            ) { met, total, outcomes in
                guard !json else { return }
                print(
                    "  \(met)/\(total) end states reached · entitlements \(outcomes.distinctEntitlements.count) · rejected \(outcomes.rejected.count) · unmatched \(outcomes.unmatched.count)"
                )
            }
        } catch {
            await running.stop(keepingState: true)
            throw error
        }
        // A failed demo keeps its temp directory: the summary points at its logs.
        await running.stop(keepingState: !report.passed)
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            print(String(decoding: try encoder.encode(report), as: UTF8.self))
        } else {
            printSummary(report, logs: running.endpoints.logs)
        }
        if !report.passed { throw ExitCode(1) }
    }

    private func printSummary(_ report: DemoRunner.Report, logs: String) {
        print("")
        for scenario in report.scenarios {
            print("\(scenario.passed ? "✔" : "✘") \(scenario.name)")
            for expectation in scenario.expectations { print("    \(expectation)") }
            for problem in scenario.problems { print("    ✘ \(problem)") }
        }
        print("")
        print(
            "stage    "
                + ["produced", "skipped", "duplicate", "retried", "rejected", "dead_lettered"].map {
                    $0.padding(toLength: 14, withPad: " ", startingAt: 0)
                }.joined() + "lag")
        for stage in report.stages {
            let columns = ["produced", "skipped", "duplicate", "retried", "rejected", "dead_lettered"].map {
                String(stage.outcomes[$0] ?? 0).padding(toLength: 14, withPad: " ", startingAt: 0)
            }
            print(stage.stage.padding(toLength: 9, withPad: " ", startingAt: 0) + columns.joined() + String(stage.lag))
        }
        if let customer = report.customer {
            print("")
            print("GET /v1/apps/\(customer.bundleId)/customers/\(customer.userId) (iap-api):")
            for entitlement in customer.entitlements {
                let until = entitlement.expiresDate.map { "until \($0)" } ?? "for good"
                print("    \(entitlement.id): \(entitlement.status.rawValue) \(until) (\(entitlement.productId))")
            }
            for (currency, credit) in customer.credits.sorted(by: { $0.key < $1.key }) {
                print("    \(currency): \(credit.received) received, \(credit.revoked) revoked")
            }
            if customer.entitlements.isEmpty && customer.credits.isEmpty { print("    nothing") }
        }
        if !report.statuses.isEmpty {
            print("")
            let counts = Dictionary(grouping: report.statuses, by: \.status.rawValue).mapValues(\.count)
                .sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
            print("purchase statuses (iap-api, GET /v1/apps/{bundleId}/purchases/{eventId}): \(counts)")
            // One answer a publisher gets when its event changed nothing, with the reason.
            if let shown = report.statuses.first(where: { $0.status == .noEffect && $0.detail != nil })
                ?? report.statuses.first(where: { $0.status == .rejected })
            {
                print(
                    "    \(shown.eventId): \(shown.status.rawValue), \(shown.reason ?? "-")\(shown.detail.map { " (\($0))" } ?? "")"
                )
            }
            for eventId in report.withoutEnd { print("    ✘ \(eventId): no terminal status") }
        }
        if let finished = report.finished {
            print("")
            print(
                "finished at Apple by iap-confirm (POST /inApps/v1/transactions/{id}/finish): "
                    + "\(finished.finished) of \(finished.owed) granted or renewed transactions")
            for transactionId in finished.unfinished { print("    ✘ \(transactionId): not finished") }
        }
        print("")
        let rejected = report.rejected.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        print(
            "entitlements \(report.entitlements) · rejected \(rejected.isEmpty ? "0" : rejected) · unmatched \(report.unmatched) · \(String(format: "%.1f", report.seconds)) s"
        )
        print(
            report.passed
                ? "every purchase reached its expected end state"
                : "some purchases did not reach their expected end state (logs: \(logs))")
    }
}
