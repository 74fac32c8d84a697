public import AppStoreModels
public import Contracts

/// The match stage's rules: ties a verified transaction to a user, indexes orders, and
/// releases transactions that waited for an order.
///
/// Precedence (docs/events.md "Match rules"): (1) the Apple-signed appAccountToken → its order, or a user through
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

    private struct Candidate {
        var userId: String
        var orderId: String?
        var matchedBy: MatchedBy
    }

    /// Decides about one verified transaction at `now`.
    ///
    /// The order index is read once per decision (``OrderIndex/orders(appAccountToken:orderId:)``)
    /// and every rule decides from that one view. A transaction that has to wait is parked
    /// first and the index read again: an order indexed after the first read released
    /// nothing (the transaction was not parked yet), so only the second read can see it.
    /// Either that read sees the order, or the order's release sees the parked transaction.
    ///
    /// `waitingSince` is when an earlier delivery of this record began to wait, as the runtime
    /// carries it: the window runs from there even if the waiting store lost its note of it.
    public func match(_ verified: VerifiedTransaction, now: Timestamp, waitingSince: Timestamp? = nil) async throws
        -> MatchOutcome
    {
        let token = verified.transaction.appAccountToken.flatMap(AppAccountToken.canonical)
        let existingOwner = try await self.ownership.owner(
            originalTransactionId: verified.transaction.originalTransactionId)
        let view = try await self.orders.orders(appAccountToken: token, orderId: verified.hints.orderId)
        switch try await self.decide(
            verified, token: token, existingOwner: existingOwner, view: view, parkedSince: nil, now: now)
        {
        case .decided(let outcome):
            return outcome
        case .park:
            let since = try await self.waiting.park(
                verified, under: Self.waitKeys(token: token, hints: verified.hints), at: waitingSince ?? now)
            let again = try await self.orders.orders(appAccountToken: token, orderId: verified.hints.orderId)
            switch try await self.decide(
                verified, token: token, existingOwner: existingOwner, view: again, parkedSince: since, now: now)
            {
            case .decided(let outcome): return outcome
            case .park: preconditionFailure("a parked transaction is decided")
            }
        }
    }

    private enum Step {
        case decided(MatchOutcome)
        /// The transaction has to wait: park it, then decide again.
        case park
    }

    /// The rules over one view of the order index. `parkedSince` is nil until the transaction
    /// is parked; a decision that needs waiting asks for parking first.
    private func decide(
        _ verified: VerifiedTransaction, token: String?, existingOwner: String?, view: OrderLookup,
        parkedSince: Timestamp?, now: Timestamp
    ) async throws -> Step {
        let transaction = verified.transaction
        let hints = verified.hints
        var warnings: [MatchWarning] = []

        var candidate = self.candidate(byToken: token, view: view, transaction: transaction, hints: hints)
        if candidate == nil, let order = view.byOrderId {
            if order.bundleId == transaction.bundleId, order.productId == transaction.productId,
                hints.userId == nil || hints.userId == order.userId
            {
                candidate = Candidate(userId: order.userId, orderId: order.orderId, matchedBy: .orderId)
            } else {
                warnings.append(.orderHintMismatch)
            }
        }
        if candidate == nil, existingOwner == nil, hints.userId != nil, self.configuration.orderGrace > .zero,
            self.awaitsOrder(token: token, hints: hints, view: view)
        {
            guard let since = parkedSince else { return .park }
            let graceEnds = since.advanced(by: self.configuration.orderGrace)
            if now < graceEnds { return .decided(.wait(since: since, deadline: graceEnds)) }
            warnings.append(.orderNeverArrived)
        }
        if candidate == nil, let existingOwner {
            candidate = Candidate(userId: existingOwner, matchedBy: .ownership)
        }
        if candidate == nil, let userId = hints.userId {
            candidate = Candidate(userId: userId, matchedBy: .user)
        }
        guard let candidate else {
            guard let since = parkedSince else { return .park }
            return .decided(try await self.waitOrGiveUp(verified, token: token, since: since, now: now))
        }

        if let refusal = try await self.ownershipRefusal(candidate, existingOwner: existingOwner, verified: verified) {
            try await self.forget(verified, token: token)
            return .decided(.reject(refusal))
        }
        if let orderId = candidate.orderId {
            let firstClaim = try await self.orders.claim(
                orderId: orderId, originalTransactionId: transaction.originalTransactionId)
            if firstClaim != transaction.originalTransactionId { warnings.append(.orderAlreadyClaimed) }
        }
        if let hinted = hints.userId, hinted != candidate.userId {
            warnings.append(.userHintMismatch)
        }
        if let scheme = self.configuration.tokenScheme, !scheme.isReversible, let token,
            !scheme.token(token, belongsTo: candidate.userId, bundleId: transaction.bundleId)
        {
            warnings.append(.appAccountTokenMismatch)
        }
        try await self.forget(verified, token: token)
        return .decided(
            .matched(
                MatchedTransaction(
                    verified: verified,
                    userId: candidate.userId,
                    orderId: candidate.orderId,
                    matchedBy: candidate.matchedBy,
                    warnings: warnings
                )))
    }

    /// Indexes an order and returns the transactions that were waiting for it.
    public func acceptOrder(_ order: OrderEvent) async throws -> OrderOutcome {
        let normalised: OrderEvent
        do throws(Rejection) {
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
    private func candidate(
        byToken token: String?, view: OrderLookup, transaction: TransactionDetails, hints: PublisherHints
    ) -> Candidate? {
        guard let token else { return nil }
        if let order = view.byToken, order.bundleId == transaction.bundleId {
            return Candidate(userId: order.userId, orderId: order.orderId, matchedBy: .appAccountToken)
        }
        guard let scheme = self.configuration.tokenScheme else { return nil }
        if scheme.isReversible {
            return scheme.userId(fromToken: token).map { Candidate(userId: $0, matchedBy: .appAccountToken) }
        }
        guard let hinted = hints.userId, scheme.token(token, belongsTo: hinted, bundleId: transaction.bundleId)
        else { return nil }
        return Candidate(userId: hinted, matchedBy: .appAccountToken)
    }

    /// The "receipt replayed by another user" check. A purchase already bound to a user
    /// conflicts when this delivery's rule names anyone else, or when only the publisher's
    /// userId speaks for it and names anyone else. Unbound, it is bound now to the rule's user.
    /// Either way, a publisher hint that disagrees with Apple's token or a confirmed order is
    /// only a warning: signed data outranks hints, also when a notification of the purchase
    /// (no hints) was matched before the backend's own event of it (decision D20).
    private func ownershipRefusal(_ candidate: Candidate, existingOwner: String?, verified: VerifiedTransaction)
        async throws -> Rejection?
    {
        let originalTransactionId = verified.transaction.originalTransactionId
        let owner: String
        if let existingOwner {
            owner = existingOwner
            let signedOrOrdered = candidate.matchedBy == .appAccountToken || candidate.matchedBy == .orderId
            if !signedOrOrdered, let hinted = verified.hints.userId, hinted != owner {
                return Rejection(
                    .ownershipConflict,
                    "originalTransactionId \(originalTransactionId) belongs to another user than the publisher's userId"
                )
            }
        } else {
            owner = try await self.ownership.bind(
                originalTransactionId: originalTransactionId, userId: candidate.userId)
        }
        guard owner == candidate.userId else {
            return Rejection(
                .ownershipConflict,
                "originalTransactionId \(originalTransactionId) belongs to another user than the one matched by \(candidate.matchedBy)"
            )
        }
        return nil
    }

    /// No user yet, parked since `since`: wait until the window from its first sighting has
    /// passed, then give up on it.
    private func waitOrGiveUp(_ verified: VerifiedTransaction, token: String?, since: Timestamp, now: Timestamp)
        async throws -> MatchOutcome
    {
        let deadline = since.advanced(by: self.configuration.waitWindow)
        guard now < deadline else {
            try await self.forget(verified, token: token)
            return .unmatched(
                UnmatchedTransaction(verified: verified, since: since, unmatchedAt: now, reason: .noOrderOrUser))
        }
        return .wait(since: since, deadline: deadline)
    }

    /// Whether the transaction names an order that has not arrived: a signed order token (no
    /// token scheme configured) with no order under it, or an orderId hint with no such order.
    /// An order that arrived and disagrees is not waited for.
    private func awaitsOrder(token: String?, hints: PublisherHints, view: OrderLookup) -> Bool {
        if token != nil, self.configuration.tokenScheme == nil, view.byToken == nil { return true }
        if hints.orderId != nil, view.byOrderId == nil { return true }
        return false
    }

    /// Drops the transaction's parked record, if it has one, and its place under its wait keys:
    /// decided, it must not be released again (decision D70).
    private func forget(_ verified: VerifiedTransaction, token: String?) async throws {
        try await self.waiting.forget(
            recordKey: verified.recordKey, under: Self.waitKeys(token: token, hints: verified.hints))
    }

    /// What an arriving order can release a waiting transaction by.
    private static func waitKeys(token: String?, hints: PublisherHints) -> [WaitKey] {
        var keys: [WaitKey] = []
        if let token { keys.append(.appAccountToken(token)) }
        if let orderId = hints.orderId { keys.append(.orderId(orderId)) }
        return keys
    }

    private static func normalise(_ order: OrderEvent) throws(Rejection) -> OrderEvent {
        func required(_ value: String, _ name: String) throws(Rejection) -> String {
            guard let trimmed = value.trimmedNonEmpty else { throw Rejection.malformed("\(name) is empty") }
            return trimmed
        }
        var token: String?
        if let raw = order.appAccountToken?.trimmedNonEmpty {
            guard let canonical = AppAccountToken.canonical(raw) else {
                throw Rejection.malformed("appAccountToken '\(raw)' is not a UUID")
            }
            token = canonical
        }
        if let quantity = order.quantity, quantity < 1 {
            throw Rejection.malformed("quantity \(quantity) is not positive")
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
