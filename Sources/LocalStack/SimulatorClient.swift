import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// The App Store simulator's control API (`/sim/v1`, docs/simulator.md): what a customer
/// does on a device (buy, renew, get a refund) so the demo and tests can make real,
/// simulator-signed purchases.
public struct SimulatorClient: Sendable {
    /// One purchase as the simulator returns it: every form a backend might receive.
    public struct Transaction: Decodable, Sendable {
        public var transactionId: String
        public var originalTransactionId: String
        public var signedTransaction: String
        public var appReceipt: String
        public var transactionReceipt: String
        public var signedPayload: String?
        /// The order id on the customer's receipt email (Look Up Order ID).
        public var orderId: String?
    }

    public struct Notification: Decodable, Sendable {
        public var signedPayload: String
    }

    /// `GET /sim/v1/stats`: what the pipeline asked of the simulated Apple since the simulator
    /// started (or `DELETE /sim/v1/stats` cleared it).
    public struct Stats: Decodable, Sendable {
        public var serverAPIRequests: Int
        public var verifyReceiptRequests: Int
        /// Faults injected, by kind (`"429"`, `"5000001"`, `"timeout"`, …); kinds never injected are absent.
        public var faults: [String: Int]
        /// Server API calls for a resource made before the `Retry-After` a 429 gave for it; 0 means
        /// the pipeline honoured every rate limit it was given.
        public var callsBeforeRetryAfter: Int
    }

    public let baseURL: String

    public init(baseURL: String) {
        self.baseURL = baseURL
    }

    /// `type`: `Consumable`, `Non-Consumable`, `Auto-Renewable Subscription`, `Non-Renewing Subscription`.
    public func purchase(
        productId: String, type: String, bundleId: String, quantity: Int = 1, appAccountToken: String? = nil,
        environment: String = "Production", familyShared: Bool = false, expiresInSeconds: Double? = nil,
        deliver: Bool = true
    ) async throws -> Transaction {
        var body: [String: Any] = [
            "productId": productId, "type": type, "bundleId": bundleId, "quantity": quantity,
            "environment": environment,
        ]
        if let appAccountToken { body["appAccountToken"] = appAccountToken }
        if familyShared { body["inAppOwnershipType"] = "FAMILY_SHARED" }
        if let expiresInSeconds { body["expiresInSeconds"] = expiresInSeconds }
        if !deliver { body["deliver"] = false }
        return try await exchange("/sim/v1/purchases", body: body)
    }

    /// A renewal: the new transaction, plus the DID_RENEW notification's `signedPayload`.
    /// With `deliver` false the DID_RENEW never reaches the gateway (history shows it failed).
    public func renew(originalTransactionId: String, deliver: Bool = true) async throws -> Transaction {
        try await exchange(
            "/sim/v1/subscriptions/\(originalTransactionId)/renew", body: deliver ? [:] : ["deliver": false])
    }

    public func expire(originalTransactionId: String) async throws -> Notification {
        try await exchange("/sim/v1/subscriptions/\(originalTransactionId)/expire", body: [:])
    }

    /// The renewal's payment fails (DID_FAIL_TO_RENEW); with `gracePeriodSeconds`, in a billing
    /// grace period (subtype GRACE_PERIOD). A later ``renew(originalTransactionId:deliver:)`` is
    /// the billing recovery.
    public func failRenewal(originalTransactionId: String, gracePeriodSeconds: Double? = nil) async throws
        -> Notification
    {
        try await exchange(
            "/sim/v1/subscriptions/\(originalTransactionId)/fail-renewal",
            body: gracePeriodSeconds.map { ["gracePeriodSeconds": $0] } ?? [:])
    }

    /// The customer turns auto-renew off or on (DID_CHANGE_RENEWAL_STATUS, AUTO_RENEW_DISABLED or
    /// AUTO_RENEW_ENABLED).
    public func setAutoRenew(originalTransactionId: String, enabled: Bool) async throws -> Notification {
        try await exchange("/sim/v1/subscriptions/\(originalTransactionId)/auto-renew", body: ["enabled": enabled])
    }

    /// The billing grace period ends with no recovery (GRACE_PERIOD_EXPIRED).
    public func endGracePeriod(originalTransactionId: String) async throws -> Notification {
        try await exchange("/sim/v1/subscriptions/\(originalTransactionId)/grace-period-expired", body: [:])
    }

    /// Expires a subscription with no notification at all (only reconcile's sweep notices).
    public func expireSilently(originalTransactionId: String) async throws {
        let _: Ignored = try await exchange(
            "/sim/v1/subscriptions/\(originalTransactionId)/expire", body: ["notify": false])
    }

    /// An answer whose content does not matter.
    struct Ignored: Decodable {}

    /// Sets the simulator's faults (`PUT /sim/v1/faults`); omitted keys take their defaults.
    public func setFaults(_ faults: [String: Any]) async throws {
        let _: Ignored = try await exchange("/sim/v1/faults", body: faults, method: .PUT)
    }

    public func refund(transactionId: String) async throws -> Notification {
        try await exchange("/sim/v1/transactions/\(transactionId)/refund", body: [:])
    }

    /// Family Sharing revocation (REVOKE).
    public func revoke(transactionId: String) async throws -> Notification {
        try await exchange("/sim/v1/transactions/\(transactionId)/revoke", body: [:])
    }

    /// Request counts and early calls so far.
    public func stats() async throws -> Stats {
        try await exchange("/sim/v1/stats", body: nil, method: .GET)
    }

    /// One control-API exchange: `body` sent as JSON (none for a GET), the answer decoded.
    func exchange<Response: Decodable>(
        _ path: String, body: [String: Any]? = [:], method: HTTPMethod = .POST
    ) async throws -> Response {
        var request = HTTPClientRequest(url: baseURL + path)
        request.method = method
        if let body {
            request.headers.add(name: "content-type", value: "application/json")
            request.body = .bytes(ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: body)))
        }
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
        let bytes = try await response.body.collect(upTo: 4 << 20)
        guard response.status == .ok || response.status == .created else {
            throw LocalStackError("simulator \(path) answered \(response.status.code): \(String(buffer: bytes))")
        }
        return try JSONDecoder().decode(Response.self, from: Data(bytes.readableBytesView))
    }
}
