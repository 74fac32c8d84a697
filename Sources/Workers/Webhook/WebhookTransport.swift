import AsyncHTTPClient
import Basics
import NIOCore
import NIOHTTP1

/// One POST to the backend's webhook; a protocol so delivery rules are testable offline.
public protocol WebhookTransport: Sendable {
    /// The HTTP status and headers, or a thrown error when no response came (connection, timeout).
    func post(url: String, headers: [(String, String)], body: [UInt8], timeout: Duration) async throws -> (
        status: Int, headers: [(String, String)]
    )
}

/// ``WebhookTransport`` over AsyncHTTPClient.
public struct HTTPWebhookTransport: WebhookTransport {
    public init() {}

    public func post(url: String, headers: [(String, String)], body: [UInt8], timeout: Duration) async throws -> (
        status: Int, headers: [(String, String)]
    ) {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        request.body = .bytes(ByteBuffer(bytes: body))
        let response = try await HTTPClient.shared.execute(request, timeout: .nanoseconds(timeout.nanoseconds))
        // Drain the body so the connection can be reused; receivers answer with little or nothing.
        _ = try? await response.body.collect(upTo: 64 * 1024)
        return (Int(response.status.code), response.headers.map { ($0.name, $0.value) })
    }
}
