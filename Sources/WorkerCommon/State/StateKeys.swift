public import Customers
public import Pipeline
public import Purchases

/// Every Redis key the match, verify, grant, customer state and reconcile stores use, named in one place
/// through the one ``Keyspace`` (in `Pipeline`): one prefix (default `iap:`) and one hash-tag
/// rule for these keys and the runtime's alike, so one Redis can host several deployments side
/// by side and operators can find a purchase's state by hand.
///
/// ## Layout (default prefix)
///
/// | key | value | written by | expiry |
/// |---|---|---|---|
/// | `iap:order:{<orderId>}` | string: `iap.order.v1` JSON | ``RedisOrderIndex`` `put` | `retention` (default none) |
/// | `iap:order:{<orderId>}:claim` | string: the claiming originalTransactionId | ``RedisOrderIndex`` `claim` | `retention` (default none) |
/// | `iap:order-token:{<appAccountToken>}` | string: orderId | ``RedisOrderIndex`` `put` | `retention` (default none) |
/// | `iap:owner:{<originalTransactionId>}` | string: userId | ``RedisOwnershipStore`` `bind`; `putIfAbsent` when rebuilt from `iap.ownership` (D35) | `retention` (default none) |
/// | `iap:wait:record:{<recordKey>}` | hash: `since` (ms), `transaction` (`iap.verified.v1` JSON) | ``RedisWaitingTransactionStore`` `park` | `retention` from the first park (default 8 days) |
/// | `iap:wait:index:{token:<uuid>}`, `iap:wait:index:{order:<orderId>}` | set of recordKeys | ``RedisWaitingTransactionStore`` `park`; `forget` removes a decided record (D70) | `retention` from the latest park (default 8 days) |
/// | `iap:verified:{<transactionId>}` | string: `TransactionDetails` JSON | ``RedisVerifiedTransactionCache`` `put` | `retention` from the latest put (default 7 days) |
/// | `iap:entitlement:{<originalTransactionId>}` | string: `EntitlementState` JSON | ``RedisEntitlementStateStore`` `save`; `putIfAbsent` when rebuilt from `iap.entitlement-states` (D35) | `retention` (default none) |
/// | `iap:customer:{<bundleId>\|<userId>}` | string: `iap.customer.v1` JSON | ``RedisCustomerStore`` `save`; `putIfAbsent` when rebuilt from `iap.customers` (D49) | none |
/// | `iap:audit:delivery:{<bundleId>\|e:<eventId>}`, `iap:audit:delivery:{<bundleId>\|n:<notificationUUID>}` | hash: auditId → `iap.audit.v1` JSON | ``RedisAuditIndex`` `index` | the state stage's `audit` window from the latest entry (default 7 days) |
/// | `iap:audit:transaction:{<bundleId>\|<transactionId>}` | hash: auditId → `iap.audit.v1` JSON | ``RedisAuditIndex`` `index` | the same |
/// | `iap:consumption:{<transactionId>}` | string: the notificationUUID answered | ``RedisConsumptionLedger`` `recordAnswer` | Apple's answer window (12 h) |
/// | `iap:apple-gate:{<endpoint>:<environment>}` | string: `<next>\|<pause>` (when the budget is next free, until when Apple's 429 holds calls; ms) | ``RedisAppleCallGate`` | a minute after both passed |
/// | `iap:subscription-expiries` | sorted set: active auto-renewable originalTransactionIds by expiresDate (ms) | ``RedisEntitlementStateStore`` `save` and `putIfAbsent` | none (members leave when their state stops being active) |
/// | `iap:reconcile:checkpoint:{<bundleId>:<environment>}` | string: `ReconcileCheckpoint` JSON | ``RedisReconcileState`` (only while holding the lease) | none |
/// | `iap:reconcile:lease:{<bundleId>:<environment>}`, `iap:reconcile:lease:{sweep}` | string: the holder's token | ``RedisReconcileState`` | the lease's TTL |
///
/// The runtime's own keys (`iap:idem:{…}`, `iap:generation:{…}`, `iap:delay:{…}:…`) are in
/// ``Keyspace``'s table.
///
/// ## Hash tags
/// The business id in each key is a Redis Cluster hash tag (`{…}`), so an entity's companion
/// keys (an order and its claim) live in one slot. Every script of these stores touches
/// exactly one key; a future script that touches several must only use keys sharing a tag
/// (the runtime's rule, docs/architecture.md). Keys of *different* entities (a waiting record and its
/// indexes) are written with separate commands, never one script. The one exception is an
/// order and its token index, written and read in one `MULTI`/`EXEC` so match never sees one
/// without the other (decision D18): fine on one Redis server, to be redesigned for a Cluster.
extension Keyspace {
    // MARK: Match: orders and ownership

