import AppStoreModels
import Contracts
import Foundation
import Purchases
import Testing

/// Verify requests built the way intake builds them.
enum Requests {
    static let receivedAt = Timestamp(millisecondsSince1970: 1_763_000_100_000)

    static func purchase(
        _ payload: PurchasePayload,
        userId: String = "u-1",
        eventId: String = UUID().uuidString,
        bundleId: String = TestApple.bundleId,
        orderId: String? = nil,
        appAccountToken: String? = nil
    ) throws -> VerifyRequest {
        let event = PurchaseEvent(
            eventId: eventId, bundleId: bundleId, userId: userId, payload: payload,
            orderId: orderId, appAccountToken: appAccountToken
        )
        guard case .forward(let request, _, _) = IntakeRules().purchase(event, receivedAt: Self.receivedAt) else {
            Issue.record("intake refused \(event)")
            throw CancellationError()
        }
        return request
    }

    static func notification(_ signedPayload: String) throws -> VerifyRequest {
        let event = NotificationEvent(receivedAt: Self.receivedAt, signedPayload: signedPayload)
        guard case .forward(let request, _, _) = IntakeRules().notification(event) else {
            Issue.record("intake refused the notification")
            throw CancellationError()
        }
        return request
    }
}

extension VerifyOutcome {
    var records: [VerifiedTransaction] {
        if case .verified(let records) = self { return records }
        return []
    }

    var rejection: Rejection? {
        if case .reject(let rejection) = self { return rejection }
        return nil
    }
}
