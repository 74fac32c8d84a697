import AppStore
/// The match stage's rules: ties a verified transaction to a user, indexes orders, and
/// releases transactions that waited for an order.
///
/// Precedence (DESIGN.md): (1) the Apple-signed appAccountToken → its order, or a user through
/// the configured token scheme; (2) the publisher's orderId hint, when that order's user and
/// product agree; (3) the user the originalTransactionId is already bound to; (4) the
/// publisher's userId. The first binding of a purchase to a user is final.
///
/// Store errors are thrown (the runtime retries). Updates of one purchase arrive in order on
/// one lane (`iap.verified` is keyed by originalTransactionId); the stores' atomic
/// first-wins operations cover the rest.
public struct MatchRules: Sendable {
    public let configuration: MatchConfiguration
    private let orders: any OrderIndex
    private let ownership: any OwnershipStore
    private let waiting: any WaitingTransactionStore

    public init(
        configuration: MatchConfiguration = .init(),
        orders: any OrderIndex,
        ownership: any OwnershipStore,
        waiting: any WaitingTransactionStore
    ) {
        self.configuration = configuration
        self.orders = orders
        self.ownership = ownership
        self.waiting = waiting
    }

    /// The business id match guards a verified record on (``VerifiedTransaction/recordKey``).
    public static func idempotencyKey(for verified: VerifiedTransaction) -> String {
        verified.recordKey
    }

    private struct Candidate {
        var userId: String
        var orderId: String?
        var matchedBy: MatchedBy
    }

    /// Decides about one verified transaction at `now`.
    public func match(_ verified: VerifiedTransaction, now: Timestamp) async throws -> MatchOutcome {
        let transaction = verified.transaction
        let hints = verified.hints
        let token = transaction.appAccountToken.flatMap(AppAccountToken.canonical)
        let existingOwner = try await self.ownership.owner(originalTransactionId: transaction.originalTransactionId)
        var warnings: [MatchWarning] = []

        var candidate = try await self.candidate(byToken: token, transaction: transaction, hints: hints)
        if candidate == nil, let orderId = hints.orderId, let order = try await self.orders.order(orderId: orderId) {
            if order.bundleId == transaction.bundleId, order.productId == transaction.productId,
               hints.userId == nil || hints.userId == order.userId {
                candidate = Candidate(userId: order.userId, orderId: order.orderId, matchedBy: .orderId)
            } else {
                warnings.append(.orderHintMismatch)
            }
        }
        if candidate == nil, existingOwner == nil, hints.userId != nil, self.configuration.orderGrace > .zero,
           try await self.awaitsOrder(token: token, hints: hints) {
            let since = try await self.waiting.park(verified, under: Self.waitKeys(token: token, hints: hints), at: now)
            let graceEnds = since.advanced(by: self.configuration.orderGrace)
            if now < graceEnds { return .wait(since: since, deadline: graceEnds) }
            warnings.append(.orderNeverArrived)
        }
        if candidate == nil, let existingOwner {
            candidate = Candidate(userId: existingOwner, matchedBy: .ownership)
        }
        if candidate == nil, let userId = hints.userId {
            candidate = Candidate(userId: userId, matchedBy: .user)
        }
        guard let candidate else {
            return try await self.park(verified, token: token, now: now)
        }

        if let refusal = try await self.ownershipRefusal(candidate, existingOwner: existingOwner, verified: verified) {
            try await self.waiting.forget(recordKey: verified.recordKey)
            return .reject(refusal)
        }
        if let orderId = candidate.orderId {
            let firstClaim = try await self.orders.claim(orderId: orderId, originalTransactionId: transaction.originalTransactionId)
            if firstClaim != transaction.originalTransactionId { warnings.append(.orderAlreadyClaimed) }
        }
        if let hinted = hints.userId, hinted != candidate.userId {
            warnings.append(.userHintMismatch)
        }
        if self.configuration.tokenScheme == .md5Halves, let token,
           !AppAccountTokenScheme.md5Halves.token(token, belongsTo: candidate.userId, bundleId: transaction.bundleId) {
            warnings.append(.appAccountTokenMismatch)
        }
        try await self.waiting.forget(recordKey: verified.recordKey)
        return .matched(MatchedTransaction(
            verified: verified,
            userId: candidate.userId,
            orderId: candidate.orderId,
            matchedBy: candidate.matchedBy,
            warnings: warnings
        ))
    }

    /// Indexes an order and returns the transactions that were waiting for it.
    public func acceptOrder(_ order: OrderEvent) async throws -> OrderOutcome {
        let normalised: OrderEvent
        do throws(PurchaseRejection) {
            normalised = try Self.normalise(order)
        } catch {
            return .reject(error)
        }
        try await self.orders.put(normalised)
        var released: [VerifiedTransaction] = []
        var seen: Set<String> = []
        var keys: [WaitKey] = [.orderId(normalised.orderId)]
        if let token = normalised.appAccountToken { keys.insert(.appAccountToken(token), at: 0) }
        for key in keys {
            for transaction in try await self.waiting.release(key) where seen.insert(transaction.recordKey).inserted {
                released.append(transaction)
            }
        }
        return .indexed(released: released)
    }

