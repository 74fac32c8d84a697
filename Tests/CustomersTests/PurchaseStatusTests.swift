import AppStoreModels
import Contracts
import Customers
import Testing

/// A purchase event's status and a transaction's history, folded from the audit trail (D51):
/// the same for any order of arrival and any repeats, terminal only when every transaction the
/// event held reached its end.
@Suite struct PurchaseStatusTests {
    static let app = "com.example.game"

    static func entry(
        _ stage: String, _ decision: AuditDecision, event: String? = "e-1", transaction: String? = nil,
        at: Int64, user: String? = nil, reason: String? = nil, transactions: [String]? = nil,
        effects: [EntitlementAction]? = nil, warnings: [MatchWarning]? = nil, detail: String? = nil
    ) -> AuditEntry {
        var entry = AuditEntry(
            stage: stage, decision: decision, at: Timestamp(millisecondsSince1970: 1_790_000_000_000 + at),
            subject: AuditSubject(eventId: event, bundleId: app, transactionId: transaction), userId: user,
            reason: reason, detail: detail)
        entry.transactions = transactions
        entry.effects = effects
        entry.warnings = warnings
        return entry.identified()
    }

    /// Every order of `entries`, each with some entries repeated (a redelivery after a crash).
    static func arrivals(_ entries: [AuditEntry], seeds: Range<UInt64> = 0..<50) -> [[AuditEntry]] {
        seeds.map { seed in
            var generator = SplitMix(seed: seed)
            var arrival = entries + entries.filter { _ in generator.next() % 3 == 0 }
            arrival.shuffle(using: &generator)
            return arrival
        }
    }

    static let granted = [
        entry("intake", .accepted, at: 0, user: "alice"),
        entry("verify", .verified, transaction: "100", at: 10, transactions: ["100"]),
        entry("match", .matched, transaction: "100", at: 20, user: "alice"),
        entry("grant", .changed, transaction: "100", at: 30, user: "alice", effects: [.grant]),
    ]

    @Test func aGrantedPurchaseIsGrantedToItsUserWhateverTheOrderOfItsEntries() throws {
        for arrival in Self.arrivals(Self.granted) {
            let status = try #require(PurchaseStatus(eventId: "e-1", bundleId: Self.app, entries: arrival))
            #expect(status.status == .granted && status.terminal && status.userId == "alice")
            #expect(status.transactions.map(\.transactionId) == ["100"])
            #expect(status.transactions.first?.effects == [.grant])
            #expect(status.updatedAt.millisecondsSince1970 == 1_790_000_000_030)
        }
    }

