import Contracts
import Customers
import Foundation
import Kafka
import LocalStack
import PipelineHarness
import Redis
import Testing

/// The audit trail checked on the demo (D51): every purchase event a scenario published has a
/// terminal status its publisher can read through the API, with the reasons the scenarios
/// provoke; every transaction granted has a history with each stage's decision; and after Redis
/// lost everything, the statuses and customers come back from Kafka as they were.
enum AuditCheck {
    static func expectEveryEventEndedAndEveryTransactionHasItsHistory(_ report: DemoRunner.Report, _ stack: LocalStack)
        async throws
    {
        #expect(report.withoutEnd.isEmpty, "published events without a terminal status: \(report.withoutEnd)")
        #expect(!report.statuses.isEmpty, "the demo read no status")
        let byStatus = Dictionary(grouping: report.statuses, by: \.status)
        #expect(byStatus[.granted, default: []].count >= 10)
        // The replay by another user and the forged JWS: refused, with their reason codes.
        let reasons = Set(byStatus[.rejected, default: []].compactMap(\.reason))
        #expect(reasons.isSuperset(of: ["ownership_conflict", "invalid_signature"]), "\(reasons)")
        // The hint that lost: no effect, and the publisher is told whose purchase it is.
        let lost = byStatus[.noEffect, default: []].filter {
            $0.transactions.contains { $0.warnings?.contains(.userHintMismatch) == true }
        }
        #expect(lost.count == 1, "\(byStatus[.noEffect, default: []])")
        #expect(lost.first?.detail?.contains("belongs to") == true, "\(String(describing: lost.first))")
        // StoreKit 1 and 2 reporting one purchase: one event granted it, the others changed nothing.
        #expect(byStatus[.noEffect, default: []].count >= 3)

        let api = try #require(ReadAPIClient(stack.endpoints))
        let written = try await WrittenRecords.read(stack, topics: ["iap.entitlements"])
        // Each transaction under its own app: the demo's stack serves two (D57).
        let transactions = Set(
            try (written["iap.entitlements"] ?? []).map {
                let change = try EventDecoder.decode(EntitlementEvent.self, from: $0.value)
                return "\(change.bundleId) \(change.transactionId)"
            })
        #expect(!transactions.isEmpty)
        #expect(Set(transactions.map { $0.split(separator: " ")[0] }).count == 2, "both apps granted")
        for key in transactions.sorted() {
            let parts = key.split(separator: " ").map(String.init)
            let (bundleId, transactionId) = (parts[0], parts[1])
            let history = try await api.history(bundleId: bundleId, transactionId: transactionId)
            let stages = Set(history?.entries.map(\.stage) ?? [])
            #expect(
                stages.isSuperset(of: ["intake", "verify", "match", "grant"]),
                "transaction \(transactionId): history has \(stages.sorted())")
        }
    }

    /// Wipes the stack's Redis and waits until the API answers every status and customer as
    /// before: the workers notice the loss and stop, are started again (as Kubernetes or compose
    /// would) and rebuild from `iap.audit` and `iap.customers` before taking work.
    static func expectStatusesAndCustomersComeBackAfterRedisLostEverything(
        _ report: DemoRunner.Report, _ stack: LocalStack
    ) async throws {
        let api = try #require(ReadAPIClient(stack.endpoints))
        let bundleId = stack.endpoints.bundleId
        let customer = try #require(report.customer)
        let before = try await api.customer(bundleId: bundleId, userId: customer.userId)
        let client = RedisClient(
            configuration: try RedisConfiguration(url: stack.endpoints.redis), logger: PipelineHarness.logger)
        _ = try await client.send("FLUSHALL")
        await client.shutdown()

        let deadline = ContinuousClock.now + .seconds(120)
        var missing = report.statuses.map(\.eventId)
        while !missing.isEmpty, ContinuousClock.now < deadline {
            try await Task.sleep(for: .seconds(1))
            // A worker that found its state lost stops; its supervisor starts it again, and the
            // start rebuilds before taking work. In process, the test is the supervisor.
            for member in stack.exited { try await stack.restart(member) }
            var still: [String] = []
            for eventId in missing {
                let before = report.statuses.first { $0.eventId == eventId }
                let status = try? await api.purchase(bundleId: before?.bundleId ?? bundleId, eventId: eventId)
                if status != before { still.append(eventId) }
            }
            missing = still
        }
        #expect(missing.isEmpty, "statuses not back as they were after the wipe: \(missing)")
        let after = try await api.customer(bundleId: bundleId, userId: customer.userId)
        #expect(after.purchases == before.purchases && after.credits == before.credits)
        #expect(after.lastEventId == before.lastEventId)
    }
}
