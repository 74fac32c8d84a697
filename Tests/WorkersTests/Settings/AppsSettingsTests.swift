import AppStoreModels
import Foundation
import Purchases
import Settings
import Testing
import Topology
import WorkerCommon

/// Several apps in one deployment (issue 22 item 5, D57): `IAP_APPS` lists them, each field left
/// out takes the deployment's key, and every mistake is refused with its line.
@Suite struct AppsSettingsTests {
    static let key = [
        "IAP_APPLE_KEY_ID": "TEAMKEY", "IAP_APPLE_ISSUER_ID": "team-issuer",
        "IAP_APPLE_PRIVATE_KEY_PATH": "/keys/team.p8",
    ]

    /// Writes `yaml` as an apps file in a fresh directory and reads verify's settings with it.
    static func settings(_ yaml: String, _ extra: [String: String] = key, stage: StageName = .verify) throws
        -> StageSettings
    {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("iap-apps-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("apps.yaml").path
        try yaml.write(toFile: path, atomically: true, encoding: .utf8)
        return try StageSettings(stage: stage, environment: extra.merging(["IAP_APPS": path]) { $1 })
    }

    static func refusal(_ yaml: String, _ extra: [String: String] = key) -> SettingsError? {
        do {
            _ = try settings(yaml, extra)
            return nil
        } catch {
            return error as? SettingsError
        }
    }

    @Test func theAppsTakeTheDeploymentsKeysForWhatTheyLeaveOut() throws {
        let settings = try Self.settings(
            """
            apps:
              - bundleId: com.example.game
                appAppleId: 1234567890
              - bundleId: com.example.puzzle
                environment: Sandbox
                acceptXcode: true
                appleKey:
                  keyId: PUZZLEKEY
                  issuerId: other-team
                  privateKeyPath: puzzle.p8
            """, Self.key.merging(["IAP_ACCEPT_SANDBOX": "false"]) { $1 })
        #expect(settings.apps.map(\.bundleId) == ["com.example.game", "com.example.puzzle"])
        let game = try #require(settings.app("com.example.game"))
        #expect(game.appAppleId == 1_234_567_890)
        #expect(game.environmentPolicy == EnvironmentPolicy(deployment: .production, acceptSandboxInProduction: false))
        #expect(game.appleKey == .init(keyId: "TEAMKEY", issuerId: "team-issuer", privateKeyPath: "/keys/team.p8"))
        #expect(game.gateScope == "com.example.game")
        let puzzle = try #require(settings.app("com.example.puzzle"))
        #expect(puzzle.appAppleId == nil)
        #expect(puzzle.environmentPolicy.deployment == .sandbox)
        #expect(puzzle.environmentPolicy.acceptXcode)
        #expect(puzzle.appleKey?.keyId == "PUZZLEKEY")
        #expect(puzzle.appleKey?.privateKeyPath.hasSuffix("/puzzle.p8") == true, "relative to the apps file")
        #expect(puzzle.appleKey?.privateKeyPath.hasPrefix("/") == true)
        #expect(settings.app("com.example.other") == nil)
        #expect(settings.app(nil) == nil, "with several apps an event must name its own")
    }

    @Test func withoutTheFileTheDeploymentServesTheAppOfItsBundleId() throws {
        let settings = try StageSettings(
            stage: .verify, environment: Self.key.merging(["IAP_BUNDLE_ID": "com.example.game"]) { $1 })
        #expect(settings.apps.map(\.bundleId) == ["com.example.game"])
        #expect(settings.apps.first?.gateScope == nil, "a single app keeps the gate's keys of before")
        #expect(settings.app(nil)?.bundleId == "com.example.game")
    }

    @Test func mistakesAreRefusedWithTheirLine() {
        let cases: [(yaml: String, message: String)] = [
            ("apps:\n  - bundleId: a.b\n    appleID: 1\n", ":3: an app has no field 'appleID'"),
            ("apps:\n  - bundleId: a.b\n  - bundleId: a.b\n", ":3: lists app 'a.b' twice"),
            ("apps:\n  - appAppleId: 1\n", ":2: an app needs a bundleId"),
            (
                "apps:\n  - bundleId: a.b\n    environment: Prod\n",
                ":3: app 'a.b': environment is Production or Sandbox"
            ),
            ("apps:\n  - bundleId: a.b\n    acceptSandbox: maybe\n", "acceptSandbox is true or false"),
            ("apps:\n  - bundleId: a.b\n    appAppleId: -3\n", "appAppleId is a positive number"),
            ("apps: []\n", "lists no apps"),
            ("app:\n  - bundleId: a.b\n", "the file has no field 'app'"),
            ("apps:\n  - bundleId: a.b\n    appleKey: {keyId: K}\n", "app 'a.b''s appleKey has no issuerId"),
            ("apps: [\n", "is not YAML"),
        ]
        for (yaml, message) in cases {
            let error = Self.refusal(yaml)
            #expect(error?.key == "IAP_APPS", "\(yaml)")
            #expect(error?.message.contains(message) == true, "\(error?.message ?? "accepted") lacks \(message)")
        }
    }

    @Test func theFileNamesEachAppSoTheSingleAppKeysContradictIt() {
        let both = Self.refusal("apps:\n  - bundleId: a.b\n", Self.key.merging(["IAP_BUNDLE_ID": "a.b"]) { $1 })
        #expect(both?.code == .contradiction)
        #expect(both?.key == "IAP_BUNDLE_ID")
        let id = Self.refusal("apps:\n  - bundleId: a.b\n", Self.key.merging(["IAP_APP_APPLE_ID": "1"]) { $1 })
        #expect(id?.key == "IAP_APP_APPLE_ID")
    }

    @Test func anAppWithoutAKeyNeedsTheDeploymentsKey() {
        let error = Self.refusal("apps:\n  - bundleId: a.b\n", [:])
        #expect(error?.code == .missing)
        #expect(error?.key == "IAP_APPLE_KEY_ID")
        #expect(error?.message.contains("app 'a.b' of IAP_APPS has no appleKey") == true)
    }

    @Test func halfADeploymentKeyIsRefused() {
        let error = Self.refusal(
            "apps:\n  - bundleId: a.b\n    appleKey: {keyId: K, issuerId: I, privateKeyPath: k.p8}\n",
            ["IAP_APPLE_KEY_ID": "K"])
        #expect(error?.key == "IAP_APPLE_ISSUER_ID")
    }

    @Test func grantAndConfirmServeTheSameApps() throws {
        let yaml = "apps:\n  - bundleId: a.b\n  - bundleId: c.d\n"
        let confirm = try Self.settings(
            yaml, Self.key.merging(["IAP_CONFIRM_FINISH_TRANSACTIONS": "true"]) { $1 }, stage: .confirm)
        #expect(confirm.apps.map(\.bundleId) == ["a.b", "c.d"])
        let grant = try Self.settings(
            yaml,
            Self.key.merging(["IAP_CONSUMPTION_ANSWER": "true", "IAP_CONSUMPTION_CUSTOMER_CONSENTED": "true"]) { $1 },
            stage: .grant)
        #expect(grant.apps.map(\.bundleId) == ["a.b", "c.d"])
    }
}
