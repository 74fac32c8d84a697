import Gateway
import Hosting
import Pipeline
import Reconcile
public import Settings
import Topology
import WorkerCommon

extension SettingsCatalog {
    /// Every setting of every iap-pipeline executable: `iap config keys` prints it, the table
    /// in `docs/operations.md` is checked against it, and processes refuse `IAP_` names that
    /// are not in it.
    public static let pipeline = SettingsCatalog(
        sections: [HostSettings.section, ClusterSettings.section, RedisSettings.section, WorkerSettings.section]
            + StageSettings.sections + [
                ReconcileSettings.section,
                GatewaySettings.section, LagExporterSettings.section,
                SettingsSection(
                    "Local stack", readBy: "iap dev up, iap demo, iap soak, the end-to-end tests",
                    [binaryDirectory.descriptor, redisServer.descriptor]),
            ],
        prefixes: [ClusterSettings.kafkaPropertyFamily]
    )

    /// Read by `LocalRedisServer` (LocalServices module), which starts the local stack's and the tests' Redis.
    public static let redisServer = Setting<String>.text(
        "REDIS_SERVER", "The `redis-server` binary of the embedded stack and the tests (default: on the `PATH`)")

    /// Read by LocalStack, which launches the executables it names.
    public static let binaryDirectory = Setting<String>.text(
        "IAP_BIN_DIR", "Where the embedded stack finds the worker executables (default: next to `iap`)"
    )
}
