import AppStore
import Foundation
import Synchronization

/// An ``AppleHTTPExecutor`` that answers from a script and records what it was sent.
final class FakeAppleHTTP: AppleHTTPExecutor {
    typealias Responder = @Sendable (AppleHTTPRequest) -> Result<AppleHTTPResponse, TransportFailure>

    private let responder: Responder
    private let recorded = Mutex<[AppleHTTPRequest]>([])

    init(_ responder: @escaping Responder) {
        self.responder = responder
    }

    var requests: [AppleHTTPRequest] { self.recorded.withLock { $0 } }

    func execute(_ request: AppleHTTPRequest, timeout: Duration) async throws(TransportFailure) -> AppleHTTPResponse {
        self.recorded.withLock { $0.append(request) }
        return try self.responder(request).get()
    }

    static func json(_ status: Int, _ text: String, headers: [(name: String, value: String)] = []) -> Result<
        AppleHTTPResponse, TransportFailure
    > {
        .success(AppleHTTPResponse(status: status, headers: headers, body: Array(text.utf8)))
    }
}
