import AsyncHTTPClient
public import Foundation
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
    }

    public struct Notification: Decodable, Sendable {
        public var signedPayload: String
    }

    public let baseURL: String

    public init(baseURL: String) {
        self.baseURL = baseURL
    }

    /// `type`: `Consumable`, `Non-Consumable`, `Auto-Renewable Subscription`, `Non-Renewing Subscription`.
    public func purchase(
        productId: String, type: String, bundleId: String, quantity: Int = 1, appAccountToken: String? = nil,
        environment: String = "Production", familyShared: Bool = false, expiresInSeconds: Double? = nil
    ) async throws -> Transaction {
        var body: [String: Any] = ["productId": productId, "type": type, "bundleId": bundleId, "quantity": quantity, "environment": environment]
        if let appAccountToken { body["appAccountToken"] = appAccountToken }
        if familyShared { body["inAppOwnershipType"] = "FAMILY_SHARED" }
        if let expiresInSeconds { body["expiresInSeconds"] = expiresInSeconds }
        return try await post("/sim/v1/purchases", body: body)
    }

    /// A renewal: the new transaction, plus the DID_RENEW notification's `signedPayload`.
    public func renew(originalTransactionId: String) async throws -> Transaction {
        try await post("/sim/v1/subscriptions/\(originalTransactionId)/renew", body: [:])
    }

    public func expire(originalTransactionId: String) async throws -> Notification {
        try await post("/sim/v1/subscriptions/\(originalTransactionId)/expire", body: [:])
    }

    public func refund(transactionId: String) async throws -> Notification {
        try await post("/sim/v1/transactions/\(transactionId)/refund", body: [:])
    }

    /// Family Sharing revocation (REVOKE).
    public func revoke(transactionId: String) async throws -> Notification {
        try await post("/sim/v1/transactions/\(transactionId)/revoke", body: [:])
    }

    private func post<Response: Decodable>(_ path: String, body: [String: Any]) async throws -> Response {
        var request = HTTPClientRequest(url: baseURL + path)
        request.method = .POST
        request.headers.add(name: "content-type", value: "application/json")
        request.body = .bytes(ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: body)))
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
        let bytes = try await response.body.collect(upTo: 4 << 20)
        guard response.status == .ok || response.status == .created else {
            throw LocalStackError("simulator \(path) answered \(response.status.code): \(String(buffer: bytes))")
        }
        return try JSONDecoder().decode(Response.self, from: Data(bytes.readableBytesView))
    }
}
