import AppStore
import Foundation
import Hosting
import Logging
import Pipeline
import Purchases
import Topology
import WorkerCommon

/// Builds one stage's handler from its pipeline entry and settings and runs it in a ``Worker``.
/// The rules' state lives in the worker's own Redis (the same one as its retries and
/// idempotency markers).
struct StageAssembly {
    var stage: StageName
    var spec: StageSpec
    /// The whole file: what the stage's idempotency retention is derived from.
    var file: PipelineFile
    var settings: WorkerSettings
    var stageSettings: StageSettings
    var logger: Logger
    /// SIGTERM/SIGINT for the executables; tests stop the stage with a trigger.
    var stop: ProcessHost.Stop = .signals()

    func run() async throws {
        let audit = spec.auditTopic.map { AuditTrail(topic: $0, stage: spec.name) }
        switch stage {
        case .intake:
            let rules = IntakeRules(
                configuration: IntakeConfiguration(maximumEventBytes: stageSettings.maximumEventBytes))
            let output = try spec.output("verify")
            try await run { _ in IntakeHandler(rules: rules, verifyTopic: output, audit: audit) }
        case .verify:
            let verifiedTopic = try spec.output("verified")
            let configuration = try stageSettings.verifyConfiguration()
            try await run { resources in
                let appleMetrics = AppleCallMetrics(factory: resources.metricsFactory)
                let verifier = try TransactionVerifier(
                    configuration: configuration, source: try appleSource(metrics: appleMetrics),
                    cache: RedisVerifiedTransactionCache(client: resources.redis, keys: resources.keyspace),
                    gate: MeteredAppleCallGate(
                        base: RedisAppleCallGate(
                            client: resources.redis, keys: resources.keyspace,
                            callsPerSecond: Double(stageSettings.appleRateLimit)),
                        metrics: appleMetrics),
                    logger: resources.logger, onOCSPOfflineAccept: appleMetrics.countOCSPOfflineAccept
                )
                return VerifyHandler(
                    verifier: verifier, verifiedTopic: verifiedTopic, appleMetrics: appleMetrics, audit: audit)
            }
        case .match:
            let topics = MatchHandler.Topics(
                verified: try spec.input("verified"), matched: try spec.output("matched"),
                unmatched: try spec.output("unmatched"), ownership: try spec.output("ownership")
            )
            var configuration = MatchConfiguration(tokenScheme: stageSettings.tokenScheme)
            if let window = spec.windows["unmatched"] { configuration.waitWindow = window.duration }
            if let grace = spec.windows["orderGrace"] { configuration.orderGrace = grace.duration }
            let ordersTopic = try spec.input("orders")
            let rebuild = { [settings] (resources: WorkerResources) in
                [
                    StateRecovery.Step("order index from \(ordersTopic)") {
                        try await OrderIndexRebuild.run(
                            cluster: settings.kafka, topic: ordersTopic,
                            index: RedisOrderIndex(client: resources.redis, keys: resources.keyspace),
                            logger: resources.logger
                        ).summary
                    },
                    StateRecovery.Step("ownership bindings from \(topics.ownership)") {
                        try await StateRebuild.ownership(
                            from: topics.ownership, cluster: settings.kafka,
                            into: RedisOwnershipStore(client: resources.redis, keys: resources.keyspace),
                            logger: resources.logger
                        ).summary
                    },
                ]
            }
            try await run(recoverySteps: rebuild) { resources in
                let rules = MatchRules(
                    configuration: configuration,
                    orders: RedisOrderIndex(client: resources.redis, keys: resources.keyspace),
                    ownership: RedisOwnershipStore(
                        client: resources.redis, keys: resources.keyspace, fence: resources.fence),
                    waiting: RedisWaitingTransactionStore(client: resources.redis, keys: resources.keyspace)
                )
                return MatchHandler(rules: rules, topics: topics, audit: audit)
            }
        case .grant:
            let output = try spec.output("entitlements")
            let stateTopic = try spec.output("state")
            let rebuild = { [settings] (resources: WorkerResources) in
                [
                    StateRecovery.Step("entitlement states from \(stateTopic)") {
                        try await StateRebuild.entitlementStates(
                            from: stateTopic, cluster: settings.kafka,
                            into: RedisEntitlementStateStore(client: resources.redis, keys: resources.keyspace),
                            logger: resources.logger
                        ).summary
                    }
                ]
            }
            try await run(recoverySteps: rebuild) { resources in
                GrantHandler(
                    rules: GrantRules(
                        store: RedisEntitlementStateStore(
                            client: resources.redis, keys: resources.keyspace, fence: resources.fence)),
                    entitlementsTopic: output, stateTopic: stateTopic,
                    subscriptionEventsTopic: spec.outputRoles["subscriptionEvents"],
                    consumption: try consumptionStep(resources),
                    audit: audit)
            }
        case .state:
            try await runCustomerState()
        case .confirm:
            let configuration = stageSettings.confirm
            try await run { resources in
                let appleMetrics = AppleCallMetrics(factory: resources.metricsFactory)
                return ConfirmHandler(
                    confirmer: try confirmer(configuration, resources, appleMetrics: appleMetrics),
                    configuration: configuration, metrics: ConfirmMetrics(factory: resources.metricsFactory),
                    appleMetrics: appleMetrics, logger: resources.logger)
            }
        }
    }

