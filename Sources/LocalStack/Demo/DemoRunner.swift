import Contracts
public import Customers
import Foundation
import Kafka
public import Logging
import Pipeline
import Redis
import Settings
import SupportTools
import Topology

/// Runs demo scenarios against a running stack and reports whether every one reached its
/// expected end states. Used by `iap-dev demo` and the end-to-end tests.
public struct DemoRunner: Sendable {
    public struct ScenarioResult: Codable, Sendable {
        public var name: String
        public var passed: Bool
        public var expectations: [String]
        public var problems: [String]
    }

    public struct StageCounts: Codable, Sendable {
        public var stage: String
        /// `iap_stage_messages_total` by outcome, summed over the stage's processes.
        public var outcomes: [String: Int]
        /// Consumer-group lag summed over the stage's input partitions.
        public var lag: Int64
    }

    public struct Report: Codable, Sendable {
        public var passed: Bool
        public var seconds: Double
        public var scenarios: [ScenarioResult]
        public var entitlements: Int
        public var rejected: [String: Int]
        public var unmatched: Int
        public var stages: [StageCounts]
        /// One customer as the read API answers for them at the end (when the stack runs
        /// `iap-api`): what a backend would show that user.
        public var customer: CustomerView?
        /// The status of every purchase event the scenarios published, as the read API answers
        /// at the end (D51); empty when the stack runs no `iap-api`.
        public var statuses: [PurchaseStatus] = []
        /// The published events the API has no terminal status for (should be none).
        public var withoutEnd: [String] = []
        /// Granted and renewed transactions the simulator says were finished by `iap-confirm`
        /// (D55), of how many; nil when the stack runs no `iap-confirm`.
        public var finished: Finished?
    }

    /// Finish Transaction's count at the end of the demo.
    public struct Finished: Codable, Sendable {
        public var finished: Int
        public var owed: Int
        /// Granted or renewed transactions Apple was not told were finished (should be none).
        public var unfinished: [String]
    }

    private let stack: LocalStack
    private let logger: Logger

    public init(stack: LocalStack, logger: Logger) {
        self.stack = stack
        self.logger = logger
    }

