import AppStore
import AppStoreModels
import Contracts
import Foundation
import Synchronization
import Testing

@testable import Purchases

/// The confirm stage's rules and calls (D55): what a committed change owes Apple, and what
/// Apple's answers make of the record.
@Suite(.timeLimit(.minutes(1))) struct ConfirmTests {
    static func event(
        _ action: EntitlementAction, matchedBy: MatchedBy = .user, environment: AppStoreEnvironment = .production,
        userId: String = "4242"
    ) -> EntitlementEvent {
        EntitlementEvent(
            eventId: "e|\(action.rawValue)", action: action, userId: userId, orderId: nil, bundleId: "com.example.game",
            productId: "p", productType: .consumable, quantity: 1, transactionId: "20", originalTransactionId: "10",
            environment: environment, purchaseDate: nil, expiresDate: nil, revocationDate: nil, matchedBy: matchedBy,
            warnings: [], source: .storeKit2)
    }

    static let everything = ConfirmConfiguration(finishTransactions: true, appAccountTokenScheme: .numericPaddedF)

    /// What a change of `action` owes Apple with both settings on.
    static func plan(_ action: EntitlementAction) -> [ConfirmAction] {
        ConfirmRules.plan(event(action), configuration: everything)
    }
    static let token = UUID(uuidString: "ffffffff-ffff-ffff-ffff-ffffffff4242")!

    @Test func aGrantMatchedByItsUserIsFinishedAndGetsTheUsersToken() {
        #expect(
            ConfirmRules.plan(Self.event(.grant), configuration: Self.everything) == [
                .finish(transactionId: "20", environment: .production),
                .setAppAccountToken(originalTransactionId: "10", token: Self.token, environment: .production),
            ])
    }

    @Test(arguments: [
        (EntitlementAction.renew, MatchedBy.ownership, ["finish"]),
        (.grant, .appAccountToken, ["finish"]),
        (.grant, .orderId, ["finish", "token"]),
        (.revoke, .user, []),
        (.expire, .ownership, []),
    ])
    func onlyWhatTheChangeOwes(action: EntitlementAction, matchedBy: MatchedBy, owed: [String]) {
        let plan = ConfirmRules.plan(Self.event(action, matchedBy: matchedBy), configuration: Self.everything)
        #expect(plan.map { $0.name == "finish_transaction" ? "finish" : "token" } == owed)
    }

    @Test func nothingIsOwedWhenOffOrOutsideApplesEnvironmentsOrWithoutAToken() {
        #expect(ConfirmRules.plan(Self.event(.grant), configuration: ConfirmConfiguration()).isEmpty)
        #expect(ConfirmRules.plan(Self.event(.grant, environment: .xcode), configuration: Self.everything).isEmpty)
        // numericPaddedF encodes decimal user ids only: no token, still finished.
        #expect(
            ConfirmRules.plan(Self.event(.grant, userId: "alice"), configuration: Self.everything).map(\.name) == [
                "finish_transaction"
            ])
    }

    /// The app's own purchase (D58) is no in-app transaction: nothing to finish or token.
    @Test func theAppsOwnPurchaseOwesAppleNothing() {
        var event = Self.event(.grant)
        event.productType = .app
        event.transactionId = "app-704000000000000001"
        #expect(ConfirmRules.plan(event, configuration: Self.everything).isEmpty)
    }

    final class Sender: ConfirmationSender {
        let answers: Mutex<[AppleOutcome]>
        let sent = Mutex<[ConfirmAction]>([])
        init(_ answers: [AppleOutcome]) { self.answers = Mutex(answers) }
        func send(_ action: ConfirmAction) async throws(AppleCallFailure) {
            sent.withLock { $0.append(action) }
            let answer = answers.withLock { $0.isEmpty ? AppleOutcome.ok : $0.removeFirst() }
            if case .ok = answer { return }
            throw AppleCallFailure(answer)
        }
    }

    @Test func aRefusalForGoodIsNotedAndTheOtherCallStillMade() async throws {
        let sender = Sender([.terminal(TerminalReason(.transactionNotFound, "4040010"))])
        let outcome = try await AppleConfirmer(sender: sender, gate: InMemoryAppleCallGate(callsPerSecond: 0))
            .confirm(Self.plan(.grant))
        guard case .done(let done, let refused) = outcome else {
            Issue.record("\(outcome)")
            return
        }
        #expect(done.map(\.name) == ["set_app_account_token"] && refused.map(\.action.name) == ["finish_transaction"])
        #expect(sender.sent.withLock { $0.count } == 2)
    }

    @Test func apples5xxIsRetriedAndIts429PausesTheCall() async throws {
        let retry = RetryReason(.serverError, "500")
        let failing = try await AppleConfirmer(
            sender: Sender([.retry(after: .seconds(3), reason: retry)]), gate: InMemoryAppleCallGate(callsPerSecond: 0)
        ).confirm(Self.plan(.grant))
        #expect(failing == .retry(after: .seconds(3), reason: retry))
        let limited = try await AppleConfirmer(
            sender: Sender([.retry(after: .seconds(30), reason: RetryReason(.rateLimited, "429"))]),
            gate: InMemoryAppleCallGate(callsPerSecond: 0)
        ).confirm(Self.plan(.grant))
        guard case .wait(let slot) = limited else {
            Issue.record("a 429 was not a wait: \(limited)")
            return
        }
        #expect(slot.booking.call == AppleCall(.finishTransaction, environment: .production))
        #expect(slot.delay > .seconds(25))
    }
}
