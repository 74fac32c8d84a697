import AsyncHTTPClient
import Contracts
public import Customers
import Foundation
import NIOCore
import NIOHTTP1

/// The read API as a backend calls it (docs/openapi.yaml): what the demo ends with and what the
/// scenario tests compare with the customer state.
public struct ReadAPIClient: Sendable {
    public let baseURL: String
    private let key: String

    public init(baseURL: String, key: String) {
        self.baseURL = baseURL
        self.key = key
    }

    /// The stack's API with its development key; nil when the stack runs no `iap-api`.
    public init?(_ endpoints: LocalStackEndpoints) {
        guard let api = endpoints.api, let key = endpoints.apiKey else { return nil }
        self.init(baseURL: api, key: key)
    }

    /// `GET /v1/apps/{bundleId}/customers/{userId}`.
    public func customer(bundleId: String, userId: String) async throws -> CustomerView {
        try await get(CustomerView.self, "/v1/apps/\(bundleId)/customers/\(Self.escaped(userId))")!
    }

    /// `GET /v1/apps/{bundleId}/purchases/{eventId}?wait=`: nil when the API knows no decision (404).
    public func purchase(bundleId: String, eventId: String, wait: Int = 0) async throws -> PurchaseStatus? {
        try await get(
            PurchaseStatus.self, "/v1/apps/\(bundleId)/purchases/\(Self.escaped(eventId))?wait=\(wait)s",
            timeout: .seconds(Int64(wait) + 10), notFound: true)
    }

    /// `GET /v1/apps/{bundleId}/transactions/{transactionId}/history`: nil when unknown (404).
    public func history(bundleId: String, transactionId: String) async throws -> TransactionHistory? {
        try await get(
            TransactionHistory.self, "/v1/apps/\(bundleId)/transactions/\(Self.escaped(transactionId))/history",
            notFound: true)
    }

    private func get<Value: Decodable>(
        _ type: Value.Type, _ path: String, timeout: TimeAmount = .seconds(10), notFound: Bool = false
    ) async throws -> Value? {
        var request = HTTPClientRequest(url: baseURL + path)
        request.headers.add(name: "authorization", value: "Bearer \(key)")
        let response = try await HTTPClient.shared.execute(request, timeout: timeout)
        let body = try await response.body.collect(upTo: 4 << 20)
        if notFound, response.status == .notFound { return nil }
        guard response.status == .ok else {
            throw LocalStackError("iap-api answered \(response.status.code): \(String(buffer: body))")
        }
        return try EventDecoder.decodeWithCodable(type, from: Array(body.readableBytesView))
    }

    private static func escaped(_ id: String) -> String {
        id.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "/?")))
            ?? id
    }
}
