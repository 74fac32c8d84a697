/// Limits intake enforces before anything else reads an event.
public struct IntakeConfiguration: Sendable, Hashable {
    /// Larger events are `malformed_event`. 1 MiB: Kafka's default message size, and far above
    /// the largest legitimate event (an app receipt with hundreds of records).
    public var maximumEventBytes: Int

    public init(maximumEventBytes: Int = 1 << 20) {
        self.maximumEventBytes = maximumEventBytes
    }
}
