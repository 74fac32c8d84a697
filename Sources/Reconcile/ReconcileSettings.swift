public import AppStoreModels
import Catalog
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
    public static let interval = ReconcileKeys.interval
    public static let lookback = ReconcileKeys.lookback
    public static let bundleIds = ReconcileKeys.bundleIds
    public static let environments = ReconcileKeys.environments
    public static let onlyFailures = ReconcileKeys.onlyFailures
    public static let sampleSize = ReconcileKeys.sampleSize
    public static let dueLimit = ReconcileKeys.dueLimit
    public static let leaseTTL = ReconcileKeys.leaseTTL

    public static let section = ReconcileKeys.section

    public var worker: WorkerSettings
    /// Verify's Apple keys, read by the same rules.
    public var apple: StageSettings
    public var interval: Duration
    public var bundleIds: [String]
    public var environments: [AppStoreEnvironment]
    public var options = Reconciler.Options()

    public init(reader: SettingsReader) throws(SettingsError) {
        worker = try WorkerSettings(stage: "reconcile", reader: reader)
        let apple = try StageSettings(stage: .verify, reader: reader)
        self.apple = apple
        interval = try reader.value(Self.interval)
        bundleIds = try reader.optional(Self.bundleIds) ?? apple.apps.map(\.bundleId)
        // A notification of an app verify does not serve would only be dead-lettered `unknown_app`.
        if let stranger = bundleIds.first(where: { apple.app($0) == nil }) {
            throw SettingsError(
                .contradiction, key: Self.bundleIds.name,
                "\(Self.bundleIds.name) lists '\(stranger)', not an app of the deployment (IAP_BUNDLE_ID or IAP_APPS)")
        }
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
            // Every environment some app accepts, in the order of the first app's policy.
            var accepted: [AppStoreEnvironment] = []
            for app in apple.apps {
                for environment in app.environmentPolicy.acceptedEnvironments
                where (environment == .production || environment == .sandbox) && !accepted.contains(environment) {
                    accepted.append(environment)
                }
            }
            environments = accepted
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
