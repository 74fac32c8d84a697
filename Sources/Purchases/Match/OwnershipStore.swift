/// Which user each purchase (originalTransactionId) belongs to. The first binding is final:
/// every later delivery of the purchase (renewals, refunds, a receipt uploaded again) goes to
/// that user, and another user claiming it is `ownership_conflict`.
public protocol OwnershipStore: Sendable {
    func owner(originalTransactionId: String) async throws -> String?
    /// Binds `originalTransactionId` to `userId` unless it is bound already (atomically: first
    /// binding wins). Returns the user it is bound to afterwards.
    func bind(originalTransactionId: String, userId: String) async throws -> String
}

/// In-process ``OwnershipStore``.
public actor InMemoryOwnershipStore: OwnershipStore {
    private var owners: [String: String] = [:]

    public init() {}

    public func owner(originalTransactionId: String) -> String? {
        self.owners[originalTransactionId]
    }

    public func bind(originalTransactionId: String, userId: String) -> String {
        if let owner = self.owners[originalTransactionId] { return owner }
        self.owners[originalTransactionId] = userId
        return userId
    }
}
