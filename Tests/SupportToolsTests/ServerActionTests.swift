import AppStore
import AppStoreModels
import Contracts
import Foundation
import Kafka
import LocalStack
import Pipeline
import Purchases
import Redis
import SupportTools
import Synchronization
import TestSupport
import Testing
import Topology
import WorkerCommon

extension SupportToolsTests {
    /// `iap support finish|app-account-token|app-transaction|extend|extend-status` against the
    /// simulated App Store, with verify's settings and the stack's shared Apple gate.
    @Suite struct ServerActions {
        @Test func eachActionChangesWhatAppleAnswersAfterwards() async throws {
            try await SupportStack.with(workers: [], gateway: false) { stack, settings in
                let simulator = SimulatorClient(baseURL: stack.endpoints.simulator)
                let bundleId = stack.endpoints.bundleId
                let redis = try settings.redisClient(logger: SupportStack.logger)
                defer { Task { await redis.shutdown() } }
                let waits = Mutex<[Duration]>([])
                let actions = try settings.serverActions(redis: redis, logger: SupportStack.logger) { delay in
                    waits.withLock { $0.append(delay) }
                }

                let gems = try await simulator.purchase(productId: "gems_100", type: "Consumable", bundleId: bundleId)
                let finished = try await actions.finish(transactionId: gems.transactionId)
                #expect(finished.environment == .production)
                #expect(try await simulator.isFinished(transactionId: gems.transactionId))

                let subscription = try await simulator.purchase(
                    productId: "vip_monthly", type: "Auto-Renewable Subscription", bundleId: bundleId)
                let token = UUID()
                _ = try await actions.setAppAccountToken(
                    originalTransactionId: subscription.originalTransactionId, token: token)
                let renewal = try await simulator.renew(originalTransactionId: subscription.originalTransactionId)
                let renewed = await actions.checker.transaction(renewal.signedTransaction)
                #expect(renewed.transaction?.appAccountToken == token.uuidString.lowercased())

                let app = try await actions.appTransaction(anyTransactionId: gems.transactionId)
                #expect("\(app.verification)".contains("verified"), "\(app.verification)")
                #expect(app.appTransaction?.bundleId == bundleId)

                let before = try #require(renewed.transaction?.expiresDate)
                let extended = try await actions.extend(
                    originalTransactionId: subscription.originalTransactionId,
                    ExtendRenewalDateRequest(
                        extendByDays: 2, extendReasonCode: .serviceIssueOrOutage, requestIdentifier: "r-1"))
                #expect(extended.effectiveDate?.millisecondsSince1970 == before.millisecondsSince1970 + 2 * 86_400_000)

                // Apple's 1 a second for the mass extension: the second call waits for its slot.
                _ = try await actions.extendAll(
                    MassExtendRenewalDateRequest(
                        productId: "vip_monthly", extendByDays: 1, extendReasonCode: .customerSatisfaction,
                        requestIdentifier: "all-1"))
                let status = try await actions.extensionStatus(requestIdentifier: "all-1", productId: "vip_monthly")
                #expect(status.complete == true && status.succeededCount == 1)
                #expect(waits.withLock { $0.contains { $0 > .milliseconds(500) } }, "\(waits.withLock { $0 })")

                do {
                    _ = try await actions.finish(transactionId: "999")
                    Issue.record("an unknown transaction was finished")
                } catch let error as SupportError {
                    #expect(error.code == .appleError && error.detail.contains("4040010"), "\(error)")
                }
            }
        }

        /// An extension the operator asks for reaches the customer: Apple's RENEWAL_EXTENDED comes
        /// through the gateway and grant moves the purchase's end to Apple's new date.
        @Test func anExtensionReachesTheEntitlement() async throws {
            try await SupportStack.with { stack, settings in
                let simulator = SimulatorClient(baseURL: stack.endpoints.simulator)
                let purchase = try await simulator.purchase(
                    productId: "vip_monthly", type: "Auto-Renewable Subscription", bundleId: stack.endpoints.bundleId)
                let producer = try KafkaProducer(
                    configuration: KafkaProducerConfiguration(bootstrapServers: stack.endpoints.kafka),
                    logger: SupportStack.logger)
                let event = PurchaseEvent(
                    eventId: "ext-1", bundleId: stack.endpoints.bundleId, userId: "ext-user",
                    payload: .signedTransaction(purchase.signedTransaction), source: .storeKit2)
                _ = try await producer.send([try ContractTopics(pipeline: settings.pipeline).record(event)])
                await producer.close()
                let redis = try settings.redisClient(logger: SupportStack.logger)
                defer { Task { await redis.shutdown() } }
                try await SupportStack.withGrants(settings) { grants in
                    let granted = try await eventually("the subscription granted", timeout: .seconds(60)) {
                        try await grants.state(originalTransactionId: purchase.originalTransactionId)
                    }
                    let actions = try settings.serverActions(redis: redis, logger: SupportStack.logger)
                    let extended = try await actions.extend(
                        originalTransactionId: purchase.originalTransactionId,
                        ExtendRenewalDateRequest(
                            extendByDays: 5, extendReasonCode: .serviceIssueOrOutage, requestIdentifier: "outage-7"))
                    let newEnd = try #require(extended.effectiveDate)
                    #expect(
                        newEnd.millisecondsSince1970 - (granted.expiresDate?.millisecondsSince1970 ?? 0) == 5
                            * 86_400_000)
                    _ = try await eventually("grant moved the end to Apple's new date", timeout: .seconds(60)) {
                        try await grants.state(originalTransactionId: purchase.originalTransactionId)?.expiresDate
                            == newEnd ? true : nil
                    }
                }
            }
        }
    }
}
