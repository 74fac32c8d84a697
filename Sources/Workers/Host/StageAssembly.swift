import AppStore
import Foundation
import Logging
import Pipeline
import Purchases

/// Builds one stage's handler from its pipeline entry and settings and runs it in a ``Worker``.
/// The rules' state lives in the worker's own Redis (the same one as its retries and
/// idempotency markers).
struct StageAssembly {
    var stage: StageName
    var spec: StageSpec
    var settings: WorkerSettings
    var stageSettings: StageSettings
    var logger: Logger

    func run() async throws {
        switch stage {
        case .intake:
            let rules = IntakeRules(configuration: IntakeConfiguration(maximumEventBytes: stageSettings.maximumEventBytes))
            let output = try output(0, "the verify topic")
            try await run { _ in IntakeHandler(rules: rules, verifyTopic: output) }
        case .verify:
            let verifiedTopic = try output(0, "the verified topic")
            let configuration = try verifyConfiguration()
            let source = try appleSource()
            try await run { resources in
                let verifier = try TransactionVerifier(
                    configuration: configuration, source: source, cache: RedisVerifiedTransactionCache(client: resources.redis),
                    gate: RedisAppleCallGate(client: resources.redis, callsPerSecond: Double(stageSettings.appleRateLimit)), logger: resources.logger
                )
                return VerifyHandler(verifier: verifier, verifiedTopic: verifiedTopic)
            }
        case .match:
            let topics = MatchHandler.Topics(
                verified: try input(0, "the verified topic"), matched: try output(0, "the matched topic"),
                unmatched: try output(1, "the unmatched topic")
            )
            var configuration = MatchConfiguration(tokenScheme: stageSettings.tokenScheme)
            if let window = spec.windows["unmatched"] { configuration.waitWindow = window.duration }
            if let grace = spec.windows["orderGrace"] { configuration.orderGrace = grace.duration }
            let ordersTopic = try input(1, "the orders topic")
            let rebuildOrders = { (resources: WorkerResources) in
                [StateRecovery.Step("order index from \(ordersTopic)") { [settings] in
                    let report = try await OrderIndexRebuild.run(
                        bootstrapServers: settings.kafkaBrokers, topic: ordersTopic, index: RedisOrderIndex(client: resources.redis),
                        logger: resources.logger
                    )
                    return "\(report.written) orders written, \(report.alreadyPresent) present, \(report.deleted) deleted"
                }]
            }
            try await run(recoverySteps: rebuildOrders) { resources in
                let rules = MatchRules(
                    configuration: configuration, orders: RedisOrderIndex(client: resources.redis),
                    ownership: RedisOwnershipStore(client: resources.redis), waiting: RedisWaitingTransactionStore(client: resources.redis)
                )
                return MatchHandler(rules: rules, topics: topics)
            }
        case .webhook:
            guard let url = stageSettings.webhookURL, let secret = stageSettings.webhookSecret else {
                throw StageSettingsError("IAP_WEBHOOK_URL and IAP_WEBHOOK_SECRET are required by iap-grant --webhook")
            }
            let timeout = stageSettings.webhookTimeout
            try await run { _ in WebhookHandler(url: url, signer: WebhookSigner(secret: secret), timeout: timeout) }
        case .grant:
            let output = try output(0, "the entitlements topic")
            try await run { resources in
                GrantHandler(rules: GrantRules(store: RedisEntitlementStateStore(client: resources.redis)), entitlementsTopic: output)
            }
        }
    }

    /// - Parameter recoverySteps: what the stage rebuilds from Kafka, besides the deliveries it
    ///   owes, when Redis lost its state (``StateRecovery``).
    private func run<Handler: MessageHandler>(
        recoverySteps: (WorkerResources) -> [StateRecovery.Step] = { _ in [] }, _ makeHandler: (WorkerResources) throws -> Handler
    ) async throws {
        let worker = try Worker(stage: spec, settings: settings, logger: logger, recoverySteps: recoverySteps, makeHandler: makeHandler)
        try await worker.run()
    }

    private func output(_ index: Int, _ role: String) throws(StageSettingsError) -> String {
        guard spec.outputs.indices.contains(index) else {
            throw StageSettingsError("stage \(spec.name) in \(settings.pipelinePath) needs \(role) as output \(index + 1)")
        }
        return spec.outputs[index]
    }

    private func input(_ index: Int, _ role: String) throws(StageSettingsError) -> String {
        guard spec.inputs.indices.contains(index) else {
            throw StageSettingsError("stage \(spec.name) in \(settings.pipelinePath) needs \(role) as input \(index + 1)")
        }
        return spec.inputs[index]
    }

    private func verifyConfiguration() throws -> VerifyConfiguration {
        guard let bundleId = stageSettings.bundleId else { throw StageSettingsError("IAP_BUNDLE_ID is required by iap-verify") }
        let roots = try stageSettings.rootCertificatePaths.map { path throws(ConfigurationError) in try AppleRoots.load(path: path) }
        return VerifyConfiguration(
            bundleId: bundleId, appAppleId: stageSettings.appAppleId, rootCertificates: roots.isEmpty ? [AppleRoots.rootCAG3] : roots,
            environmentPolicy: stageSettings.environmentPolicy, receiptValidation: stageSettings.receiptValidation
        )
    }

    private func appleSource() throws -> AppStoreTransactionSource {
        guard let keyId = stageSettings.appleKeyId, let issuerId = stageSettings.appleIssuerId, let keyPath = stageSettings.applePrivateKeyPath else {
            throw StageSettingsError("IAP_APPLE_KEY_ID, IAP_APPLE_ISSUER_ID and IAP_APPLE_PRIVATE_KEY_PATH are required by iap-verify")
        }
        let privateKey: String
        do {
            privateKey = try String(contentsOfFile: keyPath, encoding: .utf8)
        } catch {
            throw StageSettingsError("cannot read IAP_APPLE_PRIVATE_KEY_PATH \(keyPath): \(error.localizedDescription)")
        }
        let api = AppStoreServerAPIConfiguration(
            privateKeyPEM: privateKey, keyId: keyId, issuerId: issuerId, bundleId: stageSettings.bundleId ?? "",
            productionBaseURL: stageSettings.appleAPIURL, sandboxBaseURL: stageSettings.appleSandboxAPIURL, timeout: stageSettings.appleTimeout
        )
        let legacy = stageSettings.receiptValidation == .verifyReceipt
            ? VerifyReceiptClient.Configuration(
                sharedSecret: stageSettings.verifyReceiptSharedSecret, productionURL: stageSettings.verifyReceiptURL,
                sandboxURL: stageSettings.verifyReceiptSandboxURL, timeout: stageSettings.appleTimeout
            )
            : nil
        return try AppStoreTransactionSource(api: api, verifyReceipt: legacy, executor: AsyncHTTPClientExecutor(client: AppleHTTPClient.shared))
    }
}