    /// Publishes every scenario, then waits (up to `timeout`) until each expectation is met or
    /// has failed, calling `progress` about once a second.
    public func run(
        _ scenarios: [DemoScenario] = DemoScenario.catalogue, timeout: Duration = .seconds(180),
        progress: @escaping @Sendable (_ met: Int, _ total: Int, _ outcomes: Outcomes) -> Void = { _, _, _ in }
    ) async throws -> Report {
        let clock = ContinuousClock()
        let started = clock.now
        let resultTopics = try ResultTopics(pipeline: stack.pipeline)
        let observer = try TopicObserver(bootstrap: stack.endpoints.kafka, topics: resultTopics.all, logger: logger)
        var producerConfiguration = KafkaProducerConfiguration(bootstrapServers: stack.endpoints.kafka)
        producerConfiguration.linger = .milliseconds(1)
        let producer = try KafkaProducer(configuration: producerConfiguration, logger: logger)
        // What an operator's `iap support` reads: the stack's own settings.
        let support = try SupportSettings(
            reader: SettingsReader(environment: stack.baseEnvironment), bundleId: stack.endpoints.bundleId)
        let redis = try support.redisClient(logger: logger)
        let context = DemoContext(
            simulator: SimulatorClient(baseURL: stack.endpoints.simulator), bundleId: stack.endpoints.bundleId,
            secondApp: stack.endpoints.apps.dropFirst().first,
            apple: try support.serverActions(redis: redis, logger: logger),
            runId: String(UUID().uuidString.prefix(6)).lowercased(),
            topics: try ContractTopics(pipeline: stack.pipeline), producer: producer,
            observer: observer,
            resultTopics: resultTopics, publishesNotifications: stack.endpoints.gateway == nil
        )
        defer { _ = producer }

        // Scenarios run concurrently, as independent customers would.
        let published: [(DemoScenario, Result<[Expectation], any Error>)] = await withTaskGroup(
            of: (Int, Result<[Expectation], any Error>).self
        ) { group in
            for (index, scenario) in scenarios.enumerated() {
                group.addTask {
                    do { return (index, .success(try await scenario.run(context))) } catch {
                        return (index, .failure(error))
                    }
                }
            }
            var results: [(Int, Result<[Expectation], any Error>)] = []
            for await result in group { results.append(result) }
            return results.sorted { $0.0 < $1.0 }.map { (scenarios[$0.0], $0.1) }
        }

        let total = published.reduce(0) { $0 + ((try? $1.1.get())?.count ?? 1) }
        var quietSince: ContinuousClock.Instant?
        var results: [ScenarioResult] = []
        while true {
            let outcomes = Outcomes(records: observer.records, topics: resultTopics)
            // "Nothing granted" can only be judged once everything else is done and a few
            // seconds passed without anything new.
            let settled = quietSince.map { clock.now - $0 > .seconds(3) } ?? false
            results = published.map { scenario, result in Self.evaluate(scenario, result, outcomes, settled: settled) }
            let met = published.enumerated().reduce(0) { count, item in
                count
                    + ((try? item.element.1.get())?.filter { $0.check(outcomes, settled: settled) == .met }.count ?? 0)
            }
            progress(met, total, outcomes)
            let open = published.flatMap { (try? $0.1.get()) ?? [] }.filter {
                if case .nothingFor = $0 { return false }
                return $0.check(outcomes, settled: false) == .pending
            }
            if open.isEmpty && quietSince == nil { quietSince = clock.now }
            if results.allSatisfy({ $0.passed || !$0.problems.isEmpty }) && settled { break }
            if clock.now - started > timeout { break }
            try await Task.sleep(for: .seconds(1))
        }

        let stages = await drainedStageCounts(within: .seconds(30))
        let outcomes = Outcomes(records: observer.records, topics: resultTopics)
        let customer = try await Self.readOneCustomer(stack, granted: outcomes)
        let (statuses, withoutEnd) = try await Self.readStatuses(stack, of: context.published.all)
        let finished = try await Self.finished(stack, context.simulator, granted: outcomes)
        await observer.close()
        await producer.close()
        await redis.shutdown()
        return Report(
            passed: results.allSatisfy(\.passed) && withoutEnd.isEmpty && (finished?.unfinished.isEmpty ?? true),
            seconds: (clock.now - started) / .seconds(1),
            scenarios: results, entitlements: outcomes.distinctEntitlements.count,
            rejected: Dictionary(grouping: outcomes.rejected, by: \.reason).mapValues(\.count),
            unmatched: outcomes.unmatched.count,
            stages: stages, customer: customer, statuses: statuses, withoutEnd: withoutEnd, finished: finished
        )
    }

    /// Whether the simulator saw Finish Transaction for every transaction the demo granted or
    /// renewed, once the stages drained: the confirm stage's work, as Apple would see it.
    private static func finished(_ stack: LocalStack, _ simulator: SimulatorClient, granted outcomes: Outcomes)
        async throws -> Finished?
    {
        guard stack.configuration.workers.contains(StageName.confirm.executable) else { return nil }
        // The app's own purchase (`app-<appTransactionId>`, D58) is no transaction Apple finishes.
        let owed = Set(
            outcomes.distinctEntitlements.filter {
                ($0.action == "grant" || $0.action == "renew")
                    && !$0.transactionId.hasPrefix(TransactionDetails.appPurchaseIdPrefix)
            }.map(\.transactionId))
        var unfinished: [String] = []
        for transactionId in owed.sorted() where try await !simulator.isFinished(transactionId: transactionId) {
            unfinished.append(transactionId)
        }
        return Finished(finished: owed.count - unfinished.count, owed: owed.count, unfinished: unfinished)
    }

