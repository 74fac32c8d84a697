public import Topology

/// How one stage's worker consumes, bounds its work, retries and deduplicates.
public struct WorkerConfiguration: Sendable {
    /// Stage name, used in metrics, logs and Redis key names.
    public var stage: String
    /// Kafka consumer group shared by all replicas of the stage.
    public var consumerGroup: String
    public var inputTopics: [String]
    /// Where refused records go, with their reason code.
    public var rejectTopic: String
    /// Where the runtime appends the audit entries of the outcomes it writes (a rejection, a
    /// skip, a duplicate, a dead letter; decision D51); nil writes none.
    public var auditTopic: String?
    /// Where due retries and waits are re-published, when not to the input they came from: a
    /// topic only this stage's group reads (``StageSpec/retryTopic``, decision D67). The
    /// consumer must subscribe to it besides the inputs.
    public var retryTopic: String?
    /// The input topics whose failed records are tried again where they are, holding their key
    /// and their partition's position, instead of being scheduled and re-published (decisions
    /// D68, D69): inputs where a re-published copy does harm, one that others read (the customer
    /// state's `iap.entitlements`: the copy would reach every reader again) or a compacted one
    /// (match's `iap.orders`: a late copy would replace a newer record of its key).
    /// ``retryPolicy`` spaces the tries and bounds them alike; a worker that stops or loses the
    /// partition meanwhile gives the record back to the partition's next owner.
    public var retriesInPlace: Set<String> = []
    /// Records processed concurrently (at most one per key).
    public var maxInFlight: Int = 256
    /// Records fetched but not finished (running, waiting behind their key, or waiting for a
    /// slot) before the worker pauses its partitions; it resumes at half. Defaults to four times
    /// `maxInFlight`, so a pause is rare and resuming overlaps the records still buffered (a
    /// paused partition's prefetched records are dropped by librdkafka and fetched again).
    public var maxBuffered: Int?

    var bufferBound: Int { max(maxBuffered ?? maxInFlight * 4, maxInFlight) }
    /// Larger records are rejected as `malformed_event` without being parsed.
    public var maxMessageBytes: Int = 1 << 20
    public var retryPolicy = RetryPolicy()
    /// How long an idempotency lock lives if its holder dies mid-work.
    public var lockTTL: Duration = .seconds(30)
    /// How long "done" markers are kept: longer than any redelivery can come (an input's
    /// retention, the retry horizon plus a wait); `StageLayout` checks the pipeline file against it.
    public var idempotencyRetention: Duration = Self.defaultIdempotencyRetention
    /// 9 days.
    public static let defaultIdempotencyRetention: Duration = .seconds(9 * 24 * 3600)
    /// How long a revocation waits for running records of revoked partitions.
    public var revocationDrainTimeout: Duration = .seconds(15)

    public init(stage: String, consumerGroup: String, inputTopics: [String], rejectTopic: String) {
        self.stage = stage
        self.consumerGroup = consumerGroup
        self.inputTopics = inputTopics
        self.rejectTopic = rejectTopic
    }
}
