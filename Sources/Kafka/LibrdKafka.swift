internal import CRdKafka

/// Facts about the linked librdkafka, logged at start-up so an operator can tell which
/// release (and which of its known bugs) a worker runs with.
public enum LibrdKafka {
    /// The linked library's version string, e.g. `2.0.2`.
    public static var version: String { String(cString: rd_kafka_version_str()) }
}
