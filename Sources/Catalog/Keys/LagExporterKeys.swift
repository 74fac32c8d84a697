public import Settings

/// What `iap lag --serve` reads besides the host's and the cluster's keys. Read by
/// `LagExporterSettings` (Pipeline), which forwards these.
public enum LagExporterKeys {
    public static let interval = Setting<Duration>.seconds(
        "IAP_LAG_EXPORT_INTERVAL_SECONDS",
        "How often `iap lag --serve` recomputes every pipeline group's lag from committed offsets (D26)",
        default: "15")
    public static let queryTimeout = Setting<Duration>.seconds(
        "IAP_LAG_EXPORT_TIMEOUT_SECONDS",
        "How long one Kafka query of `iap lag --serve` may take before `/readyz` reports it failed", default: "10")

    public static let section = SettingsSection(
        "Lag exporter", readBy: "iap lag --serve", [interval.descriptor, queryTimeout.descriptor])
}
