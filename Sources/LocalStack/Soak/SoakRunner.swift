import AsyncHTTPClient
import Contracts
import Foundation
import Hosting
import Kafka
import LocalServices
public import Logging
import NIOCore
import NIOHTTP1
import Pipeline
import Processes
import Purchases
import Redis
import Settings
import Synchronization
import Topology

/// `iap-dev soak`: the embedded stack under load with faults on demand, judged by what reached the
/// topics (``SoakReport``). Faults come at fixed points of the publishing (a quarter in: Redis
/// restart; 40 %: broker outage; half: broker errors; 60 %: Redis loss), kills every
/// `killWorkersEvery` while publishing; Apple faults last until everything settled, as an
/// Apple that keeps failing a share of calls would.
public struct SoakRunner: Sendable {
    public let configuration: SoakConfiguration
    public let stackConfiguration: LocalStackConfiguration
    private let logger: Logger

    public init(configuration: SoakConfiguration, stack: LocalStackConfiguration, logger: Logger) {
        self.configuration = configuration
        var stack = stack
        // Ordered purchases wait for their order however long the faults delay it, so a
        // purchase bound by its hint is a fault of the pipeline, never of the soak's timing.
        stack.orderGrace = .seconds(600)
        stack.unmatchedWindow = .seconds(900)
        stack.redisAppendOnly = stack.redisAppendOnly || configuration.redisRestart
        stack.workerEnvironment[WorkerSettings.generationCheckInterval.name] = "1"
        stack.workerEnvironment[HostSettings.logLevel.name] =
            stack.workerEnvironment[HostSettings.logLevel.name] ?? "warning"
        self.stackConfiguration = stack
        self.logger = logger
    }

    /// Runs the soak; `progress` receives a line a second for a terminal.
    public func run(progress: @escaping @Sendable (String) -> Void = { _ in }) async throws -> SoakReport {
        let stack = try await LocalStack.start(stackConfiguration, logger: logger)
        do {
            let report = try await soak(stack, progress: progress)
            await stack.stop(keepingState: !report.passed)
            return report
        } catch {
            await stack.stop(keepingState: true)
            throw error
        }
    }