    // MARK: - Rules

    /// Rule (1): the order indexed under the signed token, else the token scheme's user.
    private func candidate(byToken token: String?, transaction: TransactionDetails, hints: PublisherHints) async throws -> Candidate? {
        guard let token else { return nil }
        if let order = try await self.orders.order(appAccountToken: token), order.bundleId == transaction.bundleId {
            return Candidate(userId: order.userId, orderId: order.orderId, matchedBy: .appAccountToken)
        }
        switch self.configuration.tokenScheme {
        case .numericPaddedF:
            return AppAccountTokenScheme.numericPaddedF.userId(fromToken: token)
                .map { Candidate(userId: $0, matchedBy: .appAccountToken) }
        case .md5Halves:
            guard let hinted = hints.userId,
                  AppAccountTokenScheme.md5Halves.token(token, belongsTo: hinted, bundleId: transaction.bundleId)
            else { return nil }
            return Candidate(userId: hinted, matchedBy: .appAccountToken)
        case nil:
            return nil
        }
    }

    /// The "receipt replayed by another user" check. A purchase already bound to a user
    /// conflicts when this delivery names anyone else (the rule's user or the publisher's
    /// userId). Unbound, it is bound now to the rule's user; a publisher hint that disagrees
    /// with Apple's token or a confirmed order is then only a warning.
    private func ownershipRefusal(_ candidate: Candidate, existingOwner: String?, verified: VerifiedTransaction) async throws -> PurchaseRejection? {
        let originalTransactionId = verified.transaction.originalTransactionId
        let owner: String
        if let existingOwner {
            owner = existingOwner
            if let hinted = verified.hints.userId, hinted != owner {
                return PurchaseRejection(
                    .ownershipConflict,
                    "originalTransactionId \(originalTransactionId) belongs to another user than the publisher's userId"
                )
            }
        } else {
            owner = try await self.ownership.bind(originalTransactionId: originalTransactionId, userId: candidate.userId)
        }
        guard owner == candidate.userId else {
            return PurchaseRejection(
                .ownershipConflict,
                "originalTransactionId \(originalTransactionId) belongs to another user than the one matched by \(candidate.matchedBy)"
            )
        }
        return nil
    }

    /// No user yet: park under the keys an order can release it by, and wait until the window
    /// from its first sighting has passed.
    private func park(_ verified: VerifiedTransaction, token: String?, now: Timestamp) async throws -> MatchOutcome {
        let since = try await self.waiting.park(verified, under: Self.waitKeys(token: token, hints: verified.hints), at: now)
        let deadline = since.advanced(by: self.configuration.waitWindow)
        guard now < deadline else {
            try await self.waiting.forget(recordKey: verified.recordKey)
            return .unmatched(UnmatchedTransaction(verified: verified, since: since, unmatchedAt: now, reason: .noOrderOrUser))
        }
        return .wait(since: since, deadline: deadline)
    }

    /// Whether the transaction names an order that has not arrived: a signed order token (no
    /// token scheme configured) with no order under it, or an orderId hint with no such order.
    /// An order that arrived and disagrees is not waited for.
    private func awaitsOrder(token: String?, hints: PublisherHints) async throws -> Bool {
        if let token, self.configuration.tokenScheme == nil, try await self.orders.order(appAccountToken: token) == nil { return true }
        if let orderId = hints.orderId, try await self.orders.order(orderId: orderId) == nil { return true }
        return false
    }

    /// What an arriving order can release a waiting transaction by.
    private static func waitKeys(token: String?, hints: PublisherHints) -> [WaitKey] {
        var keys: [WaitKey] = []
        if let token { keys.append(.appAccountToken(token)) }
        if let orderId = hints.orderId { keys.append(.orderId(orderId)) }
        return keys
    }

    private static func normalise(_ order: OrderEvent) throws(PurchaseRejection) -> OrderEvent {
        func required(_ value: String, _ name: String) throws(PurchaseRejection) -> String {
            guard let trimmed = value.trimmedNonEmpty else { throw PurchaseRejection.malformed("\(name) is empty") }
            return trimmed
        }
        var token: String?
        if let raw = order.appAccountToken?.trimmedNonEmpty {
            guard let canonical = AppAccountToken.canonical(raw) else {
                throw PurchaseRejection.malformed("appAccountToken '\(raw)' is not a UUID")
            }
            token = canonical
        }
        if let quantity = order.quantity, quantity < 1 {
            throw PurchaseRejection.malformed("quantity \(quantity) is not positive")
        }
        return OrderEvent(
            orderId: try required(order.orderId, "orderId"),
            userId: try required(order.userId, "userId"),
            productId: try required(order.productId, "productId"),
            bundleId: try required(order.bundleId, "bundleId"),
            appAccountToken: token,
            quantity: order.quantity
        )
    }
}