    /// The read API's answer for the user with the most grants, once the customer state holds
    /// every one of them: the demo ends the way a backend answers its client.
    private static func readOneCustomer(_ stack: LocalStack, granted outcomes: Outcomes) async throws -> CustomerView? {
        guard let api = ReadAPIClient(stack.endpoints) else { return nil }
        let grants = Dictionary(grouping: outcomes.distinctEntitlements.filter { $0.action != "revoke" }, by: \.userId)
        guard let (user, _) = grants.max(by: { ($0.value.count, $1.key) < ($1.value.count, $0.key) }) else {
            return nil
        }
        return try await api.customer(bundleId: stack.endpoints.bundleId, userId: user)
    }

    /// Each published event's status through the read API, waiting a little for those not at
    /// their end yet: what each publisher would have been told. An app the stack does not
    /// serve has no API key to ask with (its events are `unknown_app` on `iap.rejected`).
    private static func readStatuses(_ stack: LocalStack, of events: [(bundleId: String, eventId: String)])
        async throws -> ([PurchaseStatus], [String])
    {
        guard let api = ReadAPIClient(stack.endpoints) else { return ([], []) }
        var statuses: [PurchaseStatus] = []
        var withoutEnd: [String] = []
        for (bundleId, eventId) in events where stack.endpoints.apps.contains(bundleId) {
            let status = try await api.purchase(bundleId: bundleId, eventId: eventId, wait: 10)
            if let status { statuses.append(status) }
            if status?.terminal != true { withoutEnd.append(eventId) }
        }
        return (statuses, withoutEnd)
    }

    private static func evaluate(
        _ scenario: DemoScenario, _ result: Result<[Expectation], any Error>, _ outcomes: Outcomes, settled: Bool
    ) -> ScenarioResult {
        switch result {
        case .failure(let error):
            return ScenarioResult(
                name: scenario.name, passed: false, expectations: [], problems: ["could not publish: \(error)"])
        case .success(let expectations):
            var problems: [String] = []
            var pending: [String] = []
            for expectation in expectations {
                switch expectation.check(outcomes, settled: settled) {
                case .met: continue
                case .pending: pending.append("still waiting for \(expectation)")
                case .failed(let why): problems.append(why)
                }
            }
            return ScenarioResult(
                name: scenario.name, passed: problems.isEmpty && pending.isEmpty,
                expectations: expectations.map(\.description),
                problems: problems.isEmpty ? [] : problems + pending
            )
        }
    }

    /// Stage counts once every stage's lag is zero, or the last reading after `limit`.
    ///
    /// The end states can all be reached while a stage still has records to read that change
    /// nothing visible: a duplicate coming back from the retry store after its twin finished,
    /// or offsets not yet auto-committed. Lag is the pipeline's own "done" signal, so wait for it.
    private func drainedStageCounts(within limit: Duration) async -> [StageCounts] {
        guard let admin = try? KafkaAdmin(bootstrapServers: stack.endpoints.kafka, logger: logger) else { return [] }
        // Only the stages this stack runs (--workers may leave some out).
        let stages = stack.runningStages
        let clock = ContinuousClock()
        let deadline = clock.now + limit
        while true {
            var counts: [StageCounts] = []
            for stage in stages {
                let lag =
                    (try? await admin.consumerLag(group: stage.consumerGroup, topics: stage.consumedTopics))?.reduce(0)
                {
                    $0 + max($1.lag, 0)
                } ?? -1
                counts.append(StageCounts(stage: stage.name, outcomes: [:], lag: lag))
            }
            if counts.allSatisfy({ $0.lag == 0 }) || clock.now >= deadline {
                // Counters last, so they include whatever the wait let through.
                for index in counts.indices {
                    for (name, url) in stack.endpoints.ops where name.hasPrefix("iap-\(counts[index].stage)") {
                        for (outcome, value) in await OpsScrape.stageOutcomes(url + "/metrics") {
                            counts[index].outcomes[outcome, default: 0] += value
                        }
                    }
                }
                return counts
            }
            try? await Task.sleep(for: .milliseconds(500))
        }
    }
}