    private func soak(_ stack: LocalStack, progress: @escaping @Sendable (String) -> Void) async throws -> SoakReport {
        let simulator = SimulatorClient(baseURL: stack.endpoints.simulator)
        progress(
            "making \(configuration.purchases + configuration.backlog) purchases on the simulator"
                + (configuration.backlog > 0 ? " (\(configuration.backlog) of them a backlog of bare ids)…" : "…"))
        let results = try ResultTopics(pipeline: stack.pipeline)
        let workload = try await SoakWorkload.make(
            count: configuration.purchases, backlog: configuration.backlog, simulator: simulator,
            bundleId: stack.endpoints.bundleId, topics: try ContractTopics(pipeline: stack.pipeline))
        // The audit trail says where a purchase that never reached its grant stopped.
        let auditTopic = try? stack.pipeline.topic(.audit)
        let observer = try TopicObserver(
            bootstrap: stack.endpoints.kafka,
            topics: [results.entitlements, results.rejected] + [auditTopic].compactMap(\.self),
            logger: logger)
        let producer = try KafkaProducer(
            configuration: KafkaProducerConfiguration(bootstrapServers: stack.endpoints.kafka), logger: logger)
        let events = SoakEvents()
        let supervisor = Task { await supervise(stack, events: events) }
        defer { supervisor.cancel() }
        if configuration.appleFaultRate > 0 { try await setAppleFaults(stack, rate: configuration.appleFaultRate) }

        var report = SoakReport()
        report.purchases = workload.purchases.count
        report.backlog = configuration.backlog
        var random = SeededGenerator(seed: configuration.seed)
        let clock = ContinuousClock()
        let started = clock.now
        let redisCommandsBefore = try await stack.redisCommandsProcessed()
        let healer = configuration.appleFaultsFor.map { lasting in
            Task {
                try await Task.sleep(for: lasting)
                progress("Apple is healthy again after \(lasting)")
                try await setAppleFaults(stack, rate: 0)
            }
        }
        defer { healer?.cancel() }
        let backlog = workload.purchases.filter(\.inBacklog)
        if !backlog.isEmpty {
            progress("publishing a backlog of \(backlog.count) bare transaction ids at once")
            for chunk in stride(from: 0, to: backlog.count, by: 1_000) {
                try await sendDurably(producer, backlog[chunk..<min(chunk + 1_000, backlog.count)].map(\.record))
            }
        }
        let steady = workload.purchases.filter { !$0.inBacklog }
        let killer = configuration.killWorkersEvery.map { every in
            Task { await killWorkers(stack, every: every, events: events, seed: configuration.seed) }
        }
        var pendingOrders: [(due: ContinuousClock.Instant, record: KafkaRecord)] = []
        var faults = FaultPoints(configuration)
        for (index, purchase) in steady.enumerated() {
            try await faults.reach(
                Double(index) / Double(steady.count), stack: stack, events: events, progress: progress)
            var batch = [purchase.record]
            if let order = purchase.order {
                pendingOrders.append((clock.now + .milliseconds(Int.random(in: 200...2_000, using: &random)), order))
            }
            let now = clock.now
            let due = pendingOrders.filter { $0.due <= now }
            pendingOrders.removeAll { $0.due <= now }
            batch += due.map(\.record)
            if Double.random(in: 0..<1, using: &random) < configuration.badInputRate {
                batch.append(workload.badRecord(report.badInputs, using: &random))
                report.badInputs += 1
                if let gateway = stack.endpoints.gateway {
                    report.gatewayBadBodies += 1
                    if await !Self.post(
                        gateway + "/apple/notifications", body: SoakWorkload.badNotificationBody(using: &random))
                    {
                        report.gatewayBadBodiesNot4xx += 1
                    }
                }
            }
            try await sendDurably(producer, batch)
            let pace = started + .milliseconds(Int64((index + 1) * 1000 / max(configuration.rate, 1)))
            if pace > clock.now { try await Task.sleep(until: pace, clock: clock) }
            if index % max(configuration.rate, 1) == 0 {
                progress("published \(index + 1)/\(steady.count) · " + settledLine(observer, workload, results))
            }
        }
        try await sendDurably(producer, pendingOrders.map(\.record))
        try await faults.reach(1, stack: stack, events: events, progress: progress)
        killer?.cancel()
        _ = await killer?.value
        let published = clock.now
        report.publishSeconds = (published - started) / .seconds(1)

        // Drain: every purchase granted, every bad input rejected, every group at the log end
        // the topics had once that was so. Records keep arriving while the soak drains (expiries,
        // renewals), each consumed by several groups: "every group at the log end at one instant"
        // may never come, while every group reaching a fixed end always does unless one is stuck.
        let deadline = published + configuration.drainTimeout
        var ends: [String: Int64]?
        while clock.now < deadline {
            if outstanding(observer, workload, results, badInputs: report.badInputs) == 0 {
                let lags = try await consumerLags(stack)
                let fixed = ends ?? Self.logEnds(lags)
                ends = fixed
                if Self.stuckOffsets(lags, short: fixed).isEmpty {
                    report.settled = true
                    break
                }
            }
            progress("draining · " + settledLine(observer, workload, results))
            try await Task.sleep(for: .seconds(1))
        }
        report.drainSeconds = (clock.now - published) / .seconds(1)
        if configuration.appleFaultRate > 0 { try await setAppleFaults(stack, rate: 0) }
        try await Task.sleep(for: .seconds(2))  // a replayed duplicate arrives before counting
        await producer.close()
        await observer.close()
        supervisor.cancel()
        _ = await supervisor.value

        // A Redis restart starts the server's counts over: only a run without one says what a
        // purchase cost Redis.
        if !configuration.redisRestart {
            let commands = try await stack.redisCommandsProcessed().subtracting(redisCommandsBefore).values.reduce(0, +)
            report.redisCommandsPerPurchase = Double(commands) / Double(max(report.purchases, 1))
        }
        tally(
            &report, observer: observer, workload: workload, results: results, audit: auditTopic,
            timeline: events.timeline)
        report.observerRereads = observer.rereadRecords
        report.stuckOffsets = Self.stuckOffsets(try await consumerLags(stack), short: ends ?? [:])
        report.deadLettered = try await stack.deadLettered()
        events.copy(into: &report)
        let stats = try await simulator.stats()
        report.callsBeforeRetryAfter = stats.callsBeforeRetryAfter
        report.appleFaultsInjected = stats.faults
        report.appleRequests = stats.serverAPIRequests + stats.verifyReceiptRequests
        return report
    }

