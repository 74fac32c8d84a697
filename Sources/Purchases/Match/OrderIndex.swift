public import Contracts

/// Orders backends published, found by the token Apple signs into the transaction or by the
/// publisher's orderId hint.
public protocol OrderIndex: Sendable {
    /// Stores or replaces `order` under its orderId and, when set, its (canonical) token, as
    /// one write: a reader sees both or neither.
    func put(_ order: OrderEvent) async throws
    func order(appAccountToken: String) async throws -> OrderEvent?
    func order(orderId: String) async throws -> OrderEvent?
    /// The orders under a signed token and under a hinted orderId, in one look: match decides
    /// from one view of the index, so an order indexed between two reads cannot make the
    /// first read say "no order" and the second say "no need to wait for it".
    func orders(appAccountToken: String?, orderId: String?) async throws -> OrderLookup
    /// Records that the purchase `originalTransactionId` claims `orderId`, unless one already
    /// did (atomically: first claim wins). Returns the originalTransactionId of the first claim.
    func claim(orderId: String, originalTransactionId: String) async throws -> String
}

/// What the index held under a transaction's token and its orderId hint at one moment.
public struct OrderLookup: Sendable, Hashable {
    /// The order the Apple-signed appAccountToken names.
    public var byToken: OrderEvent?
    /// The order the publisher's orderId hint names.
    public var byOrderId: OrderEvent?

    public init(byToken: OrderEvent? = nil, byOrderId: OrderEvent? = nil) {
        self.byToken = byToken
        self.byOrderId = byOrderId
    }
}

/// In-process ``OrderIndex``.
public actor InMemoryOrderIndex: OrderIndex {
    private var byOrderId: [String: OrderEvent] = [:]
    private var byToken: [String: String] = [:]
    private var claims: [String: String] = [:]

    public init() {}

    public func put(_ order: OrderEvent) {
        self.byOrderId[order.orderId] = order
        if let token = order.appAccountToken { self.byToken[token] = order.orderId }
    }

    public func order(appAccountToken: String) -> OrderEvent? {
        self.byToken[appAccountToken].flatMap { self.byOrderId[$0] }
    }

    public func order(orderId: String) -> OrderEvent? {
        self.byOrderId[orderId]
    }

    public func orders(appAccountToken: String?, orderId: String?) -> OrderLookup {
        OrderLookup(
            byToken: appAccountToken.flatMap(self.order(appAccountToken:)),
            byOrderId: orderId.flatMap(self.order(orderId:)))
    }

    public func claim(orderId: String, originalTransactionId: String) -> String {
        if let first = self.claims[orderId] { return first }
        self.claims[orderId] = originalTransactionId
        return originalTransactionId
    }
}
