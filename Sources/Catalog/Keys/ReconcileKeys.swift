public import Settings

/// Reconcile's own keys (decision D32), besides the worker's and verify's Apple keys. Read by
/// `ReconcileSettings` (Reconcile), which forwards these.
public enum ReconcileKeys {
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
}