    // MARK: Faults

    /// The one-off faults, each at its point of the publishing.
    private struct FaultPoints {
        var pending: [(at: Double, fault: Fault)] = []

        enum Fault {
            case redisRestart
            case brokerOutage(Duration)
            case brokerErrors, redisLoss
        }

        init(_ configuration: SoakConfiguration) {
            if configuration.redisRestart { pending.append((0.25, .redisRestart)) }
            if configuration.brokerFaults, let outage = configuration.brokerOutage {
                pending.append((0.4, .brokerOutage(outage)))
            }
            if configuration.brokerFaults { pending.append((0.5, .brokerErrors)) }
            if configuration.redisLoss { pending.append((0.6, .redisLoss)) }
        }

        mutating func reach(
            _ progress: Double, stack: LocalStack, events: SoakEvents, progress report: (String) -> Void
        ) async throws {
            while let next = pending.first, next.at <= progress {
                pending.removeFirst()
                switch next.fault {
                case .redisRestart:
                    report("fault: redis-server killed and restarted (append-only file kept)")
                    events.note("redis-server killed")
                    try await stack.redis.restart()
                    events.count(\.redisRestarts)
                case .brokerOutage(let outage):
                    report("fault: broker down for \(outage)")
                    events.note("broker down")
                    try await stack.cluster.setBrokerDown(1)
                    try await Task.sleep(for: outage)
                    try await stack.cluster.setBrokerUp(1)
                    events.count(\.brokerOutages)
                case .brokerErrors:
                    report("fault: produce, commit and fetch errors injected")
                    events.note("broker errors injected")
                    let errors: [KafkaMockCluster.ErrorCode] = [
                        .notLeaderForPartition, .requestTimedOut, .notEnoughReplicas,
                    ]
                    for api in [KafkaMockCluster.APIKey.produce, .offsetCommit, .fetch] {
                        await stack.cluster.pushRequestErrors(api, errors)
                        events.count(\.brokerErrorsInjected, by: errors.count)
                    }
                case .redisLoss:
                    report("fault: Redis FLUSHALL (all state lost)")
                    events.note("Redis FLUSHALL")
                    let client = RedisClient(configuration: try stack.redis.configuration(poolSize: 1))
                    try await client.execute(FLUSHALL())
                    await client.shutdown()
                    events.count(\.redisLosses)
                }
            }
        }
    }

    /// SIGKILLs a random worker every `every` and restarts it a second later.
    private func killWorkers(_ stack: LocalStack, every: Duration, events: SoakEvents, seed: UInt64) async {
        var random = SeededGenerator(seed: seed &+ 1)
        let workers = stack.processNames.filter { $0 != "iap-gateway" }
        while !Task.isCancelled {
            guard (try? await Task.sleep(for: every)) != nil, let victim = workers.randomElement(using: &random) else {
                return
            }
            guard events.manage(victim) else { continue }
            events.note("\(victim) killed")
            await stack.kill(victim)
            events.count(\.kills)
            try? await Task.sleep(for: .seconds(1))
            try? await stack.restart(victim)
            events.release(victim)
        }
    }

