import Synchronization
import X509

/// Adapts an ``OCSPTransport`` to swift-certificates and remembers whether any query went
/// unanswered, so a failed validation can be told apart: "revoked" (final) versus "could not
/// ask" (retryable). One instance per validation.
final class RecordingOCSPRequester: OCSPRequester {
    private let transport: any OCSPTransport
    private let unanswered = Mutex<String?>(nil)

    init(transport: any OCSPTransport) {
        self.transport = transport
    }

    /// The first transport failure seen, if any.
    var transportFailure: String? { self.unanswered.withLock { $0 } }

    func query(request: [UInt8], uri: String) async -> OCSPRequesterQueryResult {
        do {
            return .response(try await self.transport.post(request: request, to: uri))
        } catch {
            self.unanswered.withLock { first in
                if first == nil { first = "OCSP query to \(uri) failed: \(error)" }
            }
            return .terminalError(error)
        }
    }
}
