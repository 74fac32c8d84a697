public import AsyncHTTPClient
import Basics
import Foundation
import NIOCore
import NIOHTTP1

/// One HTTP exchange with Apple, reduced to what classification needs.
public struct AppleHTTPRequest: Sendable {
    public var method: String
    public var url: String
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]?

    public init(method: String, url: String, headers: [(name: String, value: String)] = [], body: [UInt8]? = nil) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }

    public func header(_ name: String) -> String? {
        self.headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }
}

public struct AppleHTTPResponse: Sendable {
    public var status: Int
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]

    public init(status: Int, headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    public func header(_ name: String) -> String? {
        self.headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }
}

/// Sends requests to Apple. A protocol so clients can be exercised without a network; a
/// failure without any HTTP response is always a ``TransportFailure`` (retryable).
public protocol AppleHTTPExecutor: Sendable {
    func execute(_ request: AppleHTTPRequest, timeout: Duration) async throws(TransportFailure) -> AppleHTTPResponse
}

extension TransportFailure: Error {}

/// ``AppleHTTPExecutor`` over AsyncHTTPClient.
public struct AsyncHTTPClientExecutor: AppleHTTPExecutor {
    private let client: HTTPClient
    private let maximumBodySize: Int

    /// - Parameter maximumBodySize: Apple's library reads at most 1 MiB; history pages are far smaller.
    public init(client: HTTPClient = .shared, maximumBodySize: Int = 4 * 1024 * 1024) {
        self.client = client
        self.maximumBodySize = maximumBodySize
    }

    public func execute(_ request: AppleHTTPRequest, timeout: Duration) async throws(TransportFailure)
        -> AppleHTTPResponse
    {
        var httpRequest = HTTPClientRequest(url: request.url)
        httpRequest.method = HTTPMethod(rawValue: request.method)
        for (name, value) in request.headers {
            httpRequest.headers.add(name: name, value: value)
        }
        if let body = request.body {
            httpRequest.body = .bytes(body)
        }
        do {
            let response = try await self.client.execute(httpRequest, timeout: .nanoseconds(timeout.nanoseconds))
            let body = try await response.body.collect(upTo: self.maximumBodySize)
            return AppleHTTPResponse(
                status: Int(response.status.code),
                headers: response.headers.map { ($0.name, $0.value) },
                body: Array(body.readableBytesView)
            )
        } catch let error as HTTPClientError where Self.isTimeout(error) {
            throw .timeout
        } catch {
            throw .connection(String(describing: error))
        }
    }

    private static func isTimeout(_ error: HTTPClientError) -> Bool {
        [HTTPClientError.deadlineExceeded, .readTimeout, .connectTimeout, .writeTimeout].contains(error)
    }
}