    /// Restarts any process that exited without the soak killing it, telling a worker that
    /// stopped for a lost Redis state (exit 75) from a death.
    private func supervise(_ stack: LocalStack, events: SoakEvents) async {
        while !Task.isCancelled {
            for name in stack.processNames {
                guard let child = stack.process(name), !child.isRunning, events.manage(name) else { continue }
                if child.exitCode == 75 {
                    events.count(\.stateLostRestarts)
                    events.note("\(name) restarted after a lost Redis state")
                } else {
                    events.died(
                        SoakReport.Death(process: name, exitCode: child.exitCode, logTail: child.logTail(bytes: 1_500)))
                }
                try? await stack.restart(name)
                events.release(name)
            }
            try? await Task.sleep(for: .milliseconds(300))
        }
    }

    private func setAppleFaults(_ stack: LocalStack, rate: Double) async throws {
        // A 2 s Retry-After: long enough that a retry ignoring it would show as an early call.
        let body: [String: Any] = [
            "rate": rate, "kinds": ["5000001", "429", "4040002", "21100", "21199", "timeout", "html"], "latencyMs": 0,
            "retryAfterMs": 2_000,
        ]
        var request = HTTPClientRequest(url: stack.endpoints.simulator + "/sim/v1/faults")
        request.method = .PUT
        request.headers.add(name: "content-type", value: "application/json")
        request.body = .bytes(ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: body)))
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
        guard response.status == .ok else {
            throw LocalStackError("the simulator refused the faults: \(response.status.code)")
        }
    }

    // MARK: Reading the end state

    private func outstanding(
        _ observer: TopicObserver, _ workload: SoakWorkload, _ results: ResultTopics, badInputs: Int
    ) -> Int {
        let state = EndState(observer, results, audit: nil)
        return workload.purchases.count { state.grants[$0.transactionId] == nil }
            + max(0, badInputs - state.rejectedBadInputs.count)
    }

    private func settledLine(_ observer: TopicObserver, _ workload: SoakWorkload, _ results: ResultTopics) -> String {
        let state = EndState(observer, results, audit: nil)
        return
            "granted \(workload.purchases.count { state.grants[$0.transactionId] != nil })/\(workload.purchases.count)"
    }

    private func tally(
        _ report: inout SoakReport, observer: TopicObserver, workload: SoakWorkload, results: ResultTopics,
        audit: String?, timeline: SoakTimeline
    ) {
        let state = EndState(observer, results, audit: audit)
        for purchase in workload.purchases {
            guard let grants = state.grants[purchase.transactionId] else {
                report.lost.append("\(purchase.transactionId) (\(purchase.kind.rawValue))")
                if report.lostTrails.count < SoakReport.trailsShown {
                    report.lostTrails.append(
                        "\(purchase.transactionId) (\(purchase.kind.rawValue), \(purchase.eventId)): "
                            + state.trail(transactionId: purchase.transactionId, eventId: purchase.eventId))
                }
                continue
            }
            if grants.eventIds.count > 1 {
                report.duplicateGrants.append("\(purchase.transactionId) (\(purchase.kind.rawValue))")
            }
            if purchase.kind == .ordered, grants.users != [purchase.expectedUser] {
                report.boundByHint.append("\(purchase.transactionId) (\(purchase.kind.rawValue))")
            }
            if grants.eventIds.count == 1, grants.users == [purchase.expectedUser] { report.grantedOnce += 1 }
            report.repeatedDeliveries += grants.records - grants.eventIds.count
            // Each copy after an eventId's first, by what the soak did first since the copy before.
            func seconds(_ duration: Duration) -> String {
                duration.formatted(.units(allowed: [.seconds], fractionalPart: .show(length: 1)))
            }
            var causes: [String] = []
            for stamps in grants.stamps.values {
                let sorted = stamps.sorted()
                for (previous, copy) in zip(sorted, sorted.dropFirst()) {
                    let cause = timeline.between(previous, and: copy)
                    report.repeatsAfter[cause?.what ?? "no fault between", default: 0] += 1
                    causes.append(
                        "\(seconds(.milliseconds(copy - previous))) after the copy before"
                            + (cause.map { ", \($0.what) \(seconds($0.after)) after that" } ?? ""))
                }
            }
            if grants.records > grants.eventIds.count, report.repeatedTrails.count < SoakReport.repeatsShown {
                report.repeatedTrails.append(
                    "\(purchase.transactionId) (\(purchase.kind.rawValue), \(grants.records) copies"
                        + (causes.isEmpty ? "" : "; copied \(causes.joined(separator: "; "))") + "): "
                        + state.trail(transactionId: purchase.transactionId, eventId: purchase.eventId))
            }
        }
        report.badInputsRejected = min(report.badInputs, state.rejectedBadInputs.count)
        report.rejectedByReason = state.rejectedByReason
    }

    /// Grants per transaction and rejections, parsed from what the observer has read.
    private struct EndState {
        struct Grants {
            var eventIds: Set<String> = []
            var users: Set<String> = []
            var records = 0
            /// When each copy was written (Kafka's timestamp), by eventId.
            var stamps: [String: [Int64]] = [:]
        }
        var grants: [String: Grants] = [:]
        var rejectedBadInputs: Set<String> = []
        var rejectedByReason: [String: Int] = [:]
        /// Audit entries by every transaction id and eventId they name; read only for a tally.
        var audit: [String: [AuditEntry]] = [:]

        /// - Parameter auditTopic: index its entries too (the tally's trails); the progress lines,
        ///   read every second, pass nil and its records are skipped unread.
        init(_ observer: TopicObserver, _ results: ResultTopics, audit auditTopic: String?) {
            for record in observer.records {
                if record.topic == auditTopic {
                    guard let entry = try? EventDecoder.decode(AuditEntry.self, from: record.value) else { continue }
                    for id in Set(entry.transactionsNamed + [entry.eventId].compactMap(\.self)) {
                        audit[id, default: []].append(entry)
                    }
                    continue
                }
                guard record.topic == results.entitlements || record.topic == results.rejected,
                    let object = try? JSONSerialization.jsonObject(with: Data(record.value)) as? [String: Any]
                else {
                    continue
                }
                if record.topic == results.rejected {
                    rejectedByReason[
                        "\(object["stage"] as? String ?? "?")/\(object["reason"] as? String ?? "?")", default: 0] += 1
                    if let key = record.key.map({ String(decoding: $0, as: UTF8.self) }), key.hasPrefix("bad-") {
                        rejectedBadInputs.insert(key)
                    }
                } else if object["action"] as? String == "grant", let transactionId = object["transactionId"] as? String
                {
                    grants[transactionId, default: Grants()].records += 1
                    if let eventId = object["eventId"] as? String {
                        grants[transactionId]!.eventIds.insert(eventId)
                        if let stamp = record.timestampMilliseconds {
                            grants[transactionId]!.stamps[eventId, default: []].append(stamp)
                        }
                    }
                    if let user = object["userId"] as? String { grants[transactionId]!.users.insert(user) }
                }
            }
        }

        /// The decisions the stages recorded about a purchase, in time order: where one that
        /// never reached its grant stopped.
        func trail(transactionId: String, eventId: String) -> String {
            var seen: Set<String> = []
            let entries = ((audit[transactionId] ?? []) + (audit[eventId] ?? []))
                .filter { seen.insert($0.auditId).inserted }
                .sorted { $0.at < $1.at }
            guard !entries.isEmpty else { return "no audit entry" }
            return entries.map { entry in
                "\(entry.stage) \(entry.decision.rawValue)" + (entry.notificationUUID == nil ? "" : " (notification)")
                    + (entry.reason.map { ": \($0)" } ?? "")
            }.joined(separator: " → ")
        }
    }

    /// Every running stage's lag on each of its input partitions.
    private func consumerLags(_ stack: LocalStack) async throws -> [ConsumerLag] {
        let admin = try KafkaAdmin(bootstrapServers: stack.endpoints.kafka, logger: logger)
        var lags: [ConsumerLag] = []
        for stage in stack.runningStages {
            lags += try await admin.consumerLag(group: stage.consumerGroup, topics: stage.consumedTopics)
        }
        return lags
    }

    /// The partitions whose commit is short of the log end, or of `ends` (by
    /// ``offsetKey(group:topic:partition:)``) where it names one.
    private static func stuckOffsets(_ lags: [ConsumerLag], short ends: [String: Int64]) -> [SoakReport.Offsets] {
        lags.filter { lag in
            (ends[offsetKey(group: lag.group, topic: lag.topic, partition: lag.partition)] ?? lag.highWatermark)
                > (lag.committedOffset ?? 0)
        }.map { lag in
            SoakReport.Offsets(
                group: lag.group, topic: lag.topic, partition: lag.partition, committed: lag.committedOffset,
                logEnd: lag.highWatermark)
        }
    }

    /// The log ends of `lags`' partitions, by ``offsetKey(group:topic:partition:)``.
    private static func logEnds(_ lags: [ConsumerLag]) -> [String: Int64] {
        Dictionary(
            lags.map { (offsetKey(group: $0.group, topic: $0.topic, partition: $0.partition), $0.highWatermark) },
            uniquingKeysWith: { $1 })
    }

    private static func offsetKey(group: String, topic: String, partition: Int32) -> String {
        "\(group)|\(topic)|\(partition)"
    }

    // MARK: Plumbing

    /// Publishes, retrying through a broker outage: the soak's own producer must not be the
    /// thing that loses a purchase.
    private func sendDurably(_ producer: KafkaProducer, _ records: [KafkaRecord]) async throws {
        guard !records.isEmpty else { return }
        while true {
            do {
                _ = try await producer.send(records)
                return
            } catch {
                logger.warning("soak publish failed; retrying", metadata: ["error": "\(error)"])
                try await Task.sleep(for: .milliseconds(500))
            }
        }
    }

    /// Whether the gateway answered a bad body with a 4xx.
    private static func post(_ url: String, body: [UInt8]) async -> Bool {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "content-type", value: "application/json")
        request.body = .bytes(ByteBuffer(bytes: body))
        guard let response = try? await HTTPClient.shared.execute(request, timeout: .seconds(10)) else { return false }
        _ = try? await response.body.collect(upTo: 1 << 16)
        return (400..<500).contains(response.status.code)
    }
}

