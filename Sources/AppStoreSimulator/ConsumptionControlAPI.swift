import Foundation
import Hummingbird

/// The control API's consumption routes (beyond the contract in docs/simulator.md):
/// - `POST /sim/v1/transactions/{transactionId}/consumption-request` with an optional
///   `{"reason": "UNINTENDED_PURCHASE"}` sends Apple's `CONSUMPTION_REQUEST` for the
///   transaction (a consumable or an auto-renewable subscription) and answers its `signedPayload`;
/// - `GET /sim/v1/consumption` lists the Send Consumption Information answers the Server API
///   accepted, `{"answers": [...]}` oldest first.
struct ConsumptionControlAPI: Sendable {
    let store: Store
    let log: ConsumptionLog

    private struct RequestBody: Decodable {
        var reason: String?
    }

    private struct Answers: Encodable {
        var answers: [ReceivedConsumption]
    }

    func register(on router: Router<some RequestContext>) {
        let group = router.group("sim/v1").add(middleware: ErrorMiddleware())
        group.post("transactions/:transactionId/consumption-request") { request, context in
            let id = context.parameters.get("transactionId") ?? ""
            let reason = try await Self.reason(of: request)
            return try JSONResponse.make(body: try await store.consumptionRequest(transactionId: id, reason: reason))
        }
        group.get("consumption") { _, _ in
            try JSONResponse.make(body: Answers(answers: log.all))
        }
    }

    /// `UNINTENDED_PURCHASE` unless the body names another of Apple's reasons.
    private static func reason(of request: Request) async throws -> String {
        let known = ["UNINTENDED_PURCHASE", "FULFILLMENT_ISSUE", "UNSATISFIED_WITH_PURCHASE", "LEGAL", "OTHER"]
        var request = request
        let body = try await request.collectBody(upTo: 4096)
        guard body.readableBytes > 0 else { return known[0] }
        let decoded = try? JSONDecoder().decode(RequestBody.self, from: Data(body.readableBytesView))
        guard let decoded else { throw SimulatorError(.badRequest, "body must be {\"reason\": \"...\"}") }
        let reason = decoded.reason ?? known[0]
        guard known.contains(reason) else {
            throw SimulatorError(.badRequest, "reason must be one of \(known.joined(separator: ", "))")
        }
        return reason
    }
}
