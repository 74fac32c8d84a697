import Contracts
import Kafka
import Pipeline
import Purchases
import Testing
import Workers

/// Match and grant write the durable copy of their Redis state with their outputs (decision
/// D35): what a Redis that lost its data is rebuilt from. Grant's copy goes after its events are
/// acknowledged (D52), never in the same produce.
@Suite(.timeLimit(.minutes(1))) struct DurableStateRecordsTests {
    static let message = InboundMessage(
        record: KafkaMessage(topic: "in", partition: 0, offset: 0, key: nil, value: []), attempt: 0)

    static func matched(_ transactionId: String, revoked: Bool = false) -> MatchedTransaction {
        var verified = StateFixtures.purchase(transactionId)
        if !revoked {
            verified.transaction.revocationDate = nil
            verified.transaction.revocationReason = nil
        }
        return MatchedTransaction(verified: verified, userId: "u-1", orderId: nil, matchedBy: .user)
    }

    @Test func grantDeliversTheStateAfterItsEventsAndSavesItOnlyAfterwards() async throws {
        let store = InMemoryEntitlementStateStore()
        let handler = GrantHandler(rules: GrantRules(store: store), entitlementsTopic: "ents", stateTopic: "states")
        let outcome = try await handler.handle(Self.matched("300"), message: Self.message)
        guard case .deliver(let records, let copy, let afterDelivery) = outcome else {
            Issue.record("expected a delivery, got \(outcome)")
            return
        }
        #expect(records.map(\.topic) == ["ents"])
        #expect(copy.map(\.topic) == ["states"], "the copy in a produce of its own, after the events")
        #expect(copy.first?.key == Array("300".utf8), "keyed by originalTransactionId")
        let state = try EventDecoder.decode(EntitlementStateRecord.self, from: copy[0].value).state
        #expect(state.status == .active)
        #expect(await store.state(originalTransactionId: "300") == nil, "Kafka first")
        try await afterDelivery()
        #expect(await store.state(originalTransactionId: "300") == state, "then Redis, the same state")
    }

    /// A revocation before anything was granted publishes nothing but is recorded, so a late
    /// grant stays off: that state must survive a loss too.
    @Test func grantDeliversAStateChangeThatPublishesNothing() async throws {
        let store = InMemoryEntitlementStateStore()
        let handler = GrantHandler(rules: GrantRules(store: store), entitlementsTopic: "ents", stateTopic: "states")
        let outcome = try await handler.handle(Self.matched("301", revoked: true), message: Self.message)
        guard case .deliver(let records, let copy, let afterDelivery) = outcome else {
            Issue.record("expected a delivery, got \(outcome)")
            return
        }
        #expect(records.isEmpty)
        #expect(copy.map(\.topic) == ["states"])
        try await afterDelivery()
        #expect(await store.state(originalTransactionId: "301")?.status == .revoked)

        // The same decision again changes nothing: nothing is written.
        let again = try await handler.handle(Self.matched("301", revoked: true), message: Self.message)
        guard case .skip = again else {
            Issue.record("expected a skip, got \(again)")
            return
        }
    }

    @Test func everyMatchedRecordCarriesItsBinding() async throws {
        let rules = MatchRules(
            orders: InMemoryOrderIndex(), ownership: InMemoryOwnershipStore(),
            waiting: InMemoryWaitingTransactionStore())
        let handler = MatchHandler(
            rules: rules, topics: .init(verified: "v", matched: "m", unmatched: "u", ownership: "o"))
        var verified = StateFixtures.purchase("400")
        verified.hints.userId = "u-4"
        verified.hints.orderId = nil
        verified.transaction.appAccountToken = nil
        // The first delivery binds; a second one (a renewal, or the replay of a delivery that died
        // after binding in Redis but before its produce) carries the binding all the same.
        for eventId in ["e-1", "e-2"] {
            verified.hints.eventId = eventId
            let outcome = try await handler.handle(.verified(verified), message: Self.message)
            guard case .produce(let records) = outcome else {
                Issue.record("expected records, got \(outcome)")
                return
            }
            #expect(records.map(\.topic) == ["o", "m"])
            let binding = try EventDecoder.decode(OwnershipBinding.self, from: records[0].value)
            #expect(binding == OwnershipBinding(originalTransactionId: "400", userId: "u-4"))
            #expect(records[0].key == Array("400".utf8))
        }
    }
}
