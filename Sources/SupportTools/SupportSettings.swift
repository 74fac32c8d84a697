import AppStore
import AppStoreModels
public import Kafka
public import Logging
public import Pipeline
public import Purchases
public import Redis
public import Settings
public import Topology
public import WorkerCommon

/// What the support tools read: verify's settings (Apple API key, endpoints, trusted roots,
/// environment policy), where Kafka, grant's Redis and the pipeline file are. Read through the
/// same settings layer as the workers, so the tools check and call exactly as verify does.
public struct SupportSettings: Sendable {
    public var verify: StageSettings
    /// The app the tools act for: `--bundle-id`, or the deployment's only app (D57).
    public var app: AppSettings
    public var kafka: KafkaCluster
    public var redis: RedisSettings
    public var pipeline: PipelineFile
    /// How the app derives `appAccountToken` from a user id (`IAP_TOKEN_SCHEME`, match's), for
    /// `iap support app-account-token --user-id`; nil when none is set.
    public var tokenScheme: AppAccountTokenScheme?

    /// - Parameter bundleId: the app (`--bundle-id`); required when the deployment serves several.
    public init(reader: SettingsReader, bundleId: String? = nil) throws {
        verify = try StageSettings(stage: .verify, reader: reader)
        guard let app = verify.app(bundleId) else {
            let served = verify.apps.map(\.bundleId).joined(separator: ", ")
            throw SettingsError(
                .invalidValue, key: StageSettings.appsKey.name,
                bundleId.map { "app '\($0)' is not one this deployment serves (\(served))" }
                    ?? "this deployment serves several apps (\(served)): name one with --bundle-id")
        }
        self.app = app
        tokenScheme = try StageSettings(stage: .match, reader: reader).tokenScheme
        kafka = KafkaCluster(
            bootstrapServers: try reader.value(ClusterSettings.kafkaBrokers),
            properties: ClusterSettings.kafkaProperties(reader))
        redis = try RedisSettings(reader: reader)
        pipeline = try PipelineFile.load(path: try reader.value(ClusterSettings.pipeline))
    }

    /// The Server API client (production first, sandbox when the policy accepts it) and the
    /// checker of what it returns, both from verify's settings.
    public func appleLookups(logger: Logger) throws -> AppleCustomerLookups {
        // Verify walks the environments itself; a lookup lets the client do it, starting where
        // the deployment's data lives.
        var api = try verify.serverAPIConfiguration(for: app)
        api.environment = app.environmentPolicy.deployment == .sandbox ? .sandbox : .production
        api.sandboxFallback = app.environmentPolicy.refusal(for: .sandbox) == nil
        return AppleCustomerLookups(
            client: try AppStoreServerAPIClient(configuration: api),
            checker: try SignedDataChecker(configuration: try verify.verifyConfiguration(for: app), logger: logger))
    }

    /// Apple's server actions with verify's key and environment, asking the shared Apple gate in
    /// `redis` (the workers' budget) before each call.
    public func serverActions(
        redis: RedisClient, logger: Logger, onWait: @escaping @Sendable (Duration) -> Void = { _ in }
    ) throws -> AppleServerActions {
        let lookups = try appleLookups(logger: logger)
        return AppleServerActions(
            client: lookups.client, checker: lookups.checker,
            gate: RedisAppleCallGate(
                client: redis, callsPerSecond: Double(verify.appleRateLimit), app: app.gateScope),
            onWait: onWait)
    }

    /// Grant's Redis (its entitlement states).
    public func redisClient(logger: Logger) throws -> RedisClient {
        RedisClient(configuration: try redis.configuration(), logger: logger)
    }

    /// The topic backends publish purchases to: intake's `purchases` input.
    public func purchasesTopic() throws -> String {
        try pipeline.topic(.purchases)
    }

    /// Where a notification travels from the gateway through intake to verify.
    public func notificationRoute() throws -> NotificationSelfCheck.Route {
        let intake = try pipeline.stage(.intake)
        let verify = try pipeline.stage(.verify)
        return NotificationSelfCheck.Route(
            notificationsTopic: try pipeline.topic(.notifications), intakeGroup: intake.consumerGroup,
            verifyTopic: try verify.input("verify"), verifyGroup: verify.consumerGroup)
    }
}