    /// The customer state: its records rebuilt from `iap.customers`, and the audit index from
    /// `iap.audit`, when Redis lost them.
    private func runCustomerState() async throws {
        let customers = try spec.output("customers")
        let auditTopic = try spec.input("audit")
        let retention = spec.windows["audit"]?.duration ?? RedisAuditIndex.defaultRetention
        let rebuild = { [settings] (resources: WorkerResources) in
            [
                StateRecovery.Step("customer records from \(customers)") {
                    try await StateRebuild.customers(
                        from: customers, cluster: settings.kafka,
                        into: RedisCustomerStore(client: resources.redis, keys: resources.keyspace),
                        logger: resources.logger
                    ).summary
                },
                StateRecovery.Step("audit index from \(auditTopic)") {
                    try await StateRebuild.auditIndex(
                        from: auditTopic, cluster: settings.kafka,
                        into: RedisAuditIndex(client: resources.redis, keys: resources.keyspace, retention: retention),
                        retention: retention, logger: resources.logger
                    ).summary
                },
            ]
        }
        try await run(recoverySteps: rebuild) { resources in
            CustomerStateHandler(
                store: RedisCustomerStore(client: resources.redis, keys: resources.keyspace, fence: resources.fence),
                customersTopic: customers,
                auditIndex: RedisAuditIndex(client: resources.redis, keys: resources.keyspace, retention: retention),
                auditTopic: auditTopic)
        }
    }

    /// - Parameter recoverySteps: what the stage rebuilds from Kafka, besides the deliveries it
    ///   owes, when Redis lost its state (``StateRecovery``).
    private func run<Handler: MessageHandler>(
        recoverySteps: (WorkerResources) -> [StateRecovery.Step] = { _ in [] },
        _ makeHandler: (WorkerResources) throws -> Handler
    ) async throws {
        let worker = try Worker(
            stage: spec, settings: settings, logger: logger,
            idempotencyRetention: StageLayout.idempotencyRetention(of: spec, in: file),
            recoverySteps: recoverySteps, makeHandler: makeHandler
        )
        try await worker.run(until: stop)
    }

    /// Grant's consumption answers, when `IAP_CONSUMPTION_ANSWER` is on: the same Apple
    /// credentials, HTTP client and shared rate gate as verify's calls.
    private func consumptionStep(_ resources: WorkerResources) throws -> ConsumptionStep? {
        guard let configuration = stageSettings.consumption else { return nil }
        let appleMetrics = AppleCallMetrics(factory: resources.metricsFactory)
        let answerer = ConsumptionAnswerer(
            configuration: configuration,
            states: RedisEntitlementStateStore(
                client: resources.redis, keys: resources.keyspace, fence: resources.fence),
            ledger: RedisConsumptionLedger(client: resources.redis, keys: resources.keyspace),
            sender: try AppStoreConsumptionSender(
                api: try stageSettings.serverAPIConfiguration(bundleId: stageSettings.bundleId),
                executor: MeteredAppleHTTPExecutor(
                    AsyncHTTPClientExecutor(client: AppleHTTPClient.shared), metrics: appleMetrics)),
            gate: MeteredAppleCallGate(
                base: RedisAppleCallGate(
                    client: resources.redis, keys: resources.keyspace,
                    callsPerSecond: Double(stageSettings.appleRateLimit)),
                metrics: appleMetrics),
            waitInPlace: stageSettings.appleWaitInPlace
        )
        return ConsumptionStep(
            answerer: answerer, metrics: ConsumptionMetrics(factory: resources.metricsFactory),
            appleMetrics: appleMetrics, logger: resources.logger)
    }

    /// Confirm's calls to Apple: the same credentials, HTTP client and shared rate gate as
    /// verify's. With both settings off it makes none, and needs no credentials.
    private func confirmer(
        _ configuration: ConfirmConfiguration, _ resources: WorkerResources, appleMetrics: AppleCallMetrics
    ) throws -> AppleConfirmer {
        let sender: any ConfirmationSender =
            configuration.isEnabled
            ? try AppStoreConfirmationSender(
                api: try stageSettings.serverAPIConfiguration(bundleId: stageSettings.bundleId),
                executor: MeteredAppleHTTPExecutor(
                    AsyncHTTPClientExecutor(client: AppleHTTPClient.shared), metrics: appleMetrics))
            : NoConfirmationSender()
        return AppleConfirmer(
            sender: sender,
            gate: MeteredAppleCallGate(
                base: RedisAppleCallGate(
                    client: resources.redis, keys: resources.keyspace,
                    callsPerSecond: Double(stageSettings.appleRateLimit)),
                metrics: appleMetrics),
            waitInPlace: stageSettings.appleWaitInPlace)
    }

    /// What confirm sends with both settings off: nothing is ever planned, so never called.
    private struct NoConfirmationSender: ConfirmationSender {
        func send(_ action: ConfirmAction) async throws(AppleCallFailure) {}
    }

    private func appleSource(metrics: AppleCallMetrics) throws -> AppStoreTransactionSource {
        let api = try stageSettings.serverAPIConfiguration(bundleId: stageSettings.bundleId)
        let legacy =
            stageSettings.receiptValidation == .verifyReceipt
            ? VerifyReceiptClient.Configuration(
                sharedSecret: stageSettings.verifyReceiptSharedSecret, productionURL: stageSettings.verifyReceiptURL,
                sandboxURL: stageSettings.verifyReceiptSandboxURL, timeout: stageSettings.appleTimeout
            )
            : nil
        return try AppStoreTransactionSource(
            api: api, verifyReceipt: legacy,
            executor: MeteredAppleHTTPExecutor(
                AsyncHTTPClientExecutor(client: AppleHTTPClient.shared), metrics: metrics)
        )
    }
}
