import Pipeline
import Purchases
public import Topology
import WorkerCommon

/// What each stage needs from its pipeline-file entry beyond what every stage has: topics by
/// role, the windows it reads, and the durations that must outlast one another. Checked when a
/// worker starts and by `iap config check`, so a typo is refused instead of leaving a default
/// silently in force.
public struct StageLayout: Sendable {
    /// Output roles the stage writes to.
    public var outputs: [String]
    /// Output roles holding the durable copy of state the stage keeps in Redis (decision D35):
    /// they must be compacted topics, since a time retention would forget a purchase's binding
    /// or state while the purchase lives on.
    public var durable: [String] = []
    /// Input roles the stage tells apart (a stage that reads all inputs alike names none).
    public var inputs: [String] = []
    /// Window names the stage reads, with their defaults.
    public var windows: [String: Duration] = [:]
    /// Whether the stage reads, changes and writes state per key (a binding, a grant's state, a
    /// customer) and so relies on one replica running a key's records one at a time: its
    /// retries must come back through its key's own partition, not a retry topic, whose
    /// partitions Kafka assigns apart from the input's (D67).
    public var keyedState = false
    /// Input roles whose failed records the stage tries again where they are instead of
    /// re-publishing them (D68, D69): inputs a re-published copy would harm, where the failures
    /// are Redis's or Kafka's only. The customer state's `iap.entitlements` is read by every
    /// backend; match's `iap.orders` is compacted, where a retried order re-published after a
    /// newer one of its token would be the copy kept. Match's verified transactions stay
    /// scheduled: their retries go back to `iap.verified`, which only match reads, so holding
    /// them would buy nothing (D69). The price is the partition's commit held while a record
    /// retries, up to its retry policy's horizon.
    public var retriesInPlace: [String] = []

    public static func of(_ stage: StageName) -> StageLayout {
        switch stage {
        case .intake: StageLayout(outputs: ["verify"])
        case .verify: StageLayout(outputs: ["verified"])
        case .match:
            StageLayout(
                outputs: ["matched", "unmatched", "ownership"], durable: ["ownership"], inputs: ["verified", "orders"],
                windows: ["unmatched": MatchConfiguration().waitWindow, "orderGrace": MatchConfiguration().orderGrace],
                keyedState: true, retriesInPlace: ["orders"]
            )
        case .grant: StageLayout(outputs: ["entitlements", "state"], durable: ["state"], keyedState: true)
        case .state:
            StageLayout(
                outputs: ["customers"], durable: ["customers"], inputs: ["entitlements", "audit"],
                windows: ["audit": RedisAuditIndex.defaultRetention], keyedState: true,
                retriesInPlace: ["entitlements"])
        case .confirm: StageLayout(outputs: [])
        }
    }

    /// How long the runtime keeps a record's "done" marker (``WorkerConfiguration``).
    static let idempotencyRetention = WorkerConfiguration.defaultIdempotencyRetention
    /// How long match keeps a parked transaction.
    static let waitingRetention = RedisWaitingTransactionStore.defaultRetention

    /// Refuses a missing role, a durable role on a topic that is not compacted, an unknown window
    /// and windows that do not fit in one another.
    public func check(_ spec: StageSpec, in file: PipelineFile) throws(PipelineFileError) {
        for role in outputs { _ = try spec.output(role) }
        for role in durable {
            let topic = try spec.output(role)
            guard file.allTopics.first(where: { $0.name == topic })?.cleanupPolicy == .compact else {
                throw PipelineFileError(
                    code: .contradiction,
                    message:
                        "stage '\(spec.name)' keeps its \(role) in '\(topic)', which must be compacted (cleanupPolicy: compact)"
                )
            }
        }
        for role in inputs + retriesInPlace { _ = try spec.input(role) }
        if keyedState, let retryTopic = spec.retryTopic {
            throw PipelineFileError(
                code: .invalidRetryTopic,
                message:
                    "stage '\(spec.name)' keeps state per key and must see its retries in the key's own partition; remove retryTopic '\(retryTopic)'"
            )
        }
        for name in spec.windows.keys.sorted() where windows[name] == nil {
            let known = windows.isEmpty ? "none" : windows.keys.sorted().joined(separator: ", ")
            throw PipelineFileError(
                code: .unknownWindow, message: "stage '\(spec.name)' has no window '\(name)' (its windows: \(known))")
        }
        let window = { (name: String) in spec.windows[name]?.duration ?? windows[name] ?? .zero }
        if windows["unmatched"] != nil {
            try outlasts(
                Self.waitingRetention, "match's parked-transaction retention (8d)", window("unmatched"),
                "windows.unmatched", spec)
            try outlasts(window("unmatched"), "windows.unmatched", window("orderGrace"), "windows.orderGrace", spec)
            // A transaction waiting for its order must reach iap.unmatched, not the DLQ.
            try outlasts(spec.retry.maxWait, "retry.maxWait", window("unmatched"), "windows.unmatched", spec)
        }
    }

    /// How long this stage keeps a record's "done" marker: at least the runtime's 9 days, and a
    /// day longer than a record can come again, which is until its input topic drops it (a group
    /// whose offsets expired replays from the oldest retained record) or until its last retry or
    /// wait ends (`retry.maxWait` bounds every wait). Derived rather than checked, so a longer
    /// topic retention cannot outlive its markers and repeat a side effect (D24).
    public static func idempotencyRetention(of spec: StageSpec, in file: PipelineFile) -> Duration {
        let retained =
            spec.inputs.compactMap { input in file.topics.first { $0.name == input }?.retention?.duration }.max()
            ?? .zero
        let waited = max(spec.windows.values.map(\.duration).max() ?? .zero, spec.retry.maxWait)
        let lastDelivery = max(retained, spec.retry.horizon + waited)
        return max(idempotencyRetention, lastDelivery + .seconds(24 * 3600))
    }

    private func outlasts(
        _ long: Duration, _ longName: String, _ short: Duration, _ shortName: String, _ spec: StageSpec
    ) throws(PipelineFileError) {
        guard long >= short else {
            throw PipelineFileError(
                code: .contradiction,
                message: "stage '\(spec.name)': \(longName) must outlast \(shortName) (\(long) < \(short))"
            )
        }
    }
}
