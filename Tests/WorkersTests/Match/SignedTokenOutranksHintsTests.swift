import Contracts
import Purchases
import Redis
import Synchronization
import TestSupport
import Testing
import WorkerCommon

/// Apple's signed appAccountToken outranks the publisher's userId hint even while orders are
/// indexed concurrently with matches and matches are cut off mid-way (a worker killed): a
/// purchase whose order is indexed is never bound by a hint.
///
/// Two "replicas" (two Redis clients) index orders and match transactions at the same time.
/// Every transaction's hint names a user other than its order's, so a hint that won shows as
/// `matchedBy: user` or as an ownership conflict when the token's order is matched later.
@Suite(.timeLimit(.minutes(2))) struct SignedTokenOutranksHintsTests {
    private static let purchases = 300

    @Test func noPurchaseWhoseOrderIsIndexedIsBoundByAHint() async throws {
        try await withTwoStateClients { orderReplica, matchReplica in
            let orderRules = Self.rules(orderReplica)
            let matchRules = Self.rules(matchReplica)
            let indexed = IndexedOrders()
            let results = try await withThrowingTaskGroup(of: [Int: MatchOutcome].self) { group in
                group.addTask {
                    for index in (0..<Self.purchases).shuffled() {
                        _ = try await orderRules.acceptOrder(Self.order(index))
                        indexed.add(index)
                        if Bool.random() { await Task.yield() }
                    }
                    return [:]
                }
                for lane in 0..<4 {
                    group.addTask {
                        var outcomes: [Int: MatchOutcome] = [:]
                        for index in stride(from: lane, to: Self.purchases, by: 4) {
                            outcomes[index] = try await Self.matchUntilDecided(
                                matchRules, index: index, indexed: indexed)
                        }
                        return outcomes
                    }
                }
                return try await group.reduce(into: [:]) { $0.merge($1) { first, _ in first } }
            }
            #expect(results.count == Self.purchases)
            for (index, outcome) in results.sorted(by: { $0.key < $1.key }) {
                guard case .matched(let matched) = outcome else {
                    Issue.record("purchase \(index): \(outcome)")
                    continue
                }
                #expect(matched.matchedBy == .appAccountToken, "purchase \(index) matched by \(matched.matchedBy)")
                #expect(matched.userId == "order-user-\(index)")
                #expect(matched.orderId == "o-\(index)")
            }
        }
    }

    /// Matches like the runtime would: a wait is tried again, and some attempts are cancelled
    /// part-way (a kill), leaving whatever they wrote for the next attempt. The order is known
    /// to be indexed once `indexed` says so; from then on a match must find it.
    private static func matchUntilDecided(_ rules: MatchRules, index: Int, indexed: IndexedOrders) async throws
        -> MatchOutcome
    {
        let transaction = Self.transaction(index)
        while true {
            let orderWasIndexed = indexed.contains(index)
            let attempt = Task { try await rules.match(transaction, now: StateFixtures.now) }
            if Int.random(in: 0..<5) == 0 {
                await Task.yield()
                attempt.cancel()
            }
            let outcome: MatchOutcome
            do {
                outcome = try await attempt.value
            } catch {
                continue  // killed: the next attempt replays it
            }
            switch outcome {
            case .wait:
                #expect(
                    !orderWasIndexed, "purchase \(index) waited although its order was indexed before the match began")
                try await Task.sleep(for: .milliseconds(Int.random(in: 1...5)))
            default:
                return outcome
            }
        }
    }

    private static func rules(_ client: RedisClient) -> MatchRules {
        MatchRules(
            configuration: MatchConfiguration(orderGrace: .seconds(3600)),
            orders: RedisOrderIndex(client: client),
            ownership: RedisOwnershipStore(client: client),
            waiting: RedisWaitingTransactionStore(client: client)
        )
    }

    private static func token(_ index: Int) -> String {
        "7e3d2a1c-0000-4000-8000-\(String(repeating: "0", count: 12 - String(index).count))\(index)"
    }

    private static func order(_ index: Int) -> OrderEvent {
        OrderEvent(
            orderId: "o-\(index)", userId: "order-user-\(index)", productId: "pro_monthly",
            bundleId: StateFixtures.bundleId, appAccountToken: token(index), quantity: 1)
    }

    private static func transaction(_ index: Int) -> VerifiedTransaction {
        var details = StateFixtures.details("tx-\(index)", original: "tx-\(index)")
        details.appAccountToken = token(index)
        return VerifiedTransaction(
            transaction: details,
            hints: PublisherHints(eventId: "e-\(index)", userId: "hint-user-\(index)"),
            source: .storeKit2,
            receivedAt: StateFixtures.now,
            verifiedAt: StateFixtures.now
        )
    }
}

/// Which orders' `acceptOrder` has returned.
private final class IndexedOrders: Sendable {
    private let indexes = Mutex<Set<Int>>([])
    func add(_ index: Int) { _ = indexes.withLock { $0.insert(index) } }
    func contains(_ index: Int) -> Bool { indexes.withLock { $0.contains(index) } }
}
