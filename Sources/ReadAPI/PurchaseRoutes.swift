import Contracts
import Customers
import Foundation
import Hummingbird
import WorkerCommon

/// The audit trail's answers (D51): a purchase event's status, waiting for its end when asked,
/// and a transaction's history.
extension ReadRoutes {
    /// The longest `?wait=` a request may ask for: below every usual proxy's idle timeout.
    static let maximumWait: Duration = .seconds(30)

    /// `GET /v1/apps/{bundleId}/purchases/{eventId}[?wait=10s]`. With `wait`, answers as soon as
    /// the status is terminal, else at the end of the wait with what is known then (`pending`,
    /// or 404 if the event was not seen yet): the way a backend answers its client "granted".
    func purchase(_ request: Request, context: BasicRequestContext, key: APIKeyring.Key) async throws -> Response {
        let bundleId = try PathParameters.bundleId(context.parameters.get("bundleId"))
        let eventId = try PathParameters.eventId(context.parameters.get("eventId"))
        let wait = try PathParameters.wait(request.uri.queryParameters.get("wait"), maximum: Self.maximumWait)
        try Self.authorize(key, bundleId: bundleId)
        let deadline = ContinuousClock.now + wait
        var status = try await audit.status(bundleId: bundleId, eventId: eventId)
        while status?.terminal != true, ContinuousClock.now + pollInterval <= deadline {
            try await Task.sleep(for: pollInterval)
            status = try await audit.status(bundleId: bundleId, eventId: eventId)
        }
        guard let status else {
            throw APIError(
                .notFound, .notFound,
                "no decision about event \(eventId) of app \(bundleId) yet (or it is older than the audit window)")
        }
        return Self.json(try EventEncoder.encode(value: status), request: request)
    }

    /// `GET /v1/apps/{bundleId}/transactions/{transactionId}/history`.
    func history(_ request: Request, context: BasicRequestContext, key: APIKeyring.Key) async throws -> Response {
        let bundleId = try PathParameters.bundleId(context.parameters.get("bundleId"))
        let transactionId = try PathParameters.transactionId(context.parameters.get("transactionId"))
        try Self.authorize(key, bundleId: bundleId)
        guard let history = try await audit.history(bundleId: bundleId, transactionId: transactionId) else {
            throw APIError(
                .notFound, .notFound,
                "no decision about transaction \(transactionId) of app \(bundleId) (or it is older than the audit window)"
            )
        }
        return Self.json(try EventEncoder.encode(value: history), request: request)
    }
}
