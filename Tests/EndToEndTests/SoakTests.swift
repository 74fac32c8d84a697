import Foundation
import LocalStack
import Testing

extension EndToEndTests {
    /// The short soaks of `make test`: every fault on (the broker outage left out, D13), a few
    /// hundred purchases; and a backlog under a tight Apple budget. The full ones are `make soak`. Fails on any loss, double grant,
    /// hint-bound purchase, call before a Retry-After, death, unrejected bad input or offset
    /// short of its log end.
    @Suite(.serialized, .timeLimit(.minutes(8))) struct SoakTests {
        @Test func everyFaultLosesNothingAndGrantsNothingTwice() async throws {
            var soak = SoakConfiguration.everyFault(purchases: 500)
            soak.rate = 60
            soak.killWorkersEvery = .seconds(2)
            soak.brokerOutage = nil
            soak.drainTimeout = .seconds(240)
            var stack = LocalStackConfiguration()
            stack.pipelinePath = EndToEnd.repositoryRoot + "/pipelines/iap.yaml"
            stack.partitions = 8
            let report = try await SoakRunner(configuration: soak, stack: stack, logger: EndToEnd.logger).run()
            #expect(report.passed, "\(report.summary)")
            #expect(
                report.kills >= 2 && report.redisLosses == 1 && report.redisRestarts == 1,
                "the faults happened: \(report.summary)")
            #expect(
                report.stateLostRestarts >= 1,
                "workers noticed the lost state (those the killer had just restarted rebuilt on their own start)")
            #expect(report.badInputs > 0 && report.badInputsRejected == report.badInputs)
            #expect(report.grantedOnce == report.purchases)
        }

        /// Issue 18's run, short: a backlog of bare ids at once under a 20/s Apple budget while Apple
        /// answers every call with a fault (429s among them) for the first 10 s. Waiting for
        /// Apple is not failing (D36): every purchase granted once, nothing dead-lettered.
        @Test func aBacklogUnderATightBudgetAndApplesFaultsIsGrantedWhole() async throws {
            var soak = SoakConfiguration()
            soak.purchases = 100
            soak.backlog = 300
            soak.rate = 50
            soak.appleFaultRate = 1
            soak.appleFaultsFor = .seconds(10)
            soak.drainTimeout = .seconds(180)
            var stack = LocalStackConfiguration()
            stack.pipelinePath = EndToEnd.repositoryRoot + "/pipelines/iap.yaml"
            stack.partitions = 8
            stack.appleRateLimit = 20
            let report = try await SoakRunner(configuration: soak, stack: stack, logger: EndToEnd.logger).run()
            #expect(report.passed, "\(report.summary)")
            #expect(report.deadLettered == 0 && report.grantedOnce == report.purchases, "\(report.summary)")
            #expect(report.appleFaultsInjected["429", default: 0] > 0, "Apple answered 429: \(report.summary)")
        }
    }
}
