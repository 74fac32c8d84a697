import AppStoreModels
import Contracts
import Foundation
import Kafka
import LocalStack
import Purchases
import Reconcile
import Redis
import Testing
import WorkerCommon

/// Reconcile against the simulator's notification history and a real redis-server (D32).
@Suite(.serialized, .timeLimit(.minutes(3))) struct ReconcilerTests {
    /// 45 notifications are three pages of Apple's 20.
    static let notifications = 45

    @Test func publishesEveryNotificationOnceAsReconcileAndCheckpoints() async throws {
        try await ReconcileHarness.run { harness in
            let made = try await harness.purchases(Self.notifications)
            let publisher = RecordingPublisher()
            let report = try await harness.reconciler(publisher: publisher).run()

            #expect(report.scopes.map(\.paged) == [true])
            #expect(report.pages == 3)
            #expect(report.notificationsPublished == Self.notifications)
            #expect(Set(publisher.payloads) == Set(made.compactMap(\.signedPayload)))
            #expect(publisher.payloads.count == Self.notifications)
            for record in publisher.records {
                let event = try EventDecoder.decode(NotificationEvent.self, from: record.value)
                #expect(event.source == .reconcile)
                #expect(record.topic == "iap.notifications")
                #expect(record.key.map { String(decoding: $0, as: UTF8.self) } != nil)
            }
            let checkpoint = try #require(
                try await RedisReconcileState(client: harness.redis).checkpoint("\(ReconcileHarness.bundleId):Sandbox"))
            #expect(checkpoint.window == nil)
            #expect(checkpoint.nextStart.millisecondsSince1970 == harness.calls.historyPages.last?.end)

            // A second run finds nothing new: it pages only what was signed since.
            let again = RecordingPublisher()
            let second = try await harness.reconciler(publisher: again).run()
            #expect(second.notificationsPublished == 0)
            #expect(again.records.isEmpty)
            let pages = harness.calls.historyPages
            #expect(pages.last?.start == pages[2].end, "the second run's window starts where the first ended")
        }
    }

    @Test func aRunStoppedBetweenPagesResumesAtTheNextPage() async throws {
        try await ReconcileHarness.run { harness in
            let made = try await harness.purchases(Self.notifications)
            // Killed after the first page was published and checkpointed.
            let first = RecordingPublisher(failAfter: 1)
            await #expect(throws: RecordingPublisher.Stopped.self) {
                _ = try await harness.reconciler(publisher: first).run()
            }
            let stopped = try #require(
                try await RedisReconcileState(client: harness.redis).checkpoint("\(ReconcileHarness.bundleId):Sandbox"))
            let window = try #require(stopped.window, "the checkpoint keeps the window it stopped in")
            #expect(window.pagesRead == 1)
            #expect(window.paginationToken != nil)

            let second = RecordingPublisher()
            let report = try await harness.reconciler(publisher: second).run()
            #expect(report.pages == 2)

            let pages = harness.calls.historyPages
            // Run 1: page 1, page 2 (not published). Run 2: page 2 again from the token, page 3.
            #expect(pages.count == 4)
            #expect(pages[0].token == nil)
            #expect(pages[2].token == window.paginationToken, "the restart asks for the page after the last published")
            #expect(Set(pages.map { "\($0.start)-\($0.end)" }).count == 1, "one window, never restarted")
            let published = first.payloads + second.payloads
            #expect(published.count == Self.notifications, "nothing published twice")
            #expect(Set(published) == Set(made.compactMap(\.signedPayload)), "nothing missed")
        }
    }

    @Test func aScopeLeasedByAnotherReplicaIsLeftAlone() async throws {
        try await ReconcileHarness.run { harness in
            _ = try await harness.purchases(3)
            let state = RedisReconcileState(client: harness.redis)
            let other = try #require(try await state.acquire("\(ReconcileHarness.bundleId):Sandbox", ttl: .seconds(60)))
            let publisher = RecordingPublisher()
            var options = Reconciler.Options()
            options.sweep = false
            let report = try await harness.reconciler(publisher: publisher, options: options).run()
            #expect(report.scopes.map(\.paged) == [false])
            #expect(publisher.records.isEmpty)
            #expect(harness.calls.historyPages.isEmpty)
            // The holder's checkpoint writes still go through; a stranger's do not.
            let checkpoint = ReconcileCheckpoint(nextStart: Timestamp(Date()), updatedAt: Timestamp(Date()))
            #expect(try await state.save(checkpoint, holding: other))
            let stranger = ReconcileLease(scope: other.scope, token: LockToken(value: "stranger"), ttl: .seconds(60))
            #expect(try await state.save(checkpoint, holding: stranger) == false)
        }
    }

    @Test func aCheckpointOlderThanAppleKeepsStartsAtTheHistoryLimit() async throws {
        try await ReconcileHarness.run { harness in
            let now = Timestamp(Date())
            let state = RedisReconcileState(client: harness.redis)
            let scope = "\(ReconcileHarness.bundleId):Sandbox"
            let lease = try #require(try await state.acquire(scope, ttl: .seconds(60)))
            let ancient = now.advanced(by: .seconds(-200 * 86_400))
            #expect(try await state.save(ReconcileCheckpoint(nextStart: ancient, updatedAt: ancient), holding: lease))
            try await state.release(lease)

            _ = try await harness.reconciler(publisher: RecordingPublisher(), now: { now }).run()
            let first = try #require(harness.calls.historyPages.first)
            let limit = now.advanced(by: .seconds(-180 * 86_400)).millisecondsSince1970
            #expect(first.start > limit, "Apple refuses a start beyond 180 days")
            #expect(first.start < limit + 3_600_000)
        }
    }

    @Test func onlyFailuresAsksAppleForFailedDeliveriesOnly() async throws {
        try await ReconcileHarness.run { harness in
            _ = try await harness.purchases(2)
            var options = Reconciler.Options()
            options.onlyFailures = true
            options.sweep = false
            let report = try await harness.reconciler(publisher: RecordingPublisher(), options: options).run()
            // The simulator has no notify URL: nothing was delivered, so both are failures.
            #expect(report.notificationsPublished == 2)
            let body = try #require(harness.calls.calls.first { $0.url.contains("/notifications/history") }?.body)
            #expect(body["onlyFailures"] as? Bool == true)
        }
    }

    @Test func theSweepPublishesAppleStatusOfSubscriptionsActivePastTheirExpiry() async throws {
        try await ReconcileHarness.run { harness in
            let subscription = try await harness.simulator.purchase(
                productId: "pro.monthly", type: "Auto-Renewable Subscription", bundleId: ReconcileHarness.bundleId,
                environment: "Sandbox", expiresInSeconds: 1)
            let store = RedisEntitlementStateStore(client: harness.redis)
            let expires = Timestamp(Date()).advanced(by: .seconds(-1))
            try await store.save(
                EntitlementState(
                    originalTransactionId: subscription.originalTransactionId, userId: "user-7", orderId: nil,
                    productId: "pro.monthly", productType: .autoRenewableSubscription,
                    transactionId: subscription.transactionId, purchaseDate: nil, expiresDate: expires, status: .active,
                    signedDate: nil))
            #expect(
                try await RedisSubscriptionExpiryIndex(client: harness.redis).due(
                    before: Timestamp(Date()).millisecondsSince1970, limit: 10) == [subscription.originalTransactionId])

            var options = Reconciler.Options()
            options.lookback = .seconds(1)
            let publisher = RecordingPublisher()
            let report = try await harness.reconciler(publisher: publisher, options: options).run()
            #expect(report.swept)
            #expect(report.subscriptionsSwept == 1)
            #expect(report.subscriptionsPublished == 1)
            let record = try #require(publisher.records.last { $0.topic == "iap.purchases" })
            let event = try EventDecoder.decode(PurchaseEvent.self, from: record.value)
            #expect(event.source == .reconcile)
            #expect(event.userId == "user-7")
            #expect(event.environment == .sandbox)
            #expect(event.signedRenewalInfo != nil)
            guard case .signedTransaction(let signed) = event.payload else {
                Issue.record("expected a signed transaction, got \(event.payload)")
                return
            }
            let transaction = try UnverifiedJWS(signed).decodePayload(as: JWSTransactionDecodedPayload.self)
            #expect(transaction.originalTransactionId == subscription.originalTransactionId)

            // An expired state leaves the index when grant saves it.
            var expired = try #require(try await store.state(originalTransactionId: subscription.originalTransactionId))
            expired.status = .expired
            try await store.save(expired)
            #expect(try await RedisSubscriptionExpiryIndex(client: harness.redis).sample(10).isEmpty)
        }
    }
    /// A grace period has access until its end: past that end with no notification, the sweep
    /// asks Apple about it like an active subscription past its expiry.
    @Test func theSweepAsksAboutAGracePeriodPastItsEnd() async throws {
        try await ReconcileHarness.run { harness in
            let subscription = try await harness.simulator.purchase(
                productId: "pro.monthly", type: "Auto-Renewable Subscription", bundleId: ReconcileHarness.bundleId,
                environment: "Sandbox", expiresInSeconds: 1)
            let store = RedisEntitlementStateStore(client: harness.redis)
            let now = Timestamp(Date())
            try await store.save(
                EntitlementState(
                    originalTransactionId: subscription.originalTransactionId, userId: "user-8", orderId: nil,
                    productId: "pro.monthly", productType: .autoRenewableSubscription,
                    transactionId: subscription.transactionId, purchaseDate: nil,
                    expiresDate: now.advanced(by: .seconds(-60)), status: .gracePeriod, signedDate: nil,
                    gracePeriodExpiresDate: now.advanced(by: .seconds(-1))))
            var options = Reconciler.Options()
            options.lookback = .seconds(1)
            let publisher = RecordingPublisher()
            let report = try await harness.reconciler(publisher: publisher, options: options).run()
            #expect(report.subscriptionsSwept == 1)
            #expect(report.subscriptionsPublished == 1)
            let record = try #require(publisher.records.last { $0.topic == "iap.purchases" })
            #expect(try EventDecoder.decode(PurchaseEvent.self, from: record.value).userId == "user-8")
        }
    }
}
