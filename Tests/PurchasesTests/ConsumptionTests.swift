import AppStore
import AppStoreModels
import Contracts
import Foundation
import Purchases
import Synchronization
import Testing

/// Answers to CONSUMPTION_REQUEST built from grant's state (decision D34), and the answerer's
/// once-per-request bookkeeping around Apple's answers.
@Suite(.timeLimit(.minutes(2))) struct ConsumptionTests {
    static let signed: Int64 = 1_763_000_200_000
    static let hour: Int64 = 3_600_000
    static let consented = ConsumptionConfiguration(customerConsented: true)

    static func request(
        _ transaction: TransactionDetails, uuid: String = "n-consumption", signedAt: Int64 = signed
    ) -> MatchedTransaction {
        var verified = Records.verified(transaction, notification: .consumptionRequest, uuid: uuid)
        verified.notification?.signedDate = Timestamp(millisecondsSince1970: signedAt)
        return Records.matched(verified)
    }

    static func state(
        _ transaction: TransactionDetails, status: EntitlementState.Status = .active, revoked: [String] = []
    ) -> EntitlementState {
        EntitlementState(
            originalTransactionId: transaction.originalTransactionId, userId: "u-1", orderId: nil,
            productId: transaction.productId, productType: transaction.productType,
            transactionId: transaction.transactionId, purchaseDate: transaction.purchaseDate,
            expiresDate: transaction.expiresDate, status: status, signedDate: transaction.signedDate,
            revokedTransactionIds: revoked)
    }

    static func plan(
        _ transaction: TransactionDetails, state: EntitlementState?,
        configuration: ConsumptionConfiguration = consented, hoursLater: Int64 = 1
    ) -> ConsumptionPlan {
        ConsumptionRules.plan(
            request(transaction), state: state, configuration: configuration,
            now: Date(timeIntervalSince1970: Double(signed + hoursLater * hour) / 1000))
    }

    static func sent(_ plan: ConsumptionPlan) throws -> ConsumptionRequest {
        guard case .send(let request, _, _) = plan else { throw PlanWasNotSend(plan: plan) }
        return request
    }

    struct PlanWasNotSend: Error { var plan: ConsumptionPlan }

    // MARK: Rules

    @Test func deliveredConsumableCountsAsConsumed() throws {
        let gems = Records.transaction(quantity: 5)
        let plan = Self.plan(gems, state: Self.state(gems))
        guard case .send(let request, let id, let environment) = plan else {
            Issue.record("not sent: \(plan)")
            return
        }
        #expect(id == gems.transactionId && environment == .sandbox)
        #expect(request.customerConsented)
        #expect(request.deliveryStatus == .delivered)
        #expect(request.consumptionPercentage == 100_000)
        #expect(request.sampleContentProvided == false)
        #expect(request.refundPreference == nil)
    }

    @Test func consumableUsageCanBeLeftOut() throws {
        let gems = Records.transaction()
        let configuration = ConsumptionConfiguration(
            customerConsented: true, sampleContentProvided: true, refundPreference: .decline,
            consumablesCountAsConsumed: false)
        let request = try Self.sent(Self.plan(gems, state: Self.state(gems), configuration: configuration))
        #expect(request.consumptionPercentage == nil)
        #expect(request.sampleContentProvided)
        #expect(request.refundPreference == .decline)
    }

    @Test func activeSubscriptionIsDeliveredWithoutAPercentage() throws {
        let monthly = Records.transaction(
            "3000000000000001", productId: "pro_monthly", type: .autoRenewableSubscription,
            expiresDate: 1_765_592_000_000)
        let configuration = ConsumptionConfiguration(customerConsented: true, refundPreference: .grantProrated)
        let request = try Self.sent(Self.plan(monthly, state: Self.state(monthly), configuration: configuration))
        #expect(request.deliveryStatus == .delivered)
        #expect(request.consumptionPercentage == nil)
        // Apple computes a subscription's share itself, so a prorated refund needs no percentage.
        #expect(request.refundPreference == .grantProrated)
    }

    @Test func revokedPurchaseIsUndeliveredAndUnconsumed() throws {
        let gems = Records.transaction(revocationDate: 1_763_000_150_000)
        let configuration = ConsumptionConfiguration(customerConsented: true, refundPreference: .grantProrated)
        let state = Self.state(gems, status: .revoked, revoked: [gems.transactionId])
        let request = try Self.sent(Self.plan(gems, state: state, configuration: configuration))
        #expect(request.deliveryStatus == .undeliveredOther)
        #expect(request.consumptionPercentage == 0)
        // GRANT_PRORATED with 0 % would be refused by Apple (400): left out instead.
        #expect(request.refundPreference == nil)
    }

    @Test func anEarlierPeriodRevokedIsUndeliveredWhileTheSubscriptionGoesOn() throws {
        let first = Records.transaction("3000000000000001", type: .autoRenewableSubscription)
        var current = Self.state(first)
        current.transactionId = "3000000000000002"
        current.revokedTransactionIds = [first.transactionId]
        #expect(try Self.sent(Self.plan(first, state: current)).deliveryStatus == .undeliveredOther)
    }

    @Test func withoutConsentNothingIsSent() {
        let gems = Records.transaction()
        let plan = Self.plan(gems, state: Self.state(gems), configuration: .init(customerConsented: false))
        #expect(plan == .skip(.init(.noConsent, "")))
    }

    @Test func requestsOlderThanTwelveHoursAreNotAnswered() throws {
        let gems = Records.transaction()
        #expect(Self.plan(gems, state: Self.state(gems), hoursLater: 13) == .skip(.init(.windowClosed, "")))
        _ = try Self.sent(Self.plan(gems, state: Self.state(gems), hoursLater: 12))
    }

    @Test func purchasesGrantNeverSawAndXcodeDataAreNotAnswered() {
        let gems = Records.transaction()
        #expect(Self.plan(gems, state: nil) == .skip(.init(.unknownPurchase, "")))
        var local = gems
        local.environment = .xcode
        #expect(Self.plan(local, state: Self.state(local)) == .skip(.init(.notApple, "")))
    }

    // MARK: Answerer

    @Test func answersOnceAndNotAgainAfterARetryOrARepeatedRequest() async throws {
        let gems = Records.transaction()
        let fixture = try await AnswererFixture(state: Self.state(gems))
        fixture.sender.failNext(.retry(after: .seconds(2), reason: RetryReason(.serverError, "5000001")))

        let first = try await fixture.answerer.answer(Self.request(gems, uuid: "n-1"))
        guard case .retry(let after, _) = first else {
            Issue.record("expected a retry, got \(String(describing: first))")
            return
        }
        #expect(after == .seconds(2))
        let second = try await fixture.answerer.answer(Self.request(gems, uuid: "n-1"))
        #expect(second == .answered(try Self.sent(Self.plan(gems, state: Self.state(gems)))))
        // The record retried once more after Apple's 202, and Apple repeating the request.
        #expect(
            try await fixture.answerer.answer(Self.request(gems, uuid: "n-1")) == .skipped(.init(.alreadyAnswered, "")))
        #expect(
            try await fixture.answerer.answer(Self.request(gems, uuid: "n-2")) == .skipped(.init(.alreadyAnswered, "")))
        #expect(fixture.sender.sent.count == 1)
        #expect(fixture.sender.attempts == 2)
    }

    @Test func appleRefusingForGoodIsNotRetried() async throws {
        let gems = Records.transaction()
        let fixture = try await AnswererFixture(state: Self.state(gems))
        fixture.sender.failNext(.terminal(TerminalReason(.transactionNotFound, "4040010")))
        #expect(try await fixture.answerer.answer(Self.request(gems)) == .failed(TerminalReason(.transactionNotFound)))
        #expect(fixture.sender.sent.isEmpty)
    }

    @Test func aBookedUpBudgetWaitsWithoutCallingAppleOrChargingAnAttempt() async throws {
        let gems = Records.transaction("2000000000000001")
        let coins = Records.transaction("2000000000000002", productId: "coins_500")
        // 0.5/s: the burst is one call, the next slot is two seconds on (past the 1 s held in place).
        let fixture = try await AnswererFixture(
            states: [Self.state(gems), Self.state(coins)], gate: InMemoryAppleCallGate(callsPerSecond: 0.5),
            waitInPlace: .seconds(1))
        #expect(try await fixture.answerer.answer(Self.request(gems, uuid: "n-1")) != nil)
        let second = try await fixture.answerer.answer(Self.request(coins, uuid: "n-2"))
        guard case .wait(let slot) = second else {
            Issue.record("expected a wait, got \(String(describing: second))")
            return
        }
        #expect(slot.cause == .budget)
        #expect(slot.booking.call.endpoint == .consumption)
        #expect(fixture.sender.attempts == 1)
    }

    /// Apple's 429 on one answer holds the next one back without asking Apple again, here and in
    /// every replica sharing the gate; both wait, neither fails.
    @Test func applesRateLimitPausesTheNextAnswer() async throws {
        let gems = Records.transaction("2000000000000001")
        let coins = Records.transaction("2000000000000002", productId: "coins_500")
        let fixture = try await AnswererFixture(
            states: [Self.state(gems), Self.state(coins)], gate: InMemoryAppleCallGate(callsPerSecond: 1000))
        fixture.sender.failNext(.retry(after: .seconds(60), reason: RetryReason(.rateLimited, "HTTP 429")))
        guard case .wait(let first) = try await fixture.answerer.answer(Self.request(gems, uuid: "n-1")) else {
            Issue.record("a 429 was not a wait")
            return
        }
        #expect(first.cause == .applePause)
        let second = try await fixture.answerer.answer(Self.request(coins, uuid: "n-2"))
        guard case .wait(let slot) = second else {
            Issue.record("expected a wait, got \(String(describing: second))")
            return
        }
        #expect(slot.delay > .seconds(50))
        #expect(slot.booking.at > first.booking.at)
        #expect(fixture.sender.attempts == 1)
    }

    @Test func otherNotificationsAreNotConsumptionRequests() async throws {
        let gems = Records.transaction()
        let fixture = try await AnswererFixture(state: Self.state(gems))
        #expect(
            try await fixture.answerer.answer(Records.matched(Records.verified(gems, notification: .refund))) == nil)
        #expect(try await fixture.answerer.answer(Records.matched(Records.verified(gems))) == nil)
        #expect(fixture.sender.attempts == 0)
    }
}

