import AppStoreModels
import Contracts
import Customers
import ProductCatalog

/// Changes of one customer as grant would publish them, numbered per purchase (D48).
enum CustomerFixtures {
    static let bundleId = "com.example.game"
    static let userId = "user-1"
    static let day: Int64 = 86_400_000
    static let start = Timestamp(millisecondsSince1970: 1_780_000_000_000)

    static func at(days: Int64) -> Timestamp {
        Timestamp(millisecondsSince1970: start.millisecondsSince1970 + days * day)
    }

    static func change(
        _ action: EntitlementAction, _ productId: String, _ type: ProductType, purchase: String,
        transaction: String? = nil, sequence: Int?, purchased: Int64 = 0, expires: Int64? = nil,
        revoked: Int64? = nil, status: EntitlementStatus? = nil, quantity: Int = 1, autoRenew: AutoRenewStatus? = nil
    ) -> EntitlementEvent {
        let transactionId = transaction ?? purchase
        var event = EntitlementEvent(
            eventId: "\(transactionId)|\(action.rawValue)|\(sequence.map(String.init) ?? "-")", action: action,
            userId: userId, orderId: nil, bundleId: bundleId, productId: productId, productType: type,
            quantity: quantity, transactionId: transactionId, originalTransactionId: purchase,
            environment: .production, purchaseDate: at(days: purchased), expiresDate: expires.map(at(days:)),
            revocationDate: revoked.map(at(days:)), matchedBy: .user, warnings: [], source: .storeKit2,
            status: status, autoRenewStatus: autoRenew)
        event.sequence = sequence
        return event
    }

    /// A month of one customer: a monthly subscription renewed twice, an ad remover refunded
    /// and the refund reversed, gems bought three at a time, a gem pack refunded.
    static let history: [EntitlementEvent] = [
        change(
            .grant, "vip_monthly", .autoRenewableSubscription, purchase: "sub", transaction: "sub-1",
            sequence: 1, purchased: 0, expires: 30, status: .active, autoRenew: .on),
        change(
            .renew, "vip_monthly", .autoRenewableSubscription, purchase: "sub", transaction: "sub-2",
            sequence: 2, purchased: 30, expires: 60, status: .active, autoRenew: .on),
        change(
            .renew, "vip_monthly", .autoRenewableSubscription, purchase: "sub", transaction: "sub-3",
            sequence: 3, purchased: 60, expires: 90, status: .active, autoRenew: .off),
        change(.grant, "remove_ads", .nonConsumable, purchase: "ads", sequence: 1, purchased: 2, status: .active),
        change(
            .revoke, "remove_ads", .nonConsumable, purchase: "ads", sequence: 2, purchased: 2, revoked: 5,
            status: .revoked),
        change(.grant, "remove_ads", .nonConsumable, purchase: "ads", sequence: 3, purchased: 2, status: .active),
        change(
            .grant, "gems_100", .consumable, purchase: "gems-a", sequence: 1, purchased: 3, status: .active,
            quantity: 3),
        change(.grant, "gems_500", .consumable, purchase: "gems-b", sequence: 1, purchased: 4, status: .active),
        change(
            .revoke, "gems_500", .consumable, purchase: "gems-b", sequence: 2, purchased: 4, revoked: 6,
            status: .revoked),
    ]

    static let catalog: ProductCatalog = {
        try! CatalogFile.parse(
            yaml: """
                apps:
                  - bundleId: com.example.game
                    products:
                      - {productId: vip_weekly, type: autoRenewable, entitlements: [vip]}
                      - {productId: vip_monthly, type: autoRenewable, entitlements: [vip]}
                      - {productId: remove_ads, type: nonConsumable, entitlements: [no_ads]}
                      - {productId: gems_100, type: consumable, credits: {gems: 100}}
                      - {productId: gems_500, type: consumable, credits: {gems: 500}}
                """)
    }()

    static func fold(_ events: some Sequence<EntitlementEvent>) -> CustomerRecord {
        var record = CustomerRecord(bundleId: bundleId, userId: userId)
        for event in events { _ = record.apply(event) }
        return record
    }
}
