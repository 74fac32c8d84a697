import AppStoreModels
import Contracts
import Purchases

/// Verified and matched records for match and grant tests, without signing anything.
enum Records {
    static func transaction(
        _ transactionId: String = "2000000000000001",
        original: String? = nil,
        productId: String = "gems_100",
        type: ProductType? = .consumable,
        quantity: Int = 1,
        token: String? = nil,
        purchaseDate: Int64 = 1_763_000_000_000,
        expiresDate: Int64? = nil,
        signedDate: Int64? = 1_763_000_001_000,
        revocationDate: Int64? = nil,
        isUpgraded: Bool? = nil,
        ownership: InAppOwnershipType = .purchased
    ) -> TransactionDetails {
        TransactionDetails(
            transactionId: transactionId,
            originalTransactionId: original ?? transactionId,
            bundleId: TestApple.bundleId,
            productId: productId,
            productType: type,
            quantity: quantity,
            environment: .sandbox,
            purchaseDate: Timestamp(millisecondsSince1970: purchaseDate),
            expiresDate: expiresDate.map(Timestamp.init(millisecondsSince1970:)),
            revocationDate: revocationDate.map(Timestamp.init(millisecondsSince1970:)),
            appAccountToken: token,
            inAppOwnershipType: ownership,
            isUpgraded: isUpgraded,
            signedDate: signedDate.map(Timestamp.init(millisecondsSince1970:))
        )
    }

    static func verified(
        _ transaction: TransactionDetails,
        userId: String? = nil,
        orderId: String? = nil,
        eventId: String? = nil,
        notification: NotificationTypeV2? = nil,
        subtype: NotificationSubtype? = nil,
        uuid: String? = nil
    ) -> VerifiedTransaction {
        let context = notification.map {
            NotificationContext(
                notificationType: $0, subtype: subtype,
                notificationUUID: uuid ?? "n-\($0.rawValue)-\(transaction.transactionId)")
        }
        return VerifiedTransaction(
            transaction: transaction,
            hints: context == nil
                ? PublisherHints(eventId: eventId ?? "e-\(transaction.transactionId)", userId: userId, orderId: orderId)
                : PublisherHints(),
            source: context == nil ? .storeKit2 : .notification,
            receivedAt: Timestamp(millisecondsSince1970: 1_763_000_100_000),
            verifiedAt: Timestamp(millisecondsSince1970: 1_763_000_100_500),
            notification: context
        )
    }

    static func matched(_ verified: VerifiedTransaction, userId: String = "u-1", orderId: String? = nil)
        -> MatchedTransaction
    {
        MatchedTransaction(verified: verified, userId: userId, orderId: orderId, matchedBy: .user)
    }
}
