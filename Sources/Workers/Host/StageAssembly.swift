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
            let configurations = try stageSettings.apps.map { app throws in
                (app, try stageSettings.verifyConfiguration(for: app))
            }
            try await run { resources in
                let appleMetrics = AppleCallMetrics(factory: resources.metricsFactory)
                // Transaction ids are Apple's, unique across apps: one cache serves them all.
                let cache = RedisVerifiedTransactionCache(client: resources.redis, keys: resources.keyspace)
                let verifiers = try configurations.map { app, configuration throws in
                    let verifier = try TransactionVerifier(
                        configuration: configuration, source: try appleSource(for: app, metrics: appleMetrics),
                        cache: cache,
                        gate: appleGate(for: app, resources, metrics: appleMetrics),
                        logger: resources.logger, onOCSPOfflineAccept: appleMetrics.countOCSPOfflineAccept
                    )
                    return (app.bundleId, verifier)
                }
                return VerifyHandler(
                    verifiers: PerApp(verifiers), verifiedTopic: verifiedTopic, appleMetrics: appleMetrics,
                    audit: audit)
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
                    confirmers: try confirmers(configuration, resources, appleMetrics: appleMetrics),
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
            retriesInPlace: Set(try StageLayout.of(stage).retriesInPlace.map { try spec.input($0) }),
            recoverySteps: recoverySteps, makeHandler: makeHandler
        )
        try await worker.run(until: stop)
    }

    /// The shared Apple gate of `app`'s calls (its own timelines with several apps: D57), counted
    /// in `metrics`.
    private func appleGate(for app: AppSettings, _ resources: WorkerResources, metrics: AppleCallMetrics)
        -> MeteredAppleCallGate
    {
        MeteredAppleCallGate(
            base: RedisAppleCallGate(
                client: resources.redis, keys: resources.keyspace,
                callsPerSecond: Double(stageSettings.appleRateLimit), app: app.gateScope),
            metrics: metrics)
    }

    /// The metered HTTP executor every Apple client of the stage shares.
    private func appleExecutor(_ metrics: AppleCallMetrics) -> MeteredAppleHTTPExecutor {
        MeteredAppleHTTPExecutor(AsyncHTTPClientExecutor(client: AppleHTTPClient.shared), metrics: metrics)
    }

    /// Grant's consumption answers, when `IAP_CONSUMPTION_ANSWER` is on: per app, the same Apple
    /// credentials, HTTP client and shared rate gate as verify's calls.
    private func consumptionStep(_ resources: WorkerResources) throws -> ConsumptionStep? {
        guard let configuration = stageSettings.consumption else { return nil }
        let appleMetrics = AppleCallMetrics(factory: resources.metricsFactory)
        let answerers = try stageSettings.apps.map { app throws in
            let answerer = ConsumptionAnswerer(
                configuration: configuration,
                states: RedisEntitlementStateStore(
                    client: resources.redis, keys: resources.keyspace, fence: resources.fence),
                ledger: RedisConsumptionLedger(client: resources.redis, keys: resources.keyspace),
                sender: try AppStoreConsumptionSender(
                    api: try stageSettings.serverAPIConfiguration(for: app), executor: appleExecutor(appleMetrics)),
                gate: appleGate(for: app, resources, metrics: appleMetrics),
                waitInPlace: stageSettings.appleWaitInPlace
            )
            return (app.bundleId, answerer)
        }
        return ConsumptionStep(
            answerers: PerApp(answerers), metrics: ConsumptionMetrics(factory: resources.metricsFactory),
            appleMetrics: appleMetrics, logger: resources.logger)
    }

    /// Confirm's calls to Apple, per app: the same credentials, HTTP client and shared rate gate
    /// as verify's. With both settings off it makes none, and needs no credentials.
    private func confirmers(
        _ configuration: ConfirmConfiguration, _ resources: WorkerResources, appleMetrics: AppleCallMetrics
    ) throws -> PerApp<AppleConfirmer> {
        guard configuration.isEnabled else {
            // Nothing is ever planned, so no app is ever looked up.
            return PerApp([])
        }
        return PerApp(
            try stageSettings.apps.map { app throws in
                let sender = try AppStoreConfirmationSender(
                    api: try stageSettings.serverAPIConfiguration(for: app), executor: appleExecutor(appleMetrics))
                let confirmer = AppleConfirmer(
                    sender: sender, gate: appleGate(for: app, resources, metrics: appleMetrics),
                    waitInPlace: stageSettings.appleWaitInPlace)
                return (app.bundleId, confirmer)
            })
    }

    private func appleSource(for app: AppSettings, metrics: AppleCallMetrics) throws -> AppStoreTransactionSource {
        let api = try stageSettings.serverAPIConfiguration(for: app)
        let legacy =
            stageSettings.receiptValidation == .verifyReceipt
            ? VerifyReceiptClient.Configuration(
                sharedSecret: stageSettings.verifyReceiptSharedSecret, productionURL: stageSettings.verifyReceiptURL,
                sandboxURL: stageSettings.verifyReceiptSandboxURL, timeout: stageSettings.appleTimeout
            )
            : nil
        return try AppStoreTransactionSource(api: api, verifyReceipt: legacy, executor: appleExecutor(metrics))
    }
}
