import Foundation

/// Who this replica is to Kafka: a unique `client.id`, and optionally a `group.instance.id`
/// (read by ``HostSettings``).
///
/// With static membership (a stable `group.instance.id` per replica, e.g. a StatefulSet pod name)
/// a restarted replica gets its partitions back without making the whole group rebalance, as
/// long as it returns within `session.timeout.ms`.
public struct ReplicaIdentity: Sendable, Hashable {
    public var clientId: String
    public var groupInstanceId: String?

    public init(clientId: String, groupInstanceId: String? = nil) {
        self.clientId = clientId
        self.groupInstanceId = groupInstanceId
    }

    /// The machine's host name, used when `HOSTNAME` is not set.
    static var hostName: String { ProcessInfo.processInfo.hostName }
}
