import ArgumentParser
import Catalog
import Foundation
import Hosting
import Pipeline
import Reconcile
import Settings
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `iap reconcile`: one run of what `iap-reconcile` does every interval (decision D32), with the
/// same settings, checkpoints and leases, so a one-off run and the worker never page a window
/// twice between them.
struct ReconcileCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reconcile",
        abstract: "Republish Apple's notification history from the checkpoint and sweep stale subscriptions, once.",
        discussion: """
            Per app (IAP_RECONCILE_BUNDLE_IDS, default IAP_BUNDLE_ID) and environment (IAP_RECONCILE_ENVIRONMENTS): pages \
            Get Notification History from the stored checkpoint (a first run starts IAP_RECONCILE_LOOKBACK_SECONDS back, \
            never beyond Apple's 180 days) and publishes every notification to iap.notifications with source \
            reconcile; then asks Get All Subscription Statuses about subscriptions grant holds active past their expiry \
            (plus IAP_RECONCILE_SAMPLE_SIZE others) and publishes Apple's answer to iap.purchases. Notifications that \
            did arrive are no-ops downstream. Reads the settings layer like iap-reconcile (docs/operations.md).
            """
    )

    @Flag(name: .long, help: "Page only notifications Apple could not deliver (overrides IAP_RECONCILE_ONLY_FAILURES).")
    var onlyFailures = false

    @Flag(name: .long, help: "Page notification history only; no subscription sweep.")
    var noSweep = false

    @Option(name: .long, help: "Pipeline file naming the topics (env IAP_PIPELINE).")
    var pipeline: String?

    @Flag(name: .long, help: "Print the run's summary as one JSON object instead of progress and a table.")
    var json = false

    func run() async throws {
        let reader = try await SettingsReader.load()
        try SettingsCatalog.pipeline.refuseUnknownNames(in: reader)
        var settings = try ReconcileSettings(reader: reader)
        if let pipeline { settings.worker.pipelinePath = pipeline }
        if onlyFailures { settings.options.onlyFailures = true }
        if noSweep { settings.options.sweep = false }
        let assembly = try ReconcileAssembly(settings: settings, logger: CLILogging.logger("iap.reconcile"))
        let progress = ProgressLine(enabled: !json && isatty(STDERR_FILENO) == 1)
        let report: ReconcileReport
        do {
            report = try await assembly.runOnce { progress.update($0) }
        } catch {
            progress.finish()
            await assembly.close()
            throw error
        }
        progress.finish()
        await assembly.close()
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            print(String(decoding: try encoder.encode(report), as: UTF8.self))
        } else {
            print(Self.table(report))
        }
    }

    static func table(_ report: ReconcileReport) -> String {
        var lines = ["APP\tENVIRONMENT\tPAGED\tPAGES\tNOTIFICATIONS\tCHECKPOINT"]
        for scope in report.scopes {
            lines.append(
                "\(scope.bundleId)\t\(scope.environment)\t\(scope.paged ? "yes" : "no (another replica)")\t\(scope.pages)"
                    + "\t\(scope.notificationsPublished)\t\(scope.checkpoint ?? "-")")
        }
        lines.append(
            report.swept
                ? "subscriptions swept: \(report.subscriptionsSwept), published: \(report.subscriptionsPublished),"
                    + " unknown to Apple: \(report.subscriptionsNotFound)"
                : "subscriptions: not swept")
        return lines.joined(separator: "\n")
    }
}

/// The run's counts on one rewritten terminal line (standard error, only on a terminal).
final class ProgressLine: Sendable {
    private struct Counts {
        var pages = 0
        var notifications = 0
        var subscriptions = 0
    }

    private let enabled: Bool
    private let counts = Mutex(Counts())

    init(enabled: Bool) { self.enabled = enabled }

    func update(_ progress: ReconcileProgress) {
        guard enabled else { return }
        let line = counts.withLock { counts in
            switch progress {
            case .page(_, let notifications):
                counts.pages += 1
                counts.notifications += notifications
            case .subscription:
                counts.subscriptions += 1
            }
            return
                "\rpages read: \(counts.pages)  notifications published: \(counts.notifications)  subscriptions swept: \(counts.subscriptions)"
        }
        FileHandle.standardError.write(Data(line.utf8))
    }

    func finish() {
        guard enabled else { return }
        FileHandle.standardError.write(Data("\n".utf8))
    }
}