    /// The order published under `orderId` (`iap.order.v1` JSON).
    public func order(_ orderId: String) -> String { key("order", id: orderId) }
    /// The originalTransactionId of the first purchase that claimed `orderId`.
    public func orderClaim(_ orderId: String) -> String { key("order", id: orderId, "claim") }
    /// The orderId indexed under a canonical appAccountToken.
    public func orderToken(_ appAccountToken: String) -> String { key("order-token", id: appAccountToken) }
    /// The user a purchase is bound to.
    public func owner(_ originalTransactionId: String) -> String { key("owner", id: originalTransactionId) }

    // MARK: Match: waiting transactions

    /// A parked verified record (hash `since`, `transaction`), by ``VerifiedTransaction/recordKey``.
    public func waitingRecord(_ recordKey: String) -> String { key("wait:record", id: recordKey) }
    /// The recordKeys parked under `waitKey` (a set).
    public func waitingIndex(_ waitKey: WaitKey) -> String { key("wait:index", id: "\(waitKey)") }

    // MARK: Customer state

    /// A customer's ``CustomerRecord`` in one app (`iap.customer.v1` JSON), the read copy of `iap.customers`.
    public func customer(bundleId: String, userId: String) -> String {
        key("customer", id: CustomerRecord.key(bundleId: bundleId, userId: userId))
    }

    // MARK: Customer state: the audit index (D51)

    /// The audit entries naming one delivery (`e:<eventId>`, `n:<notificationUUID>`) of an app:
    /// a hash by auditId.
    public func auditDelivery(bundleId: String, delivery: String) -> String {
        key("audit:delivery", id: "\(bundleId)|\(delivery)")
    }

    /// The audit entries naming one transaction of an app: a hash by auditId.
    public func auditTransaction(bundleId: String, transactionId: String) -> String {
        key("audit:transaction", id: "\(bundleId)|\(transactionId)")
    }

    // MARK: Verify

    /// A verified transaction, by transactionId.
    public func verifiedTransaction(_ transactionId: String) -> String { key("verified", id: transactionId) }
    /// The shared Apple call gate of one endpoint in one environment: its budget's timeline
    /// and Apple's pause, shared by every replica that calls Apple; `app` (an app of
    /// `IAP_APPS`) gives each app its own, as Apple's limits are per app.
    public func appleGate(_ endpoint: String, _ environment: String, app: String? = nil) -> String {
        key("apple-gate", id: app.map { "\($0):\(endpoint):\(environment)" } ?? "\(endpoint):\(environment)")
    }

    // MARK: Grant

    /// Grant's state of a purchase.
    public func entitlement(_ originalTransactionId: String) -> String {
        key("entitlement", id: originalTransactionId)
    }

    /// Grant's note that a transaction's consumption request was answered (decision D34).
    public func consumptionAnswer(_ transactionId: String) -> String { key("consumption", id: transactionId) }
    /// Active auto-renewable subscriptions by expiry: reconcile's sweep reads the ones past it.
    public var subscriptionExpiries: String { key(named: "subscription-expiries") }

    // MARK: Reconcile

    /// Where notification history paging of `scope` (`<bundleId>:<environment>`) resumes.
    public func reconcileCheckpoint(_ scope: String) -> String { key("reconcile:checkpoint", id: scope) }
    /// Who pages `scope` (or runs the sweep, scope `sweep`) now; shares the checkpoint's hash tag.
    public func reconcileLease(_ scope: String) -> String { key("reconcile:lease", id: scope) }
}
