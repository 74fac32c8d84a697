public import AppStoreModels
import Contracts
public import ProductCatalog

extension CustomerView {
    /// The view of `record` at `now`: entitlements by the catalog, each from the purchase that
    /// gives the most of it (access first, then the latest end, none for good), a subscription
    /// past its end shown as ended even before grant's `expire` arrives.
    public init(_ record: CustomerRecord, catalog: ProductCatalog, at now: Timestamp) {
        var entitlements: [String: Entitlement] = [:]
        var purchases: [OneTimePurchase] = []
        var credits: [String: Credit] = [:]
        var unlisted: Set<String> = []
        let ordered = record.purchases.values.sorted { $0.originalTransactionId < $1.originalTransactionId }
        for purchase in ordered {
            let grants = catalog.grants(purchase.productId, type: purchase.productType, bundleId: record.bundleId)
            let type = grants.type
            if !grants.listed { unlisted.insert(purchase.productId) }
            if type == .consumable {
                for (currency, perUnit) in grants.credits {
                    let amount = perUnit * max(purchase.quantity, 1)
                    credits[currency, default: Credit(received: 0, revoked: 0)].received += amount
                    if purchase.status == .revoked { credits[currency]!.revoked += amount }
                }
                continue
            }
            if type == .nonConsumable || type == .nonRenewingSubscription || type == .app {
                purchases.append(OneTimePurchase(purchase, at: now))
            }
            guard let access = Access(purchase, at: now) else { continue }
            for id in grants.entitlements {
                let candidate = Entitlement(
                    id: id, productId: purchase.productId, since: purchase.since, expiresDate: access.end,
                    status: access.status, hasAccess: access.status.hasAccess,
                    willRenew: type == .autoRenewableSubscription ? purchase.autoRenewStatus.map { $0 == .on } : nil,
                    environment: purchase.environment, originalTransactionId: purchase.originalTransactionId)
                if let held = entitlements[id], !candidate.outranks(held) { continue }
                entitlements[id] = candidate
            }
        }
        self.init(
            bundleId: record.bundleId, userId: record.userId,
            entitlements: entitlements.values.sorted { $0.id < $1.id },
            purchases: purchases.sorted { ($0.sortDate, $0.transactionId) < ($1.sortDate, $1.transactionId) },
            credits: credits, lastEventId: record.lastApplied?.eventId, unlistedProducts: unlisted.sorted())
    }
}

extension CustomerRecord {
    /// The first moment after `now` at which this record's view changes by time alone (an
    /// active purchase's end, a grace period's end: the moments ``Access`` and
    /// ``CustomerView/OneTimePurchase`` compare with); nil when none is ahead. Until then the
    /// view rendered at `now` stays the answer, which is what lets a reader keep it.
    public func viewChanges(after now: Timestamp) -> Timestamp? {
        var next: Timestamp?
        for purchase in purchases.values {
            let moment: Timestamp? =
                switch purchase.status {
                case .active: purchase.expiresDate
                case .gracePeriod: purchase.gracePeriodExpiresDate ?? purchase.expiresDate
                default: nil
                }
            guard let moment, moment > now else { continue }
            next = min(next ?? moment, moment)
        }
        return next
    }
}

/// A purchase's standing for its entitlements at a moment; nil when it gives none.
private struct Access {
    var status: EntitlementStatus
    var end: Timestamp?

    init?(_ purchase: PurchaseRecord, at now: Timestamp) {
        switch purchase.status {
        case .active:
            if let end = purchase.expiresDate, end <= now { return nil }
            self.status = .active
            self.end = purchase.expiresDate
        case .gracePeriod:
            let end = purchase.gracePeriodExpiresDate ?? purchase.expiresDate
            // Past the grace period Apple goes on retrying billing, without access.
            self.status = end.map { $0 <= now } ?? false ? .billingRetry : .gracePeriod
            self.end = end
        case .billingRetry:
            self.status = .billingRetry
            self.end = purchase.expiresDate
        default:
            return nil
        }
    }
}

extension CustomerView.Entitlement {
    /// Whether this gives more than `other`: access first, then the later end (none is latest),
    /// then the smaller originalTransactionId, so the choice does not depend on order.
    func outranks(_ other: Self) -> Bool {
        if hasAccess != other.hasAccess { return hasAccess }
        if expiresDate != other.expiresDate {
            guard let mine = expiresDate else { return true }
            guard let theirs = other.expiresDate else { return false }
            return mine > theirs
        }
        return originalTransactionId < other.originalTransactionId
    }
}

extension CustomerView.OneTimePurchase {
    var sortDate: Timestamp { purchaseDate ?? Timestamp(millisecondsSince1970: 0) }

    init(_ purchase: PurchaseRecord, at now: Timestamp) {
        let ended = purchase.status == .active && purchase.expiresDate.map { $0 <= now } ?? false
        self.init(
            productId: purchase.productId, productType: purchase.productType, transactionId: purchase.transactionId,
            originalTransactionId: purchase.originalTransactionId, purchaseDate: purchase.purchaseDate,
            expiresDate: purchase.expiresDate, status: ended ? .expired : purchase.status,
            environment: purchase.environment)
    }
}
