import AppStore
import Purchases
import Settings
import Testing
import Topology
import WorkerCommon

/// Grant's consumption settings (decision D34): off by default, and once on, consent and the
/// Apple key settings verify reads are required.
@Suite struct ConsumptionSettingsTests {
    static let answering = StageSettingsTests.verify.merging([
        "IAP_CONSUMPTION_ANSWER": "true", "IAP_CONSUMPTION_CUSTOMER_CONSENTED": "true",
    ]) { $1 }

    @Test func offByDefaultAndThenGrantNeedsNoAppleKey() throws {
        let settings = try StageSettings(stage: .grant, environment: [:])
        #expect(settings.consumption == nil)
        #expect(settings.apps.isEmpty)
    }

    @Test func onReadsTheAnswerAndTheAppleKey() throws {
        let settings = try StageSettings(
            stage: .grant,
            environment: Self.answering.merging([
                "IAP_CONSUMPTION_REFUND_PREFERENCE": "GRANT_PRORATED",
                "IAP_CONSUMPTION_SAMPLE_CONTENT_PROVIDED": "true",
                "IAP_CONSUMPTION_CONSUMABLES_CONSUMED": "false", "IAP_APPLE_RATE_LIMIT": "7",
            ]) { $1 })
        #expect(
            settings.consumption
                == ConsumptionConfiguration(
                    customerConsented: true, sampleContentProvided: true, refundPreference: .grantProrated,
                    consumablesCountAsConsumed: false))
        #expect(settings.apps.map(\.bundleId) == ["com.example.game"])
        #expect(settings.apps.first?.appleKey?.privateKeyPath == "/k.p8")
        #expect(settings.appleRateLimit == 7)
        let defaults = try StageSettings(stage: .grant, environment: Self.answering)
        #expect(defaults.consumption == ConsumptionConfiguration(customerConsented: true))
    }

    @Test(arguments: [
        "IAP_CONSUMPTION_CUSTOMER_CONSENTED", "IAP_BUNDLE_ID", "IAP_APPLE_KEY_ID", "IAP_APPLE_PRIVATE_KEY_PATH",
    ])
    func onRequires(_ key: String) {
        var environment = Self.answering
        environment[key] = nil
        #expect {
            try StageSettings(stage: .grant, environment: environment)
        } throws: { error in
            (error as? SettingsError)?.key == key
        }
    }

    @Test func anUnknownRefundPreferenceIsRefused() {
        #expect {
            try StageSettings(
                stage: .grant,
                environment: Self.answering.merging(["IAP_CONSUMPTION_REFUND_PREFERENCE": "MAYBE"]) { $1 })
        } throws: { error in
            (error as? SettingsError)?.key == "IAP_CONSUMPTION_REFUND_PREFERENCE"
        }
    }
}
