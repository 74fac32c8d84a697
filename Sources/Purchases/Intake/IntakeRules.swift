import AppStore
public import AppStoreModels
public import Contracts
import Foundation

/// The intake stage's rules: validate and normalise a purchase or notification, pick its
/// routing key, and say what to forward to verify. Never throws and never crashes on input:
/// everything that cannot go on becomes a ``IntakeDecision/reject(_:)`` with a contract code.
public struct IntakeRules: Sendable {
    public var configuration: IntakeConfiguration

    public init(configuration: IntakeConfiguration = .init()) {
        self.configuration = configuration
    }

    /// Decides about one raw record of `iap.purchases` or `iap.notifications`.
    /// - Parameter receivedAt: when intake read it (used for purchases; notifications carry
    ///   the gateway's `receivedAt`).
    public func evaluate(_ bytes: some Collection<UInt8>, receivedAt: Timestamp) -> IntakeDecision {
        guard bytes.count <= self.configuration.maximumEventBytes else {
            return .reject(.malformed("event of \(bytes.count) bytes exceeds \(self.configuration.maximumEventBytes)"))
        }
        do throws(Rejection) {
            switch try EventDecoder.decode(IntakeInput.self, from: bytes) {
            case .purchase(let purchase): return self.purchase(purchase, receivedAt: receivedAt)
            case .notification(let notification): return self.notification(notification)
            }
        } catch {
            return .reject(error)
        }
    }

    /// Validates and normalises a decoded purchase.
    public func purchase(_ event: PurchaseEvent, receivedAt: Timestamp) -> IntakeDecision {
        do throws(Rejection) {
            let request = try self.normalise(event, receivedAt: receivedAt)
            let key = try self.routingKey(for: request) ?? request.hints.eventId ?? request.dedupeKey
            return .forward(request, key: key, dedupeKey: request.dedupeKey)
        } catch {
            return .reject(error)
        }
    }

    /// Validates a notification and reads (unverified) its routing key and notificationUUID.
    public func notification(_ event: NotificationEvent) -> IntakeDecision {
        guard let signedPayload = event.signedPayload.trimmedNonEmpty else {
            return .reject(.malformed("signedPayload is empty"))
        }
        let payload: ResponseBodyV2DecodedPayload
        do throws(VerificationError) {
            payload = try UnverifiedJWS(signedPayload).decodePayload(as: ResponseBodyV2DecodedPayload.self)
        } catch {
            return .reject(Self.rejection(for: error, field: "signedPayload"))
        }
        let bundleId =
            payload.data?.bundleId ?? payload.summary?.bundleId ?? payload.appData?.bundleId
            ?? payload.externalPurchaseToken?.bundleId
        let request = VerifyRequest(
            kind: .notification,
            payload: signedPayload,
            bundleId: bundleId?.trimmedNonEmpty,
            hints: PublisherHints(),
            source: event.source == .reconcile ? .reconcile : .notification,
            receivedAt: event.receivedAt,
            notificationUUID: payload.notificationUUID?.trimmedNonEmpty
        )
        let key = RoutingKey.forNotification(payload) ?? request.dedupeKey
        return .forward(request, key: key, dedupeKey: request.dedupeKey)
    }

    // MARK: - Purchases

    private func normalise(_ event: PurchaseEvent, receivedAt: Timestamp) throws(Rejection) -> VerifyRequest {
        func required(_ value: String, _ name: String) throws(Rejection) -> String {
            guard let trimmed = value.trimmedNonEmpty else { throw Rejection.malformed("\(name) is empty") }
            return trimmed
        }
        let eventId = try required(event.eventId, "eventId")
        let bundleId = try required(event.bundleId, "bundleId")
        let userId = try required(event.userId, "userId")
        let payload = try required(event.payload.value, event.payload.kind.rawValue)

        var token: String?
        if let raw = event.appAccountToken?.trimmedNonEmpty {
            guard let canonical = AppAccountToken.canonical(raw) else {
                throw Rejection.malformed("appAccountToken '\(raw)' is not a UUID")
            }
            token = canonical
        }
        if let environment = event.environment, environment != .production, environment != .sandbox {
            throw Rejection.malformed("environment '\(environment)' is not Production or Sandbox")
        }
        if case .transactionId = event.payload,
            !payload.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) })
        {
            throw Rejection.malformed("transactionId '\(payload)' is not a decimal number")
        }
        return VerifyRequest(
            kind: event.payload.kind,
            payload: payload,
            bundleId: bundleId,
            hints: PublisherHints(
                eventId: eventId,
                userId: userId,
                orderId: event.orderId?.trimmedNonEmpty,
                appAccountToken: token,
                environment: event.environment
            ),
            source: Self.source(claimed: event.source, payload: event.payload),
            receivedAt: receivedAt,
            signedRenewalInfo: event.signedRenewalInfo?.trimmedNonEmpty
        )
    }

    /// The publisher's `source` when it is one a publisher may claim, else what the payload implies.
    private static func source(claimed: PurchaseSource?, payload: PurchasePayload) -> PurchaseSource {
        if let claimed, PurchaseSource.publisherValues.contains(claimed) { return claimed }
        switch payload {
        case .signedTransaction, .transactionId, .appTransaction: return .storeKit2
        case .appReceipt, .transactionReceipt: return .storeKit1
        }
    }

    /// nil when the artefact names no id locally; the caller falls back to the eventId.
    private func routingKey(for request: VerifyRequest) throws(Rejection) -> String? {
        switch request.kind {
        case .signedTransaction:
            do throws(VerificationError) {
                return try RoutingKey.forSignedTransaction(request.payload)
            } catch {
                throw Self.rejection(for: error, field: "signedTransaction")
            }
        case .appTransaction:
            do throws(VerificationError) {
                return try RoutingKey.forAppTransaction(request.payload)
            } catch {
                throw Self.rejection(for: error, field: "appTransaction")
            }
        case .transactionId: return request.payload
        case .appReceipt: return RoutingKey.forAppReceipt(request.payload)
        case .transactionReceipt: return RoutingKey.forTransactionReceipt(request.payload)
        case .notification: return nil
        }
    }

    /// A JWS that does not even parse is refused the way verify would refuse it (through the
    /// shared classifier), so the reason code does not depend on which stage noticed.
    private static func rejection(for error: VerificationError, field: String) -> Rejection {
        switch AppleOutcomeClassifier.classify(.verification(error)) {
        case .terminal(let reason): Rejection(ReasonCode(reason.code), "\(field): \(error)")
        default: Rejection(.invalidSignature, "\(field): \(error)")
        }
    }
}
