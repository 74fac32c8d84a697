public import AppStoreModels
import Foundation
public import Pipeline
import Purchases
public import Settings
import Topology
public import WorkerCommon

/// What `iap-reconcile` and `iap reconcile` read (decision D32): the worker's process, Kafka and
/// Redis keys (``WorkerSettings``), verify's Apple keys read as verify reads them
/// (``StageSettings`` of the verify stage: bundle id, API key, endpoints, rate limit, timeout,
/// environment policy), and reconcile's own keys below.
public struct ReconcileSettings: Sendable {
    public static let interval = Setting<Duration>.seconds(
        "IAP_RECONCILE_INTERVAL_SECONDS",
        "Time between the ends of two reconcile runs of `iap-reconcile` (fractions allowed: the embedded stack uses 2)",
        default: "300")
    public static let lookback = Setting<Duration>.seconds(
        "IAP_RECONCILE_LOOKBACK_SECONDS",
        "Where paging notification history starts for an app and environment without a checkpoint (Apple keeps 180"
            + " days)",
        default: "86400")
    public static let bundleIds = Setting<[String]>.list(
        "IAP_RECONCILE_BUNDLE_IDS", "Apps whose notification history is paged (default: IAP_BUNDLE_ID)")
    public static let environments = Setting<[String]>.list(
        "IAP_RECONCILE_ENVIRONMENTS",
        "Production and/or Sandbox (default: IAP_ENVIRONMENT, plus Sandbox in production with IAP_ACCEPT_SANDBOX)")
    public static let onlyFailures = Setting<Bool>.flag(
        "IAP_RECONCILE_ONLY_FAILURES",
        "Page only the notifications Apple could not deliver (Apple's `onlyFailures`); off pages all", default: false)
    public static let sampleSize = Setting<Int>.integer(
        "IAP_RECONCILE_SAMPLE_SIZE",
        "Active subscriptions not yet past their expiry asked about per run, picked at random (0: none)", default: 10,
        in: 0...10_000)
    public static let dueLimit = Setting<Int>.integer(
        "IAP_RECONCILE_DUE_LIMIT", "Subscriptions active past their expiry asked about per run, at most",
        default: 500, in: 1...100_000)
    public static let leaseTTL = Setting<Duration>.seconds(
        "IAP_RECONCILE_LEASE_SECONDS",
        "How long a replica holds an app's paging (or the sweep) without checkpointing a page", default: "120")

    public static let section = SettingsSection(
        "Reconcile", readBy: "iap-reconcile and iap reconcile, with the Verify section's Apple keys",
        [
            interval.descriptor, lookback.descriptor, bundleIds.descriptor, environments.descriptor,
            onlyFailures.descriptor, sampleSize.descriptor, dueLimit.descriptor, leaseTTL.descriptor,
        ])

    public var worker: WorkerSettings
    /// Verify's Apple keys, read by the same rules.
    public var apple: StageSettings
    public var interval: Duration
    public var bundleIds: [String]
    public var environments: [AppStoreEnvironment]
    public var options = Reconciler.Options()

    public init(reader: SettingsReader) throws(SettingsError) {
        worker = try WorkerSettings(stage: "reconcile", reader: reader)
        apple = try StageSettings(stage: .verify, reader: reader)
        interval = try reader.value(Self.interval)
        bundleIds = try reader.optional(Self.bundleIds) ?? [apple.bundleId]
        if let names = try reader.optional(Self.environments) {
            environments = try names.map { name throws(SettingsError) in
                guard
                    let environment = [AppStoreEnvironment.production, .sandbox].first(where: { $0.rawValue == name })
                else {
                    throw SettingsError(
                        .invalidValue, key: Self.environments.name,
                        "\(Self.environments.name) lists '\(name)'; only Production and Sandbox have notification history"
                    )
                }
                return environment
            }
        } else {
            environments = apple.environmentPolicy.acceptedEnvironments.filter { $0 == .production || $0 == .sandbox }
        }
        options.lookback = try reader.value(Self.lookback)
        options.onlyFailures = try reader.value(Self.onlyFailures)
        options.sampleSize = try reader.value(Self.sampleSize)
        options.dueLimit = try reader.value(Self.dueLimit)
        options.leaseTTL = try reader.value(Self.leaseTTL)
    }

    /// The scopes paged, apps first, production before sandbox.
    public var scopes: [ReconcileScope] {
        bundleIds.flatMap { bundleId in environments.map { ReconcileScope(bundleId: bundleId, environment: $0) } }
    }
}
