public import Purchases

/// Every Redis key the match, verify and grant state stores use, named in one place under
/// one prefix (default `iap:`), so one Redis can host several deployments side by side and
/// operators can find a purchase's state by hand.
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
/// | `iap:wait:index:{token:<uuid>}`, `iap:wait:index:{order:<orderId>}` | set of recordKeys | ``RedisWaitingTransactionStore`` `park` | `retention` from the latest park (default 8 days) |
/// | `iap:verified:{<transactionId>}` | string: `TransactionDetails` JSON | ``RedisVerifiedTransactionCache`` `put` | `retention` from the latest put (default 7 days) |
/// | `iap:entitlement:{<originalTransactionId>}` | string: `EntitlementState` JSON | ``RedisEntitlementStateStore`` `save`; `putIfAbsent` when rebuilt from `iap.entitlement-states` (D35) | `retention` (default none) |
/// | `iap:consumption:{<transactionId>}` | string: the notificationUUID answered | ``RedisConsumptionLedger`` `recordAnswer` | Apple's answer window (12 h) |
/// | `iap:apple-gate:{<endpoint>:<environment>}` | string: `<next>\|<pause>` (when the budget is next free, until when Apple's 429 holds calls; ms) | ``RedisAppleCallGate`` | a minute after both passed |
/// | `iap:subscription-expiries` | sorted set: active auto-renewable originalTransactionIds by expiresDate (ms) | ``RedisEntitlementStateStore`` `save` and `putIfAbsent` | none (members leave when their state stops being active) |
/// | `iap:reconcile:checkpoint:{<bundleId>:<environment>}` | string: `ReconcileCheckpoint` JSON | ``RedisReconcileState`` (only while holding the lease) | none |
/// | `iap:reconcile:lease:{<bundleId>:<environment>}`, `iap:reconcile:lease:{sweep}` | string: the holder's token | ``RedisReconcileState`` | the lease's TTL |
///
/// ## Hash tags
/// The business id in each key is a Redis Cluster hash tag (`{…}`), so an entity's companion
/// keys (an order and its claim) live in one slot. Every script of these stores touches
/// exactly one key; a future script that touches several must only use keys sharing a tag
/// (the runtime's rule, docs/architecture.md). Keys of *different* entities (a waiting record and its
/// indexes) are written with separate commands, never one script. The one exception is an
/// order and its token index, written and read in one `MULTI`/`EXEC` so match never sees one
/// without the other (decision D18): fine on one Redis server, to be redesigned for a Cluster.
public struct StateKeys: Sendable, Hashable, CustomStringConvertible {
    /// `iap:`
    public static let defaultPrefix = "iap:"
    /// The keys under ``defaultPrefix``.
    public static let standard = StateKeys(validated: defaultPrefix)

    /// Prepended to every key, e.g. `iap:` or `iap-staging:`.
    public let prefix: String

    /// A prefix must not contain `{` or `}`: Redis Cluster would take the first `{…}` of the
    /// prefix as every key's hash tag and put all state in one slot.
    public struct InvalidPrefix: Error, Sendable, Hashable, CustomStringConvertible {
        public let prefix: String
        public var description: String { "state key prefix '\(prefix)' must not contain '{' or '}'" }
    }

    public init(prefix: String = StateKeys.defaultPrefix) throws(InvalidPrefix) {
        guard !prefix.contains("{"), !prefix.contains("}") else { throw InvalidPrefix(prefix: prefix) }
        self.init(validated: prefix)
    }

    private init(validated prefix: String) {
        self.prefix = prefix
    }

    public var description: String { "StateKeys(\(prefix))" }

    // MARK: Match: orders and ownership

    /// The order published under `orderId` (`iap.order.v1` JSON).
    public func order(_ orderId: String) -> String { "\(prefix)order:{\(orderId)}" }
    /// The originalTransactionId of the first purchase that claimed `orderId`.
    public func orderClaim(_ orderId: String) -> String { "\(prefix)order:{\(orderId)}:claim" }
    /// The orderId indexed under a canonical appAccountToken.
    public func orderToken(_ appAccountToken: String) -> String { "\(prefix)order-token:{\(appAccountToken)}" }
    /// The user a purchase is bound to.
    public func owner(_ originalTransactionId: String) -> String { "\(prefix)owner:{\(originalTransactionId)}" }

    // MARK: Match: waiting transactions

    /// A parked verified record (hash `since`, `transaction`), by ``VerifiedTransaction/recordKey``.
    public func waitingRecord(_ recordKey: String) -> String { "\(prefix)wait:record:{\(recordKey)}" }
    /// The recordKeys parked under `key` (a set).
    public func waitingIndex(_ key: WaitKey) -> String { "\(prefix)wait:index:{\(key)}" }

    // MARK: Verify

    /// A verified transaction, by transactionId.
    public func verifiedTransaction(_ transactionId: String) -> String { "\(prefix)verified:{\(transactionId)}" }
    /// The shared Apple call gate of one endpoint in one environment: its budget's timeline
    /// and Apple's pause, shared by every replica that calls Apple.
    public func appleGate(_ endpoint: String, _ environment: String) -> String {
        "\(prefix)apple-gate:{\(endpoint):\(environment)}"
    }

    // MARK: Grant

    /// Grant's state of a purchase.
    public func entitlement(_ originalTransactionId: String) -> String {
        "\(prefix)entitlement:{\(originalTransactionId)}"
    }

    /// Grant's note that a transaction's consumption request was answered (decision D34).
    public func consumptionAnswer(_ transactionId: String) -> String { "\(prefix)consumption:{\(transactionId)}" }
    /// Active auto-renewable subscriptions by expiry: reconcile's sweep reads the ones past it.
    public var subscriptionExpiries: String { "\(prefix)subscription-expiries" }

    // MARK: Reconcile

    /// Where notification history paging of `scope` (`<bundleId>:<environment>`) resumes.
    public func reconcileCheckpoint(_ scope: String) -> String { "\(prefix)reconcile:checkpoint:{\(scope)}" }
    /// Who pages `scope` (or runs the sweep, scope `sweep`) now; shares the checkpoint's hash tag.
    public func reconcileLease(_ scope: String) -> String { "\(prefix)reconcile:lease:{\(scope)}" }
}
