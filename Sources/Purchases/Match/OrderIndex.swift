/// Orders backends published, found by the token Apple signs into the transaction or by the
/// publisher's orderId hint.
public protocol OrderIndex: Sendable {
    /// Stores or replaces `order` under its orderId and, when set, its (canonical) token.
    func put(_ order: OrderEvent) async throws
    func order(appAccountToken: String) async throws -> OrderEvent?
    func order(orderId: String) async throws -> OrderEvent?
    /// Records that the purchase `originalTransactionId` claims `orderId`, unless one already
    /// did (atomically: first claim wins). Returns the originalTransactionId of the first claim.
    func claim(orderId: String, originalTransactionId: String) async throws -> String
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

    public func claim(orderId: String, originalTransactionId: String) -> String {
        if let first = self.claims[orderId] { return first }
        self.claims[orderId] = originalTransactionId
        return originalTransactionId
    }
}
