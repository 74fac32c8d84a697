import AppStoreModels
import Foundation
import Reconcile
import Settings
import Testing

/// Reconcile pages every app the deployment serves (D57), and only those.
@Suite struct ReconcileSettingsTests {
    static func environment(apps yaml: String) throws -> [String: String] {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("iap-apps-\(UUID().uuidString).yaml")
        try yaml.write(to: path, atomically: true, encoding: .utf8)
        return [
            "KAFKA_BROKERS": "127.0.0.1:9092", "REDIS_URL": "redis://127.0.0.1:6379", "IAP_APPS": path.path,
            "IAP_APPLE_KEY_ID": "K", "IAP_APPLE_ISSUER_ID": "I", "IAP_APPLE_PRIVATE_KEY_PATH": "/k.p8",
        ]
    }

    @Test func everyAppIsAScopeInEachEnvironmentByDefault() throws {
        let settings = try ReconcileSettings(
            reader: SettingsReader(
                environment: try Self.environment(apps: "apps:\n  - bundleId: a.game\n  - bundleId: b.puzzle\n")))
        #expect(
            settings.scopes.map(\.name)
                == [
                    ReconcileScope(bundleId: "a.game", environment: .production).name,
                    ReconcileScope(bundleId: "a.game", environment: .sandbox).name,
                    ReconcileScope(bundleId: "b.puzzle", environment: .production).name,
                    ReconcileScope(bundleId: "b.puzzle", environment: .sandbox).name,
                ])
    }

    @Test func anAppTheDeploymentDoesNotServeIsRefused() throws {
        var environment = try Self.environment(apps: "apps:\n  - bundleId: a.game\n")
        environment["IAP_RECONCILE_BUNDLE_IDS"] = "a.game,c.stranger"
        #expect {
            try ReconcileSettings(reader: SettingsReader(environment: environment))
        } throws: { error in
            (error as? SettingsError)?.key == "IAP_RECONCILE_BUNDLE_IDS"
                && (error as? SettingsError)?.message.contains("'c.stranger'") == true
        }
    }
}
