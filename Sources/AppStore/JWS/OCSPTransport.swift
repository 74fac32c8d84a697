public import AsyncHTTPClient
import Basics
import Foundation
import NIOCore
import NIOHTTP1

/// Sends one DER OCSP request and returns the DER response.
///
/// Throwing means "no answer" (network error, non-200, timeout): the verifier then reports
/// ``VerificationResult/retryable(_:)`` instead of refusing the purchase.
public protocol OCSPTransport: Sendable {
    func post(request: [UInt8], to uri: String) async throws -> [UInt8]
}

/// OCSP over HTTP POST (`application/ocsp-request`), as Apple's responders expect.
public struct HTTPOCSPTransport: OCSPTransport {
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    private let client: HTTPClient
    private let timeout: TimeAmount

    /// - Parameter timeout: Apple's library waits 30 s; swift-certificates also bounds the whole check.
    public init(client: HTTPClient = .shared, timeout: Duration = .seconds(30)) {
        self.client = client
        self.timeout = .nanoseconds(timeout.nanoseconds)
    }

    public func post(request: [UInt8], to uri: String) async throws -> [UInt8] {
        var httpRequest = HTTPClientRequest(url: uri)
        httpRequest.method = .POST
        httpRequest.headers.add(name: "Content-Type", value: "application/ocsp-request")
        httpRequest.headers.add(name: "Accept", value: "application/ocsp-response")
        httpRequest.body = .bytes(request)
        let response = try await self.client.execute(httpRequest, timeout: self.timeout)
        guard response.status == .ok else {
            throw Failure(description: "OCSP responder \(uri) answered HTTP \(response.status.code)")
        }
        let body = try await response.body.collect(upTo: 1024 * 1024)
        return Array(body.readableBytesView)
    }
}
