import AppStoreModels
import Contracts
import Crypto
import Customers
import Foundation
import Hummingbird
import Logging
import ProductCatalog
import Prometheus
import ReadAPI
import Redis
import TestSupport
import WorkerCommon

/// A keyring of two keys (one for the demo's app, one for another app), a customer saved in a
/// Redis database of the test's own, and the routes over them.
struct ReadAPIFixture {
    static let gameKey = "iapk_test-game-key-0123456789"
    static let otherKey = "iapk_test-other-key-9876543210"
    /// May read every app (`*`), as a support tool's key would.
    static let supportKey = "iapk_test-support-key-5555555555"
    /// May sign offers for the two apps, and read nothing.
    static let signingKey = "iapk_test-signing-key-7777777777"
    /// May read and sign for every app: the conformance run's, which calls every operation.
    static let everythingKey = "iapk_test-everything-key-8888888888"
    static let keysFile = """
        # name   hash   apps
        game     \(APIKeyring.hashed(gameKey))   com.example.game
        other    \(APIKeyring.hashed(otherKey))  com.example.other
        support  \(APIKeyring.hashed(supportKey))  *
        offers   \(APIKeyring.hashed(signingKey))  com.example.game,com.example.other,com.example.sk1 sign
        all      \(APIKeyring.hashed(everythingKey))  *  read,sign
        """

    /// The offer keys of the demo's app (with an issuer) and of `com.example.sk1` (without, so
    /// StoreKit 1 signatures only), both `key`; `com.example.other` has none.
    static func offerKeysFile(keyFile: String) -> String {
        """
        # bundle id        key id                           issuer id                           key file
        com.example.game   \(ApplesOfferCheck.keyId)   \(ApplesOfferCheck.issuerId)   \(keyFile)
        com.example.sk1    \(ApplesOfferCheck.keyId)   -   \(keyFile)
        """
    }

    static func offers(_ key: P256.Signing.PrivateKey) throws -> OfferKeyring {
        try OfferKeyring.parse(offerKeysFile(keyFile: "AuthKey.p8")) { _ in key.pemRepresentation }
    }
    static let now = Timestamp(millisecondsSince1970: 1_780_000_000_000 + 10 * 86_400_000)

    static let catalog = try! CatalogFile.parse(
        yaml: """
            apps:
              - bundleId: com.example.game
                products:
                  - {productId: vip_monthly, type: autoRenewable, entitlements: [vip]}
                  - {productId: gems_100, type: consumable, credits: {gems: 100}}
            """)

    static func change(
        _ purchase: String, _ productId: String, _ type: ProductType, expires: Int64? = nil, quantity: Int = 1
    ) -> EntitlementEvent {
        var event = EntitlementEvent(
            eventId: "\(purchase)|grant", action: .grant, userId: "u-1", orderId: nil, bundleId: "com.example.game",
            productId: productId, productType: type, quantity: quantity, transactionId: purchase,
            originalTransactionId: purchase, environment: .production,
            purchaseDate: Timestamp(millisecondsSince1970: 1_780_000_000_000),
            expiresDate: expires.map { Timestamp(millisecondsSince1970: $0) }, revocationDate: nil, matchedBy: .user,
            warnings: [], source: .storeKit2, status: .active, autoRenewStatus: .on)
        event.sequence = 1
        return event
    }

    /// Saves `userId`'s purchases (u-1 by default): a monthly subscription running past `now`,
    /// three gem packs, and a product the catalog does not list.
    static func saveCustomer(_ store: RedisCustomerStore, userId: String = "u-1") async throws {
        var record = CustomerRecord(bundleId: "com.example.game", userId: userId)
        for var event in [
            change("100", "vip_monthly", .autoRenewableSubscription, expires: 1_783_000_000_000),
            change("200", "gems_100", .consumable, quantity: 3),
            change("300", "season_pass", .nonRenewingSubscription, expires: 1_790_000_000_000),
        ] {
            event.userId = userId
            _ = record.apply(event)
        }
        try await store.save(record)
    }

    /// The event `e-1` of the demo's app as the stages audit it: a receipt of two purchases, the
    /// first matched over a hint that lost and granted, the second unmatched (every optional field
    /// of a status and a history is set).
    static let auditedEventId = "e-1"
    static let auditedTransactionId = "2000000000000001"

    static func saveAudit(_ index: RedisAuditIndex) async throws {
        let subject = AuditSubject(eventId: auditedEventId, bundleId: "com.example.game", userId: "u-2")
        func at(_ milliseconds: Int64) -> Timestamp {
            Timestamp(millisecondsSince1970: 1_780_000_000_000 + milliseconds)
        }
        func about(_ transactionId: String) -> AuditSubject {
            var subject = subject
            subject.transactionId = transactionId
            subject.originalTransactionId = transactionId
            return subject
        }
        var verified = AuditEntry(stage: "verify", decision: .verified, at: at(100), subject: subject)
        verified.transactions = [auditedTransactionId, "2000000000000002"]
        verified.environment = .production
        var matched = AuditEntry(
            stage: "match", decision: .matched, at: at(200), subject: about(auditedTransactionId), userId: "u-1",
            detail: "the publisher named u-2; the purchase belongs to u-1 by orderId")
        matched.matchedBy = .orderId
        matched.orderId = "o-1"
        matched.warnings = [.userHintMismatch]
        var changed = AuditEntry(
            stage: "grant", decision: .changed, at: at(300), subject: about(auditedTransactionId), userId: "u-1")
        changed.effects = [.grant]
        let unmatched = AuditEntry(
            stage: "match", decision: .unmatched, at: at(400), subject: about("2000000000000002"),
            reason: "no_order_or_user", detail: "no order or user since …; on iap.unmatched")
        let accepted = AuditEntry(stage: "intake", decision: .accepted, at: at(0), subject: subject)
        try await index.index([accepted, verified, matched, changed, unmatched].map { $0.identified() })
    }

    /// The routes with the render cache on, as deployed.
    static func routes(
        _ client: RedisClient, logger: Logger, now clock: @escaping @Sendable () -> Timestamp = { now },
        offers: OfferKeyring = .empty
    ) throws -> ReadRoutes {
        ReadRoutes(
            keyring: try APIKeyring.parse(keysFile), store: RedisCustomerStore(client: client),
            audit: RedisAuditIndex(client: client), catalog: catalog, offers: offers,
            metrics: ReadAPIMetrics(
                factory: PrometheusMetricsFactory(registry: PrometheusCollectorRegistry()), logger: logger),
            logger: logger, now: clock, renderCacheEntries: 100)
    }
}