/// An answerer over in-memory state, ledger and a scripted Apple.
private struct AnswererFixture {
    let sender = ScriptedConsumptionSender()
    let answerer: ConsumptionAnswerer

    init(state: EntitlementState, gate: any AppleCallGate = InMemoryAppleCallGate()) async throws {
        try await self.init(states: [state], gate: gate)
    }

    init(states saved: [EntitlementState], gate: any AppleCallGate, waitInPlace: Duration = .seconds(2)) async throws {
        let states = InMemoryEntitlementStateStore()
        for state in saved { await states.save(state) }
        self.answerer = ConsumptionAnswerer(
            configuration: ConsumptionTests.consented, states: states, ledger: InMemoryConsumptionLedger(),
            sender: self.sender, gate: gate, waitInPlace: waitInPlace,
            now: { Date(timeIntervalSince1970: Double(ConsumptionTests.signed + ConsumptionTests.hour) / 1000) })
    }
}

/// Records what it was asked to send; fails the next attempt when told to.
private final class ScriptedConsumptionSender: ConsumptionSender {
    private struct State {
        var failures: [AppleOutcome] = []
        var sent: [ConsumptionRequest] = []
        var attempts = 0
    }

    private let state = Mutex(State())

    func failNext(_ outcome: AppleOutcome) { state.withLock { $0.failures.append(outcome) } }
    var sent: [ConsumptionRequest] { state.withLock { $0.sent } }
    var attempts: Int { state.withLock { $0.attempts } }

    func send(_ request: ConsumptionRequest, transactionId: String, environment: AppStoreEnvironment)
        async throws(AppleCallFailure)
    {
        let failure = state.withLock { state -> AppleOutcome? in
            state.attempts += 1
            guard state.failures.isEmpty else { return state.failures.removeFirst() }
            state.sent.append(request)
            return nil
        }
        if let failure { throw AppleCallFailure(failure) }
    }
}