/// What the soak's concurrent parts count, and which processes one of them is handling.
final class SoakEvents: Sendable {
    private struct State {
        var report = SoakReport()
        var managed: Set<String> = []
        var timeline = SoakTimeline()
    }

    private let state = Mutex(State())

    func count(_ field: any WritableKeyPath<SoakReport, Int> & Sendable, by amount: Int = 1) {
        state.withLock { $0.report[keyPath: field] += amount }
    }

    /// Notes a kill or a fault now, for what came last before each repeated delivery.
    func note(_ what: String) {
        let now = Int64((Date().timeIntervalSince1970 * 1000).rounded())
        state.withLock { $0.timeline.note(what, at: now) }
    }

    var timeline: SoakTimeline { state.withLock { $0.timeline } }

    func died(_ death: SoakReport.Death) {
        state.withLock { $0.report.deaths.append(death) }
    }

    /// Claims a process for a kill or a restart; false while another part handles it.
    func manage(_ name: String) -> Bool {
        state.withLock { $0.managed.insert(name).inserted }
    }

    func release(_ name: String) {
        _ = state.withLock { $0.managed.remove(name) }
    }

    func copy(into report: inout SoakReport) {
        let counted = state.withLock { $0.report }
        report.kills = counted.kills
        report.redisRestarts = counted.redisRestarts
        report.redisLosses = counted.redisLosses
        report.brokerOutages = counted.brokerOutages
        report.brokerErrorsInjected = counted.brokerErrorsInjected
        report.stateLostRestarts = counted.stateLostRestarts
        report.deaths = counted.deaths
    }
}
