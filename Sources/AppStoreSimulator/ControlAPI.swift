import Foundation
import Hummingbird
import NIOCore

/// The simulator's control API under `/sim/v1` (contract: docs/simulator.md).
///
/// Tests and `iap-dev demo` drive purchases and lifecycle changes here. Every change also produces
/// the notification Apple would send: returned as `signedPayload` and sent to the notify URL.
/// Faults never apply here: the control API must stay reliable while it breaks the others.
struct ControlAPI: Sendable {
    let store: Store
    let faults: FaultState
    let stats: TrafficStats
    let rootPEM: String

    func register(on router: Router<some RequestContext>) {
        let group = router.group("sim/v1").add(middleware: ErrorMiddleware())
        group.post("purchases") { request, _ in
            let body = try await JSONResponse.decode(PurchaseRequest.self, from: request)
            let response = try await store.purchase(body)
            return try JSONResponse.make(body: response)
        }
        group.post("subscriptions/:originalTransactionId/renew") { request, context in
            let deliver = try await Self.optionalBody(RenewRequest.self, from: request)?.deliver ?? true
            let response = try await store.renew(
                originalTransactionId: context.parameters.get("originalTransactionId") ?? "", deliver: deliver)
            return try JSONResponse.make(body: response)
        }
        group.post("subscriptions/:originalTransactionId/expire") { request, context in
            let notify = try await Self.optionalBody(ExpireRequest.self, from: request)?.notify ?? true
            let response = try await store.expire(
                originalTransactionId: context.parameters.get("originalTransactionId") ?? "", notify: notify)
            return try JSONResponse.make(body: response)
        }
        group.post("subscriptions/:originalTransactionId/fail-renewal") { request, context in
            let grace = try await Self.optionalBody(FailRenewalRequest.self, from: request)?.gracePeriodSeconds
            let response = try await store.failRenewal(
                originalTransactionId: context.parameters.get("originalTransactionId") ?? "", gracePeriodSeconds: grace)
            return try JSONResponse.make(body: response)
        }
        group.post("subscriptions/:originalTransactionId/grace-period-expired") { _, context in
            let response = try await store.endGracePeriod(
                originalTransactionId: context.parameters.get("originalTransactionId") ?? "")
            return try JSONResponse.make(body: response)
        }
        group.post("subscriptions/:originalTransactionId/auto-renew") { request, context in
            let body = try await JSONResponse.decode(AutoRenewRequest.self, from: request)
            let id = context.parameters.get("originalTransactionId") ?? ""
            return try JSONResponse.make(
                body: try await store.setAutoRenew(originalTransactionId: id, enabled: body.enabled))
        }
        group.post("transactions/:transactionId/refund") { _, context in
            let id = context.parameters.get("transactionId") ?? ""
            let response = try await store.revoke(transactionId: id, familySharing: false)
            return try JSONResponse.make(body: response)
        }
        group.post("transactions/:transactionId/revoke") { _, context in
            let id = context.parameters.get("transactionId") ?? ""
            let response = try await store.revoke(transactionId: id, familySharing: true)
            return try JSONResponse.make(body: response)
        }
        group.get("transactions/:transactionId/finished") { _, context in
            let id = context.parameters.get("transactionId") ?? ""
            return try JSONResponse.make(body: ["finished": await store.isFinished(id)])
        }
        group.get("transactions/:transactionId/app-transaction") { _, context in
            let id = context.parameters.get("transactionId") ?? ""
            return try JSONResponse.make(body: ["signedAppTransaction": try await store.appTransaction(ofId: id)])
        }
        group.get("root.pem") { _, _ in
            Response(
                status: .ok, headers: [.contentType: "application/x-pem-file"],
                body: .init(byteBuffer: ByteBuffer(string: rootPEM))
            )
        }
        group.get("faults") { _, _ in
            try JSONResponse.make(body: faults.current)
        }
        group.put("faults") { request, _ in
            let configuration = try await JSONResponse.decode(FaultConfiguration.self, from: request).validated()
            faults.current = configuration
            return try JSONResponse.make(body: configuration)
        }
        group.get("stats") { _, _ in
            try JSONResponse.make(body: stats.current)
        }
        // Answers the counts it cleared, so reading a phase and starting the next lose nothing.
        group.delete("stats") { _, _ in
            try JSONResponse.make(body: stats.reset())
        }
    }

    /// A body that may be absent (or empty): nil then.
    private static func optionalBody<Body: Decodable>(_ type: Body.Type, from request: Request) async throws -> Body? {
        var request = request
        let buffer = try await request.collectBody(upTo: JSONResponse.maximumBodySize)
        guard buffer.readableBytes > 0 else { return nil }
        do {
            return try JSONDecoder().decode(type, from: Data(buffer.readableBytesView))
        } catch {
            throw SimulatorError(.badRequest, "body is not valid JSON for this endpoint")
        }
    }

}
