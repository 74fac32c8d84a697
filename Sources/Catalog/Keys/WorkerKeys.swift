public import Settings

/// A worker's own process-level keys, besides the host's, the cluster's and Redis's. Read by
/// `WorkerSettings` (Pipeline), which forwards these.
public enum WorkerKeys {
    public static let lagInterval = Setting<Duration>.seconds(
        "IAP_LAG_INTERVAL_SECONDS", "How often a worker refreshes the lag of the partitions it owns", default: "10"
    )
    public static let generationCheckInterval = Setting<Duration>.seconds(
        "IAP_GENERATION_CHECK_SECONDS", "How often a worker checks that Redis still holds its stage's state (D19)",
        default: "2"
    )

    public static let section = SettingsSection(
        "Workers", readBy: "iap-intake, iap-verify, iap-match, iap-grant, iap-state, iap-confirm",
        [lagInterval.descriptor, generationCheckInterval.descriptor])
}
