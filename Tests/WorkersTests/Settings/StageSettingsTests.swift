import AppStore
import Purchases
import Settings
import Testing
import Topology
import WorkerCommon

@Suite struct StageSettingsTests {
    static let verify = [
        "IAP_BUNDLE_ID": "com.example.game", "IAP_APPLE_KEY_ID": "k", "IAP_APPLE_ISSUER_ID": "i",
        "IAP_APPLE_PRIVATE_KEY_PATH": "/k.p8",
    ]

    @Test func onlineRevocationChecksAreOffUnlessTurnedOn() throws {
        let settings = try StageSettings(stage: .verify, environment: Self.verify)
        #expect(!settings.ocsp)
        #expect(settings.ocspTimeout == .seconds(5))
        #expect(settings.ocspUnreachable == .retry)
    }

    @Test func onlineRevocationChecksAreConfigured() throws {
        let settings = try StageSettings(
            stage: .verify,
            environment: Self.verify.merging([
                "IAP_APPLE_OCSP": "true", "IAP_APPLE_OCSP_TIMEOUT_MS": "1500",
                "IAP_APPLE_OCSP_UNREACHABLE": "accept-offline",
            ]) { $1 })
        #expect(settings.ocsp)
        #expect(settings.ocspTimeout == .milliseconds(1500))
        #expect(settings.ocspUnreachable == .acceptOfflineChain)
    }

    @Test func anUnknownFallbackIsRefused() {
        #expect {
            try StageSettings(
                stage: .verify, environment: Self.verify.merging(["IAP_APPLE_OCSP_UNREACHABLE": "ignore"]) { $1 })
        } throws: { error in
            (error as? SettingsError)?.key == "IAP_APPLE_OCSP_UNREACHABLE"
        }
    }

    /// `md5Halves`, the earlier name of `md5UserAndBundle`, still configures match (D29).
    @Test func theEarlierTokenSchemeNameStillConfiguresMatch() throws {
        let settings = try StageSettings(stage: .match, environment: ["IAP_TOKEN_SCHEME": "md5Halves"])
        #expect(settings.tokenScheme == .md5UserAndBundle)
        let brief = try StageSettings(stage: .match, environment: ["IAP_TOKEN_SCHEME": "pkcs7Hex"])
        #expect(brief.tokenScheme == .pkcs7Hex)
    }
}
