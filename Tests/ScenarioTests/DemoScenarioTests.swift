import Customers
import LocalStack
import PipelineHarness
import Testing

extension ScenarioTests {
    /// Every scenario of `iap-dev demo`, with all five workers, reconcile and the gateway in process,
    /// asserted on `iap.entitlements`, `iap.rejected` and `iap.unmatched`; every record the run
    /// left on the pipeline's topics against the topic's JSON Schema; and each customer's latest
    /// record on `iap.customers` against the fold of that customer's changes; every published
    /// event's status and every granted transaction's history through the API, and both back
    /// after Redis lost everything (D51).
    @Suite(.serialized, .timeLimit(.minutes(6))) struct DemoScenarioTests {
        @Test func everyScenarioReachesItsEndStateAndEachPurchaseIsGrantedOnce() async throws {
            // iap-reconcile too, as `iap-dev demo` runs it: one scenario's notification is lost.
            // And the demo's second app (D57).
            let withReconcile = { (configuration: inout LocalStackConfiguration) in
                configuration.reconcile = true
                configuration.otherApps = [DemoScenario.secondApp]
            }
            let (report, schemas) = try await PipelineHarness.withStack(.inProcess, withReconcile) { stack in
                let report = try await DemoRunner(stack: stack, logger: PipelineHarness.logger).run(
                    timeout: .seconds(240))
                // Every record the run wrote, against its topic's JSON Schema (docs/schemas).
                let schemas = try await WrittenRecords.checkAgainstSchemas(stack)
                try await CustomerStateCheck.expectEachCustomersRecordIsTheFoldOfTheirChanges(stack)
                try await AuditCheck.expectEveryEventEndedAndEveryTransactionHasItsHistory(report, stack)
                try await AuditCheck.expectStatusesAndCustomersComeBackAfterRedisLostEverything(report, stack)
                return (report, schemas)
            }
            // The scenarios write to every topic, and publish malformed events the schemas refuse.
            for (topic, count) in schemas.checked { #expect(count > 0, "no record on \(topic) was checked") }
            #expect(schemas.checked.count == 14)
            #expect(schemas.refused >= 2)
            for scenario in report.scenarios {
                #expect(scenario.passed, "\(scenario.name): \(scenario.problems)")
            }
            #expect(report.scenarios.count == DemoScenario.catalogue.count)
            // The demo ends by reading a customer through the read API.
            let customer = try #require(report.customer)
            #expect(!customer.entitlements.isEmpty || !customer.credits.isEmpty, "\(customer)")
            // The rejection reasons the scenarios provoke, each seen.
            for reason in [
                "invalid_signature", "ownership_conflict", "unsupported_schema", "malformed_event", "unknown_app",
            ] {
                #expect(report.rejected[reason, default: 0] >= 1, "no \(reason) rejection")
            }
            #expect(report.unmatched >= 1)
            // Every stage processed records and ended with nothing left to read.
            #expect(report.stages.map(\.stage) == ["intake", "verify", "match", "grant", "state", "confirm"])
            // The confirm stage finished every granted and renewed transaction at Apple (D55).
            let finished = try #require(report.finished)
            #expect(finished.owed > 0 && finished.unfinished.isEmpty, "\(finished)")
            for stage in report.stages {
                #expect(stage.lag == 0, "\(stage.stage) lag \(stage.lag)")
                #expect(stage.outcomes["produced", default: 0] > 0, "\(stage.stage) produced nothing")
            }
        }
    }
}
