import AppStoreModels
import Contracts
import Purchases
import Testing

/// Match: precedence, token schemes, ownership, waiting and release.
@Suite(.timeLimit(.minutes(2))) struct MatchTests {
    let orders = InMemoryOrderIndex()
    let ownership = InMemoryOwnershipStore()
    let waiting = InMemoryWaitingTransactionStore()
    static let now = Timestamp(millisecondsSince1970: 1_763_000_200_000)
    static let token = "7e3d2a1c-0000-4000-8000-000000000001"

    func rules(_ configuration: MatchConfiguration = .init()) -> MatchRules {
        MatchRules(configuration: configuration, orders: self.orders, ownership: self.ownership, waiting: self.waiting)
    }

    func order(
        _ orderId: String = "o-1", userId: String = "u-order", token: String? = MatchTests.token,
        productId: String = "gems_100"
    ) async throws {
        guard
            case .indexed = try await self.rules().acceptOrder(
                OrderEvent(
                    orderId: orderId, userId: userId, productId: productId, bundleId: TestApple.bundleId,
                    appAccountToken: token, quantity: 1
                ))
        else {
            Issue.record("order refused")
            return
        }
    }

    func matched(_ outcome: MatchOutcome) -> MatchedTransaction? {
        if case .matched(let matched) = outcome { return matched }
        Issue.record("not matched: \(outcome)")
        return nil
    }

    // MARK: Precedence

    @Test func signedTokenFindsTheOrder() async throws {
        try await self.order()
        // Apple may spell the token in upper case; the publisher's hints disagree and lose.
        let verified = Records.verified(
            Records.transaction(token: Self.token.uppercased()), userId: "u-order", orderId: "o-other")
        let matched = try #require(self.matched(try await self.rules().match(verified, now: Self.now)))
        #expect(matched.userId == "u-order")
        #expect(matched.orderId == "o-1")
        #expect(matched.matchedBy == .appAccountToken)
        #expect(matched.warnings.isEmpty)
        #expect(await self.ownership.owner(originalTransactionId: "2000000000000001") == "u-order")
    }

    @Test func tokenOfAnotherAppsOrderIsIgnored() async throws {
        guard
            case .indexed = try await self.rules().acceptOrder(
                OrderEvent(
                    orderId: "o-1", userId: "u-order", productId: "gems_100", bundleId: "com.other",
                    appAccountToken: Self.token
                ))
        else { return }
        let verified = Records.verified(Records.transaction(token: Self.token), userId: "u-hint")
        let matched = try #require(self.matched(try await self.rules().match(verified, now: Self.now)))
        #expect(matched.matchedBy == .user)
        #expect(matched.userId == "u-hint")
    }

    @Test func numericPaddedFTokenNamesTheUser() async throws {
        let configuration = MatchConfiguration(tokenScheme: .numericPaddedF)
        let verified = Records.verified(Records.transaction(token: "FFFFFFFF-FFFF-FFFF-FFFF-FFF123456789"))
        let matched = try #require(self.matched(try await self.rules(configuration).match(verified, now: Self.now)))
        #expect(matched.userId == "123456789")
        #expect(matched.matchedBy == .appAccountToken)
        #expect(matched.orderId == nil)
    }

    @Test func pkcs7HexTokenNamesTheUser() async throws {
        let configuration = MatchConfiguration(tokenScheme: .pkcs7Hex)
        let verified = Records.verified(Records.transaction(token: "752D3132-330B-0B0B-0B0B-0B0B0B0B0B0B"))
        let matched = try #require(self.matched(try await self.rules(configuration).match(verified, now: Self.now)))
        #expect(matched.userId == "u-123")
        #expect(matched.matchedBy == .appAccountToken)
    }

    @Test(arguments: [
        (AppAccountTokenScheme.md5UserAndBundle, "38285458-80c5-2250-909b-4a778ec65d09"),
        (AppAccountTokenScheme.md5ForwardReversed, "80c52250-b773-591c-d31c-93c2990d8f62"),
    ])
    func aHashSchemeConfirmsThePublishersUser(scheme: AppAccountTokenScheme, token: String) async throws {
        let configuration = MatchConfiguration(tokenScheme: scheme)  // token: the scheme's for "u-123"
        let confirmed = Records.verified(Records.transaction("1", token: token), userId: "u-123")
        let matched = try #require(self.matched(try await self.rules(configuration).match(confirmed, now: Self.now)))
        #expect(matched.matchedBy == .appAccountToken)
        #expect(matched.warnings.isEmpty)

        let unconfirmed = Records.verified(Records.transaction("2", token: token), userId: "u-999")
        let fallback = try #require(self.matched(try await self.rules(configuration).match(unconfirmed, now: Self.now)))
        #expect(fallback.matchedBy == .user)
        #expect(fallback.userId == "u-999")
        #expect(fallback.warnings == [.appAccountTokenMismatch])
    }

    @Test func orderIdHintIsAcceptedWhenUserAndProductAgree() async throws {
        try await self.order("o-7", userId: "u-1", token: nil)
        let verified = Records.verified(Records.transaction(), userId: "u-1", orderId: "o-7")
        let matched = try #require(self.matched(try await self.rules().match(verified, now: Self.now)))
        #expect(matched.matchedBy == .orderId)
        #expect(matched.orderId == "o-7")
    }

    @Test(arguments: [("u-other", "gems_100"), ("u-1", "gems_5000")])
    func orderIdHintIsIgnoredWhenItDisagrees(orderUser: String, orderProduct: String) async throws {
        try await self.order("o-7", userId: orderUser, token: nil, productId: orderProduct)
        let verified = Records.verified(Records.transaction(), userId: "u-1", orderId: "o-7")
        let matched = try #require(self.matched(try await self.rules().match(verified, now: Self.now)))
        #expect(matched.matchedBy == .user)
        #expect(matched.userId == "u-1")
        #expect(matched.orderId == nil)
        #expect(matched.warnings == [.orderHintMismatch])
    }

    @Test func renewalsAndRefundsFollowTheOwnership() async throws {
        let first = Records.verified(Records.transaction("10", type: .autoRenewableSubscription), userId: "u-1")
        #expect(self.matched(try await self.rules().match(first, now: Self.now))?.matchedBy == .user)

        let renewal = Records.verified(
            Records.transaction("11", original: "10", type: .autoRenewableSubscription), notification: .didRenew)
        let matched = try #require(self.matched(try await self.rules().match(renewal, now: Self.now)))
        #expect(matched.userId == "u-1")
        #expect(matched.matchedBy == .ownership)
    }

    // MARK: Ownership

    @Test func receiptReplayedByAnotherUserIsAnOwnershipConflict() async throws {
        let original = Records.verified(Records.transaction(), userId: "u-1", eventId: "e-1")
        #expect(self.matched(try await self.rules().match(original, now: Self.now)) != nil)

        let replay = Records.verified(Records.transaction(), userId: "u-2", eventId: "e-2")
        guard case .reject(let refusal) = try await self.rules().match(replay, now: Self.now) else {
            Issue.record("replay was not refused")
            return
        }
        #expect(refusal.reason == .ownershipConflict)
        #expect(await self.ownership.owner(originalTransactionId: "2000000000000001") == "u-1")

        // The owner sending it again is fine.
        let again = Records.verified(Records.transaction(), userId: "u-1", eventId: "e-3")
        #expect(self.matched(try await self.rules().match(again, now: Self.now))?.matchedBy == .ownership)
    }

    /// Decision D11: a purchase whose signed token names an order that has not arrived waits
    /// for it during the order grace, is released the moment the order arrives, and otherwise
    /// falls back to the publisher's user with a warning.
    @Test func aPurchaseWaitsBrieflyForTheOrderItsTokenNames() async throws {
        let rules = self.rules(MatchConfiguration(orderGrace: .seconds(30)))
        let early = Records.verified(Records.transaction(token: Self.token), userId: "u-1")
        #expect(
            try await rules.match(early, now: Self.now)
                == .wait(since: Self.now, deadline: Self.now.advanced(by: .seconds(30))))

        guard
            case .indexed(let released) = try await rules.acceptOrder(
                OrderEvent(
                    orderId: "o-1", userId: "u-1", productId: "gems_100", bundleId: TestApple.bundleId,
                    appAccountToken: Self.token)
            )
        else {
            Issue.record("order not indexed")
            return
        }
        #expect(released.map(\.recordKey) == [early.recordKey])
        let matched = try #require(
            self.matched(try await rules.match(released[0], now: Self.now.advanced(by: .seconds(2)))))
        #expect(matched.matchedBy == .appAccountToken)
        #expect(matched.orderId == "o-1")
    }

    @Test func afterTheOrderGraceThePublishersUserIsMatchedWithAWarning() async throws {
        let rules = self.rules(MatchConfiguration(orderGrace: .seconds(30)))
        let purchase = Records.verified(Records.transaction(token: Self.token), userId: "u-1")
        guard case .wait = try await rules.match(purchase, now: Self.now) else {
            Issue.record("did not wait for the order")
            return
        }
        let late = try #require(self.matched(try await rules.match(purchase, now: Self.now.advanced(by: .seconds(31)))))
        #expect(late.matchedBy == .user)
        #expect(late.userId == "u-1")
        #expect(late.warnings == [.orderNeverArrived])
    }

    /// A notification of the purchase (no hints) matched first binds it to its order's user;
    /// the backend's own event of it, whose userId hint names someone else, then still matches
    /// through Apple's token, with a warning: the hint does not turn a signed match into a
    /// conflict (D20). Without the token, the same hint is a replay and refused.
    @Test func aBoundPurchaseStillMatchesItsSignedTokenWhenTheHintDisagrees() async throws {
        try await self.order(userId: "u-order")
        let notification = Records.verified(Records.transaction(token: Self.token), notification: .oneTimeCharge)
        #expect(self.matched(try await self.rules().match(notification, now: Self.now))?.userId == "u-order")

        let event = Records.verified(Records.transaction(token: Self.token), userId: "u-backend", eventId: "e-late")
        let matched = try #require(self.matched(try await self.rules().match(event, now: Self.now)))
        #expect(matched.userId == "u-order")
        #expect(matched.matchedBy == .appAccountToken)
        #expect(matched.warnings == [.userHintMismatch])

        let unsigned = Records.verified(Records.transaction(), userId: "u-backend", eventId: "e-replay")
        guard case .reject(let refusal) = try await self.rules().match(unsigned, now: Self.now) else {
            Issue.record("a hint alone naming another user was not refused")
            return
        }
        #expect(refusal.reason == .ownershipConflict)
    }

    @Test func anOrderForAnotherUserCannotTakeABoundPurchase() async throws {
        let first = Records.verified(Records.transaction(token: Self.token), userId: "u-1")
        #expect(
            self.matched(try await self.rules(MatchConfiguration(orderGrace: .zero)).match(first, now: Self.now))?
                .userId == "u-1")
        try await self.order(userId: "u-2")
        let notification = Records.verified(Records.transaction(token: Self.token), notification: .oneTimeCharge)
        guard case .reject(let refusal) = try await self.rules().match(notification, now: Self.now) else {
            Issue.record("not refused")
            return
        }
        #expect(refusal.reason == .ownershipConflict)
    }

    @Test func sameTokenOnASecondTransactionStillMatchesWithAWarning() async throws {
        try await self.order()
        let first = Records.verified(Records.transaction("1", token: Self.token), userId: "u-order")
        #expect(self.matched(try await self.rules().match(first, now: Self.now))?.warnings == [])

        // A renewal of the same purchase claims nothing new.
        let renewal = Records.verified(
            Records.transaction("2", original: "1", token: Self.token), notification: .didRenew)
        #expect(self.matched(try await self.rules().match(renewal, now: Self.now))?.warnings == [])

        let second = Records.verified(Records.transaction("3", token: Self.token), userId: "u-order")
        let matched = try #require(self.matched(try await self.rules().match(second, now: Self.now)))
        #expect(matched.userId == "u-order")
        #expect(matched.orderId == "o-1")
        #expect(matched.warnings == [.orderAlreadyClaimed])
    }

    // MARK: Waiting

    @Test func noOrderOrUserWaitsThenGoesUnmatched() async throws {
        let rules = self.rules(MatchConfiguration(waitWindow: .seconds(3600)))
        let notification = Records.verified(Records.transaction(token: Self.token), notification: .oneTimeCharge)

        guard case .wait(let since, let deadline) = try await rules.match(notification, now: Self.now) else {
            Issue.record("did not wait")
            return
        }
        #expect(since == Self.now)
        #expect(deadline == Self.now.advanced(by: .seconds(3600)))

        // A retry half an hour later keeps the first-seen time.
        let later = Self.now.advanced(by: .seconds(1800))
        #expect(try await rules.match(notification, now: later) == .wait(since: Self.now, deadline: deadline))

        let expired = Self.now.advanced(by: .seconds(3600))
        guard case .unmatched(let unmatched) = try await rules.match(notification, now: expired) else {
            Issue.record("did not give up")
            return
        }
        #expect(unmatched.since == Self.now)
        #expect(unmatched.unmatchedAt == expired)
        #expect(unmatched.reason == .noOrderOrUser)
        #expect(unmatched.verified == notification)
        #expect(await self.waiting.count == 0)
    }

    @Test func orderArrivingLaterReleasesTheWaitingTransaction() async throws {
        let rules = self.rules()
        let notification = Records.verified(Records.transaction(token: Self.token), notification: .oneTimeCharge)
        guard case .wait = try await rules.match(notification, now: Self.now) else {
            Issue.record("did not wait")
            return
        }

        guard
            case .indexed(let released) = try await rules.acceptOrder(
                OrderEvent(
                    orderId: " o-1 ", userId: "u-order", productId: "gems_100", bundleId: TestApple.bundleId,
                    appAccountToken: Self.token.uppercased()
                ))
        else {
            Issue.record("order refused")
            return
        }
        #expect(released == [notification])
        // The order's delivery died before it published what it released: its next delivery
        // releases the transaction again (D70).
        #expect(
            try await rules.acceptOrder(
                OrderEvent(
                    orderId: "o-1", userId: "u-order", productId: "gems_100", bundleId: TestApple.bundleId,
                    appAccountToken: Self.token)) == .indexed(released: [notification]))

        let waited = try #require(released.first)
        let matched = try #require(self.matched(try await rules.match(waited, now: Self.now)))
        #expect(matched.matchedBy == .appAccountToken)
        #expect(matched.orderId == "o-1")
        #expect(await self.waiting.count == 0)

        // Matched, it is forgotten: a later copy of the order releases nothing.
        let repeated = OrderEvent(
            orderId: "o-1", userId: "u-order", productId: "gems_100", bundleId: TestApple.bundleId,
            appAccountToken: Self.token)
        #expect(try await rules.acceptOrder(repeated) == .indexed(released: []))
    }

    @Test func ordersAreValidated() async throws {
        let outcome = try await self.rules().acceptOrder(
            OrderEvent(orderId: "o", userId: " ", productId: "p", bundleId: "b"))
        #expect(outcome == .reject(Rejection(.malformedEvent, "")))
        let badToken = OrderEvent(orderId: "o", userId: "u", productId: "p", bundleId: "b", appAccountToken: "nope")
        guard case .reject(let refusal) = try await self.rules().acceptOrder(badToken) else {
            Issue.record("accepted a bad token")
            return
        }
        #expect(refusal.detail == "appAccountToken 'nope' is not a UUID")
    }

    @Test func keysIdentifyDeliveries() {
        let purchase = Records.verified(Records.transaction(), userId: "u", eventId: "e-1")
        let refund = Records.verified(Records.transaction(revocationDate: 1), notification: .refund, uuid: "n-9")
        #expect(purchase.recordKey == "2000000000000001|e:e-1")
        #expect(refund.recordKey == "2000000000000001|n:n-9")
    }
}
