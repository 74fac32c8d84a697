public import Foundation

/// Who this replica is to Kafka: a unique `client.id`, and optionally a `group.instance.id`.
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

    /// Reads the identity from the environment:
    /// - `IAP_CLIENT_ID`: the client id (default `<stage>-<host name>`);
    /// - `IAP_GROUP_INSTANCE_ID`: a static member id; or `IAP_STATIC_MEMBERSHIP=true` to use the
    ///   host name (Kubernetes sets it to the pod name).
    public static func fromEnvironment(stage: String, environment: [String: String] = ProcessInfo.processInfo.environment) -> ReplicaIdentity {
        let host = environment["HOSTNAME"] ?? ProcessInfo.processInfo.hostName
        let clientId = environment["IAP_CLIENT_ID"] ?? "\(stage)-\(host)"
        var instance = environment["IAP_GROUP_INSTANCE_ID"]
        if instance == nil, environment["IAP_STATIC_MEMBERSHIP"]?.lowercased() == "true" {
            instance = "\(stage)-\(host)"
        }
        return ReplicaIdentity(clientId: clientId, groupInstanceId: instance)
    }
}
