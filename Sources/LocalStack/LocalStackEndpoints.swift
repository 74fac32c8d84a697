/// Where everything of a running local stack listens: `iap-dev dev up --json`'s ready line
/// (a contract, README "The `iap` CLI"). Keys beyond the contract's are additions.
public struct LocalStackEndpoints: Codable, Sendable {
    /// Bootstrap servers of the embedded broker.
    public var kafka: String
    /// `redis://127.0.0.1:PORT` of the `redis-server` child.
    public var redis: String
    /// Base URL of the App Store simulator (`/production`, `/sandbox`, `/sim/v1` below it).
    public var simulator: String
    /// PEM of the simulator's root, which the workers trust instead of Apple's.
    public var rootCertificate: String
    public var bundleId: String
    /// Every app the stack serves, ``bundleId`` first.
    public var apps: [String]
    /// Ops base URL (`/metrics`, `/healthz`, `/readyz`) of every worker process by instance name.
    public var ops: [String: String]
    /// `iap-gateway`'s base URL, when it runs.
    public var gateway: String?
    /// `iap-api`'s base URL, when it runs (`/v1/apps/{bundleId}/customers/{userId}`).
    public var api: String?
    /// A development API key that may read every app of ``apps`` (`Authorization: Bearer <apiKey>`);
    /// the stack's keys file holds only its hash.
    public var apiKey: String?
    /// The derived dev pipeline file the workers read.
    public var pipeline: String
    /// Directory of the child processes' logs.
    public var logs: String
}
