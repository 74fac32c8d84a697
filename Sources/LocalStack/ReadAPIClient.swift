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
        let user = userId.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? userId
        var request = HTTPClientRequest(url: "\(baseURL)/v1/apps/\(bundleId)/customers/\(user)")
        request.headers.add(name: "authorization", value: "Bearer \(key)")
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
        let body = try await response.body.collect(upTo: 4 << 20)
        guard response.status == .ok else {
            throw LocalStackError("iap-api answered \(response.status.code): \(String(buffer: body))")
        }
        return try EventDecoder.decodeWithCodable(CustomerView.self, from: Array(body.readableBytesView))
    }
}
