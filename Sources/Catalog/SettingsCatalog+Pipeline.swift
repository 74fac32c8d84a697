public import Settings

extension SettingsCatalog {
    /// Every setting of every iap-pipeline executable: `iap config keys` prints it, the table
    /// in `docs/operations.md` is checked against it, and processes refuse `IAP_` names that
    /// are not in it. The keys are declared in this module (`HostKeys`, `StageKeys`, …) over the
    /// settings layer alone, so every `main` links it without linking the other processes' code;
    /// each settings struct (`HostSettings`, `StageSettings`, …) forwards its keys and reads them.
    public static let pipeline = SettingsCatalog(
        sections: [HostKeys.section, ClusterKeys.section, RedisKeys.section, WorkerKeys.section]
            + StageKeys.sections + [
                ReconcileKeys.section,
                GatewayKeys.section, LagExporterKeys.section, ProductCatalogKeys.section, ReadAPIKeys.section,
                SettingsSection(
                    "Local stack", readBy: "iap-dev dev up, iap-dev demo, iap-dev soak, the end-to-end tests",
                    [binaryDirectory.descriptor, redisServer.descriptor]),
            ],
        prefixes: [ClusterKeys.kafkaPropertyFamily]
    )

    /// Read by `LocalRedisServer` (LocalServices module), which starts the local stack's and the tests' Redis.
    public static let redisServer = Setting<String>.text(
        "REDIS_SERVER", "The `redis-server` binary of the embedded stack and the tests (default: on the `PATH`)")

    /// Read by LocalStack, which launches the executables it names.
    public static let binaryDirectory = Setting<String>.text(
        "IAP_BIN_DIR", "Where the embedded stack finds the worker executables (default: next to `iap`)"
    )
}