    @Test func untilGrantDecidedTheEventIsPending() throws {
        let status = try #require(
            PurchaseStatus(eventId: "e-1", bundleId: Self.app, entries: Array(Self.granted.prefix(3))))
        #expect(status.status == .pending && !status.terminal)
        #expect(PurchaseStatus(eventId: "e-1", bundleId: Self.app, entries: []) == nil)
    }

    @Test func aRefusalAtIntakeIsTerminalWithItsReasonCode() throws {
        let status = try #require(
            PurchaseStatus(
                eventId: "e-1", bundleId: Self.app,
                entries: [Self.entry("intake", .rejected, at: 0, reason: "malformed_event", detail: "missing payload")])
        )
        #expect(status.status == .rejected && status.terminal && status.reason == "malformed_event")
        #expect(status.detail == "missing payload")
    }

    @Test func aReplayByAnotherUserIsRejectedByMatch() throws {
        let entries = [
            Self.entry("intake", .accepted, at: 0, user: "oscar"),
            Self.entry("verify", .verified, transaction: "100", at: 10, transactions: ["100"]),
            Self.entry("match", .rejected, transaction: "100", at: 20, user: "oscar", reason: "ownership_conflict"),
        ]
        for arrival in Self.arrivals(entries) {
            let status = try #require(PurchaseStatus(eventId: "e-1", bundleId: Self.app, entries: arrival))
            #expect(status.status == .rejected && status.terminal && status.reason == "ownership_conflict")
        }
    }

    @Test func aHintThatLostHasNoEffectAndSaysWhoThePurchaseBelongsTo() throws {
        let words = "the publisher named bob; the purchase belongs to alice by appAccountToken"
        let entries = [
            Self.entry("intake", .accepted, at: 0, user: "bob"),
            Self.entry("verify", .verified, transaction: "100", at: 10, transactions: ["100"]),
            Self.entry(
                "match", .matched, transaction: "100", at: 20, user: "alice", warnings: [.userHintMismatch],
                detail: words),
            Self.entry("grant", .noEffect, transaction: "100", at: 30, user: "alice", reason: "already granted"),
        ]
        for arrival in Self.arrivals(entries) {
            let status = try #require(PurchaseStatus(eventId: "e-1", bundleId: Self.app, entries: arrival))
            #expect(status.status == .noEffect && status.terminal)
            #expect(status.reason == "already granted" && status.detail == words)
            #expect(status.transactions.first?.warnings == [.userHintMismatch])
            #expect(status.transactions.first?.userId == "alice")
        }
    }

    @Test func aDuplicateEventDroppedAtIntakeHasNoEffect() throws {
        let status = try #require(
            PurchaseStatus(
                eventId: "e-2", bundleId: Self.app,
                entries: [
                    Self.entry(
                        "intake", .noEffect, event: "e-2", at: 0, reason: "duplicate: intake already processed abc")
                ]))
        #expect(status.status == .noEffect && status.terminal)
    }

    @Test func aReceiptOfSeveralPurchasesEndsWhenEveryOneHas() throws {
        let verified = Self.entry("verify", .verified, at: 10, transactions: ["100", "101"])
        let first = Self.entry("grant", .changed, transaction: "100", at: 30, user: "carol", effects: [.grant])
        let second = Self.entry(
            "grant", .noEffect, transaction: "101", at: 40, user: "carol", reason: "already granted")
        let partial = try #require(PurchaseStatus(eventId: "e-1", bundleId: Self.app, entries: [verified, first]))
        #expect(partial.status == .pending && !partial.terminal)
        #expect(partial.transactions.map(\.status) == [.granted, .pending])
        for arrival in Self.arrivals([verified, first, second]) {
            let status = try #require(PurchaseStatus(eventId: "e-1", bundleId: Self.app, entries: arrival))
            #expect(status.status == .granted && status.terminal && status.userId == "carol")
        }
    }

    @Test func aGrantAfterUnmatchedOutranksIt() throws {
        let entries = [
            Self.entry("verify", .verified, transaction: "100", at: 10, transactions: ["100"]),
            Self.entry("match", .unmatched, transaction: "100", at: 20, reason: "no_order_or_user"),
        ]
        let unmatched = try #require(PurchaseStatus(eventId: "e-1", bundleId: Self.app, entries: entries))
        #expect(unmatched.status == .unmatched && unmatched.terminal)
        let later =
            entries + [
                Self.entry("match", .matched, transaction: "100", at: 50, user: "kate"),
                Self.entry("grant", .changed, transaction: "100", at: 60, user: "kate", effects: [.grant]),
            ]
        for arrival in Self.arrivals(later) {
            let status = try #require(PurchaseStatus(eventId: "e-1", bundleId: Self.app, entries: arrival))
            #expect(status.status == .granted && status.userId == "kate")
        }
    }

    /// A stage that crashed after its outputs and before its offset gets the record again and
    /// finds it done: its "duplicate" must not end the event while the first delivery goes on.
    @Test func aRedeliverysDuplicateDoesNotEndTheEvent() throws {
        let duplicate = "duplicate: intake already processed abc"
        let atIntake = [
            Self.entry("intake", .accepted, at: 0, user: "alice"),
            Self.entry("intake", .noEffect, at: 5, reason: duplicate),
        ]
        let early = try #require(PurchaseStatus(eventId: "e-1", bundleId: Self.app, entries: atIntake))
        #expect(early.status == .pending && !early.terminal)
        let atMatch =
            Array(Self.granted.prefix(3)) + [
                Self.entry("match", .noEffect, transaction: "100", at: 25, reason: "duplicate: match already processed")
            ]
        let later = try #require(PurchaseStatus(eventId: "e-1", bundleId: Self.app, entries: atMatch))
        #expect(later.status == .pending && !later.terminal)
        for arrival in Self.arrivals(Self.granted + atIntake + atMatch) {
            let status = try #require(PurchaseStatus(eventId: "e-1", bundleId: Self.app, entries: arrival))
            #expect(status.status == .granted && status.terminal)
        }
    }

    @Test func aDeadLetteredEventIsNotTerminal() throws {
        let status = try #require(
            PurchaseStatus(
                eventId: "e-1", bundleId: Self.app,
                entries: [
                    Self.entry("intake", .accepted, at: 0),
                    Self.entry("verify", .deadLettered, at: 10, reason: "Apple unavailable"),
                ]))
        #expect(status.status == .deadLettered && !status.terminal)
    }

    @Test func aHistoryHoldsTheTransactionsOwnEntriesAndItsEventsButNotTheEventsOtherPurchases() throws {
        let entries = [
            Self.entry("intake", .accepted, at: 0),
            Self.entry("verify", .verified, at: 10, transactions: ["100", "101"]),
            Self.entry("match", .matched, transaction: "100", at: 20, user: "carol"),
            Self.entry("match", .matched, transaction: "101", at: 21, user: "carol"),
            Self.entry("grant", .changed, transaction: "100", at: 30, user: "carol", effects: [.grant]),
        ]
        for arrival in Self.arrivals(entries) {
            let history = try #require(TransactionHistory(transactionId: "100", bundleId: Self.app, entries: arrival))
            #expect(history.entries.map(\.stage) == ["intake", "verify", "match", "grant"])
            #expect(history.entries.allSatisfy { $0.transactionId != "101" })
        }
        #expect(TransactionHistory(transactionId: "999", bundleId: Self.app, entries: entries) == nil)
    }
}
