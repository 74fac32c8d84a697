import Contracts

/// The one owner of the application's Redis key names: one prefix (default `iap:`) before
/// every key, and one hash-tag rule: the id that names an entity is the key's `{…}`, so an
/// entity's companion keys share a Redis Cluster slot.
///
/// Every key is ``key(_:id:)`` (`<prefix><kind>:{<id>}`), ``key(_:id:_:)``
/// (`<prefix><kind>:{<id>}:<part>`) or, for the one key per deployment that names no entity,
/// ``key(named:)`` (`<prefix><name>`). The runtime's keys are built here; the state stores'
/// keys are built in `Workers` (`StateKeys.swift`) through the same three functions. The
/// `Redis` driver knows no prefix, and `BusinessKeys` names business ids, never keys.
///
/// One Redis can host several deployments side by side under different prefixes
/// (decision D44: before it, the runtime's keys ignored the prefix).
///
/// ## The runtime's keys (default prefix)
///
/// | key | value | written by | expiry |
/// |---|---|---|---|
/// | `iap:idem:{<stage>:<business id>}` | string: `L<token>` locked, `S<attempt>` retry scheduled, `W<delivery id>` waiting, `D` done | `RedisIdempotencyGuard` | the lock's TTL, then the stage's idempotency retention |
/// | `iap:generation:{<stage>}` | string: the stage's generation marker (a UUID) | `StateGeneration` `establish` | none |
/// | `iap:delay:{retry:<stage>}:due` | sorted set: delivery id by due time (ms) | `DelayQueue` | none (items leave when acknowledged) |
/// | `iap:delay:{retry:<stage>}:payloads` | hash: delivery id → payload | `DelayQueue` | none |
/// | `iap:delay:{retry:<stage>}:waiting` | sorted set: waiting delivery ids by band × 10¹³ + since (ms) | `DelayQueue` | none |
/// | `iap:delay:{retry:<stage>}:waiting-bands` | hash: what a wait waits for → its band | `DelayQueue` | none |
///
/// The state stores' keys are listed in `Workers/State/StateKeys.swift` and docs/operations.md
/// ("What Redis holds").
public struct Keyspace: Sendable, Hashable, CustomStringConvertible {
    /// `iap:`
    public static let defaultPrefix = "iap:"
    /// The keys under ``defaultPrefix``.
    public static let standard = Keyspace(validated: defaultPrefix)

    /// Prepended to every key, e.g. `iap:` or `iap-staging:`.
    public let prefix: String

    /// A prefix must not contain `{` or `}`: Redis Cluster would take the first `{…}` of the
    /// prefix as every key's hash tag and put all state in one slot.
    public struct InvalidPrefix: Error, Sendable, Hashable, CustomStringConvertible {
        public let prefix: String
        public var description: String { "state key prefix '\(prefix)' must not contain '{' or '}'" }
    }

    public init(prefix: String = Keyspace.defaultPrefix) throws(InvalidPrefix) {
        guard !prefix.contains("{"), !prefix.contains("}") else { throw InvalidPrefix(prefix: prefix) }
        self.init(validated: prefix)
    }

    private init(validated prefix: String) {
        self.prefix = prefix
    }

    public var description: String { "Keyspace(\(prefix))" }

    // MARK: The rule

    /// `<prefix><kind>:{<id>}`: the key of the entity `id`, hash-tagged by it.
    public func key(_ kind: String, id: String) -> String {
        "\(prefix)\(kind):{\(id)}"
    }

    /// `<prefix><kind>:{<id>}:<part>`: a companion key of the entity `id`, in its slot.
    public func key(_ kind: String, id: String, _ part: String) -> String {
        "\(prefix)\(kind):{\(id)}:\(part)"
    }

    /// `<prefix><name>`: a key of no entity (one per deployment), with no hash tag.
    public func key(named name: String) -> String {
        prefix + name
    }

    // MARK: The runtime's keys

    /// A stage's lock, scheduled, waiting and done marker for one business key:
    /// `<prefix>idem:{<stage>:<key>}`, tagged by ``BusinessKeys/idempotencyId(stage:key:)``.
    public func idempotency(stage: String, key: String) -> String {
        self.key("idem", id: BusinessKeys.idempotencyId(stage: stage, key: key))
    }

    /// A stage's generation marker: `<prefix>generation:{<stage>}`.
    public func generation(stage: String) -> String {
        key("generation", id: stage)
    }

    /// The four keys of the delay queue `name`, sharing its hash tag:
    /// `<prefix>delay:{<name>}:due`, `:payloads`, `:waiting` and `:waiting-bands`.
    public func delayQueue(_ name: String) -> DelayQueueKeys {
        DelayQueueKeys(
            due: key("delay", id: name, "due"), payloads: key("delay", id: name, "payloads"),
            waiting: key("delay", id: name, "waiting"), waitingBands: key("delay", id: name, "waiting-bands"))
    }

    /// The keys of one ``DelayQueue``.
    public struct DelayQueueKeys: Sendable, Hashable {
        /// Sorted set: item id by due time (ms).
        public let due: String
        /// Hash: item id → payload.
        public let payloads: String
        /// Sorted set: waiting item ids by band × 10¹³ + since (ms).
        public let waiting: String
        /// Hash: what a wait waits for → its band.
        public let waitingBands: String

        /// In the order the queue's scripts name them (`KEYS[1]` … `KEYS[4]`).
        public var all: [String] { [due, payloads, waiting, waitingBands] }
    }
}
