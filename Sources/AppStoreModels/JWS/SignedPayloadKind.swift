import Foundation

/// Which of Apple's signed payloads a JWS carries, guessed from its payload's fields without
/// verifying it: what `iap jws verify --kind auto` and `iap-dev bench jws` pick the verifier's
/// call by. Here, beside ``UnverifiedJWS``, because both tools need it (decision D46).
public enum SignedPayloadKind: String, Sendable, CaseIterable {
    case transaction, renewal, notification
    case appTransaction = "app-transaction"
    case realtimeRequest = "realtime-request"

    /// A notification has `notificationType`, an app transaction `receiptType`, a Retention
    /// Messaging real-time request `requestIdentifier` and `userLocale`, renewal info
    /// `autoRenewStatus` or `autoRenewProductId` and no `transactionId`; anything else, an
    /// undecodable JWS included, is taken for a transaction.
    public init(detecting jws: String) {
        guard let unverified = try? UnverifiedJWS(jws),
            let object = (try? JSONSerialization.jsonObject(with: Data(unverified.payloadJSON))) as? [String: Any]
        else {
            self = .transaction
            return
        }
        if object["notificationType"] != nil {
            self = .notification
        } else if object["receiptType"] != nil {
            self = .appTransaction
        } else if object["requestIdentifier"] != nil, object["userLocale"] != nil {
            self = .realtimeRequest
        } else if object["transactionId"] == nil,
            object["autoRenewStatus"] != nil || object["autoRenewProductId"] != nil
        {
            self = .renewal
        } else {
            self = .transaction
        }
    }
}
