import AppStoreModels
import ArgumentParser
import Contracts
import Foundation
import Hosting
import Kafka
import LocalStack
import Pipeline
import Purchases
import Settings
import Topology

/// `iap-dev bench e2e`: purchases/s and publish→entitlement latency through the four workers as
/// separate processes on the embedded stack.
struct BenchE2ECommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "e2e",
        abstract: "End-to-end purchases/s and publish→entitlement latency with all four workers as processes.",
        discussion: """
            Purchases are made on the simulator first, then published at --rate (0: as fast as possible) as StoreKit 2
            signed transactions (verified locally) or, with --bare-ids, as bare transaction ids (one Apple call each).
            Latency is the grant record's timestamp minus the purchase event's publish time.
            --apple-rate-limit sets the shared Apple budget (off by default: the pipeline is measured, not Apple's
            quota) and --apple-429-seconds has the simulator answer every call 429 for the first seconds of the
            run: a backlog that must drain at the budget. The report adds records dead-lettered and Redis commands
            per purchase (redis-server's total_commands_processed over the run, warm-up excluded) and CPU per
            purchase from /proc: the workers', redis-server's and this process's (which hosts the broker).
            `iap-dev bench compare` runs this alternately with another build's (issue 23).
            """
    )

    @Option(help: "Purchases to publish.") var purchases = 20_000
    @Option(help: "Publish rate per second; 0 publishes as fast as possible.") var rate = 0
    @Option(name: .customLong("apple-latency"), help: "Milliseconds the simulator adds to every Apple call.")
    var appleLatency = 0
    @Flag(name: .customLong("bare-ids"), help: "Publish bare transaction ids (verify asks Apple for each).")
    var bareIds = false
    @Option(
        name: .customLong("apple-rate-limit"),
        help: "Shared Apple calls per second per endpoint (IAP_APPLE_RATE_LIMIT; 0: off, the default).")
    var appleRateLimit = 0
    @Option(
        name: .customLong("apple-429-seconds"),
        help: "Seconds from the first publish during which the simulator answers every Apple call 429.")
    var apple429Seconds = 0.0
    @Option(name: .customLong("apple-retry-after-ms"), help: "The Retry-After of those 429s, in milliseconds.")
    var appleRetryAfterMs = 2_000
    @Flag(
        name: .customLong("verify-only"),
        help:
            "Start only iap-verify and publish verification requests straight to its input: one verify worker's verifications/s."
    )
    var verifyOnly = false
    @Option(help: "Pipeline file the dev topology is derived from.") var pipeline = "pipelines/iap.yaml"
    /// The mock cluster keeps ~5 MiB per partition (D7): a StoreKit 2 purchase is ~3 KiB on
    /// each of three topics, so 20,000 of them need at least 16 partitions.
    @Option(help: "Partitions of every topic on the embedded broker (each must hold < 5 MiB).") var partitions = 32
    @Option(help: "Replicas of each worker.") var replicas = 1
    @Option(
        help: "The worker executables to start, comma-separated (default: all six), e.g. the four of the purchase path."
    )
    var workers: String?
    @Flag(
        inversion: .prefixedNo,
        help:
            "Start iap-api beside the workers, as the embedded stack does (no reads are made; it costs what it idles).")
    var api = true
    @Option(help: "Brokers of the embedded mock cluster.") var brokers: Int32 = 1
    @Option(name: .customLong("bin-dir"), help: "Directory holding the worker executables (default: next to iap).")
    var binDirectory: String?
    @Option(
        name: .customLong("worker-env"),
        help: "KEY=VALUE added to every worker's environment (repeatable), e.g. REDIS_POOL_SIZE=2.")
    var workerEnvironment: [String] = []
    @Flag(help: "Print the result as JSON.") var json = false

    func run() async throws {
        lineBufferedOutput()
        let logger = CLILogging.logger("iap.bench")
        var configuration = LocalStackConfiguration()
        configuration.pipelinePath = pipeline
        configuration.partitions = partitions
        configuration.gateway = false  // no simulator notifications: measure the purchase path alone
        configuration.appleLatency = .milliseconds(appleLatency)
        configuration.appleRateLimit = appleRateLimit
        configuration.replicas = replicas
        configuration.brokers = brokers
        if let workers {
            configuration.workers = workers.split(separator: ",").map {
                String($0).trimmingCharacters(in: .whitespaces)
            }
        }
        if verifyOnly { configuration.workers = [StageName.verify.executable] }
        configuration.api = api
        configuration.binDirectory = binDirectory
        configuration.workerEnvironment = [HostSettings.logLevel.name: "warning"]
        for pair in workerEnvironment {
            guard let equals = pair.firstIndex(of: "="), equals != pair.startIndex else {
                throw ValidationError("--worker-env takes KEY=VALUE, got '\(pair)'")
            }
            configuration.workerEnvironment[String(pair[..<equals])] = String(pair[pair.index(after: equals)...])
        }
        let stack = try await LocalStack.start(configuration, logger: logger)
        do {
            try await measure(stack)
        } catch {
            await stack.stop(keepingState: true)
            throw error
        }
        await stack.stop()
    }

    private func measure(_ stack: LocalStack) async throws {
        let logger = CLILogging.logger("iap.bench")
        let simulator = SimulatorClient(baseURL: stack.endpoints.simulator)
        let bundleId = stack.endpoints.bundleId
        if !json { print("making \(purchases) purchases on the simulator…") }
        let made = try await withThrowingTaskGroup(of: [SimulatorClient.Transaction].self) { group in
            let workers = 16
            for worker in 0..<workers {
                group.addTask {
                    var made: [SimulatorClient.Transaction] = []
                    for index in stride(from: worker, to: purchases, by: workers) {
                        made.append(
                            try await simulator.purchase(
                                productId: "gems_\(index % 10)", type: "Consumable", bundleId: bundleId))
                    }
                    return made
                }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
        let target = try Target(stack: stack, verifyOnly: verifyOnly)
        let records = try made.enumerated().map { index, purchase in
            let payload: PurchasePayload =
                bareIds ? .transactionId(purchase.transactionId) : .signedTransaction(purchase.signedTransaction)
            return try target.record(
                PurchaseEvent(
                    eventId: "bench-\(index)", bundleId: bundleId, userId: "user-\(index % 10_000)", payload: payload))
        }

        let observer = try TopicObserver(bootstrap: stack.endpoints.kafka, topics: [target.resultTopic], logger: logger)
        try await warmUp(stack, target: target, observer: observer)
        let redisCommandsBefore = try await stack.redisCommandsProcessed()
        let cpuBefore = CPUSample(stack)
        let outage: Task<Void, any Error>? =
            apple429Seconds > 0
            ? Task { [apple429Seconds, appleRetryAfterMs] in
                try await simulator.setFaults(["rate": 1, "kinds": ["429"], "retryAfterMs": appleRetryAfterMs])
                try await Task.sleep(for: .milliseconds(Int64(apple429Seconds * 1000)))
                try await simulator.setFaults([:])
            } : nil
        var producerConfiguration = KafkaProducerConfiguration(bootstrapServers: stack.endpoints.kafka)
        producerConfiguration.linger = .milliseconds(2)
        producerConfiguration.additionalProperties = ["queue.buffering.max.messages": "1000000"]
        let producer = try KafkaProducer(configuration: producerConfiguration, logger: logger)
        if !json {
            print(
                "publishing \(purchases) \(bareIds ? "bare transaction ids" : "signed transactions") at \(rate == 0 ? "full speed" : "\(rate)/s")…"
            )
        }

        // transactionId -> publish time (ms since epoch)
        var published: [String: Int64] = [:]
        published.reserveCapacity(purchases)
        let clock = ContinuousClock()
        let start = clock.now
        let startWall = Self.nowMilliseconds()
        let slice = rate == 0 ? 2_000 : max(1, rate / 100)
        var sent = 0
        while sent < records.count {
            let batch = Array(records[sent..<min(sent + slice, records.count)])
            let at = Self.nowMilliseconds()
            for index in sent..<sent + batch.count { published[made[index].transactionId] = at }
            if rate == 0 {
                _ = try await producer.send(batch)
            } else {
                Task { [producer] in _ = try? await producer.send(batch) }
                let due = start + .milliseconds(Int64((sent + batch.count) * 1000 / rate))
                if due > clock.now { try await Task.sleep(until: due, clock: clock) }
            }
            sent += batch.count
        }
        let publishedIn = clock.now - start

        var latencies: [Int64] = []
        var lastGrant: Int64 = 0
        // Only records not looked at yet: re-parsing every result each second cost the bench
        // process (which also hosts the broker) several CPU-seconds on long runs.
        var examined = 0
        // A budget drains a backlog at its rate (sandbox is a tenth of it; these are production).
        let budgeted = appleRateLimit > 0 && bareIds ? Int(Double(purchases) / Double(appleRateLimit) * 1.5) : 0
        let deadline = clock.now + .seconds(max(120, purchases / 100, budgeted + Int(apple429Seconds) + 60))
        while clock.now < deadline {
            let records = observer.records
            defer { examined = records.count }
            for record in records[examined...] {
                guard let stamp = record.timestampMilliseconds,
                    let object = try? JSONSerialization.jsonObject(with: Data(record.value)) as? [String: Any],
                    let id = (object["transactionId"] ?? (object["transaction"] as? [String: Any])?["transactionId"])
                        as? String,
                    let at = published[id]
                else { continue }
                latencies.append(stamp - at)
                lastGrant = max(lastGrant, stamp)
            }
            if latencies.count >= purchases { break }
            if !json {
                print(
                    "  \(latencies.count)/\(purchases) \(target.done) · "
                        + (await Self.stageGauges(stack)).joined(separator: " · "))
            }
            try await Task.sleep(for: .seconds(1))
        }
        let cpu = CPUSample(stack).since(cpuBefore, per: max(latencies.count, 1))
        await observer.close()
        await producer.close()
        // The stages after grant (the customer state and its audit index) still owe what the
        // last grants brought: keeping up means this backlog drains (D51, issue 21).
        let backlogAtLastGrant = try await stack.backlog()
        let drainStart = clock.now
        let drained = (try? await stack.waitUntilDrained(timeout: .seconds(300))) != nil
        let drainSeconds = drained ? (clock.now - drainStart) / .seconds(1) : -1
        try await outage?.value
        let redisByCommand = try await stack.redisCommandsProcessed().subtracting(redisCommandsBefore)
        let redisCommands = redisByCommand.values.reduce(0, +)
        let deadLettered = try await stack.deadLettered()

        latencies.sort()
        func percentile(_ p: Double) -> Int64 {
            latencies.isEmpty ? -1 : latencies[min(latencies.count - 1, Int(Double(latencies.count) * p))]
        }
        let seconds = Double(lastGrant - startWall) / 1000
        let result: [String: Any] = [
            "purchases": purchases, "granted": latencies.count, "rate": rate, "bareIds": bareIds,
            "appleLatencyMs": appleLatency,
            "replicas": replicas, "partitions": partitions, "verifyOnly": verifyOnly,
            "publishSeconds": publishedIn / .seconds(1), "endToEndSeconds": seconds,
            "purchasesPerSecond": Int(Double(latencies.count) / max(seconds, 0.001)),
            "appleRateLimit": appleRateLimit, "apple429Seconds": apple429Seconds, "deadLettered": deadLettered,
            "redisCommandsPerPurchase": Double(redisCommands) / Double(max(purchases, 1)),
            "redisCommandsByName": redisByCommand,
            "backlogAtLastGrant": backlogAtLastGrant, "drainSeconds": drainSeconds,
            "latencyMs": [
                "p50": percentile(0.5), "p90": percentile(0.9), "p99": percentile(0.99), "max": latencies.last ?? -1,
            ],
            "cpuMsPerPurchase": ["workers": cpu.workers, "redis": cpu.redis, "bench": cpu.bench],
            "cpuMsPerPurchaseByWorker": cpu.byMember,
            "startedAtMs": startWall, "lastGrantAtMs": lastGrant,
        ]
        if json {
            print(
                String(
                    decoding: try JSONSerialization.data(withJSONObject: result, options: [.sortedKeys]), as: UTF8.self)
            )
        } else {
            print(
                "\(target.done) \(latencies.count)/\(purchases) in \(String(format: "%.2f", seconds)) s: \(result["purchasesPerSecond"]!) purchases/s"
            )
            print(
                "publish→\(target.resultTopic) latency ms: p50 \(percentile(0.5)) · p90 \(percentile(0.9)) · p99 \(percentile(0.99)) · max \(latencies.last ?? -1)"
            )
            let perPurchase = redisByCommand.sorted { $0.value > $1.value }.prefix(8).map {
                "\($0.key) " + String(format: "%.1f", Double($0.value) / Double(max(purchases, 1)))
            }
            let backlog = backlogAtLastGrant.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }
            print(
                "backlog when the last purchase was granted: \(backlog.joined(separator: ", ")) · "
                    + (drained ? "drained \(String(format: "%.1f", drainSeconds)) s later" : "not drained within 300 s")
            )
            print(
                "dead-lettered \(deadLettered) · Redis commands per purchase "
                    + String(format: "%.1f", Double(redisCommands) / Double(max(purchases, 1)))
                    + " (\(perPurchase.joined(separator: ", ")))")
            print(
                "CPU ms per purchase: workers " + String(format: "%.3f", cpu.workers) + " · redis-server "
                    + String(format: "%.3f", cpu.redis) + " · this process (the broker) "
                    + String(format: "%.3f", cpu.bench))
            print(
                "  by worker (at the last grant: stages after grant still owe their backlog): "
                    + cpu.byMember.sorted { $0.key < $1.key }.map { "\($0.key) " + String(format: "%.3f", $0.value) }
                    .joined(separator: " · "))
        }
        if latencies.count < purchases {
            if drained && deadLettered == 0 {
                // Nothing in flight, nothing refused: the records are gone, not late (D7).
                let hint =
                    "\(purchases - latencies.count) purchases were never \(target.done), with nothing left in flight or "
                    + "dead-lettered: the embedded broker keeps under 5 MiB per partition and drops the oldest records "
                    + "beyond it; give --partitions at least \((purchases + 1_249) / 1_250) (one per 1,250 purchases)\n"
                FileHandle.standardError.write(Data(hint.utf8))
            }
            throw ExitCode(1)
        }
    }

    /// Records in flight (running or buffered) and mean processing time per worker, from each
    /// one's `/metrics`: where a run queues.
    private static func stageGauges(_ stack: LocalStack) async -> [String] {
        var lines: [String] = []
        for (name, url) in stack.endpoints.ops.sorted(by: { $0.key < $1.key }) {
            guard let text = await OpsScrape.get(url + "/metrics") else { continue }
            func value(_ prefix: String) -> Double {
                text.split(separator: "\n").filter { $0.hasPrefix(prefix) }.compactMap {
                    $0.split(separator: " ").last.flatMap { Double($0) }
                }.reduce(0, +)
            }
            let count = value("iap_stage_processing_seconds_count")
            let mean = count > 0 ? value("iap_stage_processing_seconds_sum") / count * 1000 : 0
            lines.append("\(name.dropFirst(4)) \(Int(value("iap_stage_in_flight"))) in flight, \(Int(mean)) ms")
        }
        return lines
    }

    /// Where purchases enter and what counts as done: the whole pipeline (the purchases topic to
    /// the entitlements topic), or with `--verify-only` the verify stage alone (verification
    /// requests, as intake would write them, to its output), all named by the stack's pipeline file.
    private struct Target {
        var verifyOnly: Bool
        var contract: ContractTopics
        var verifyTopic = ""
        var resultTopic: String
        var done: String { verifyOnly ? "verified" : "granted" }

        init(stack: LocalStack, verifyOnly: Bool) throws {
            self.verifyOnly = verifyOnly
            contract = try ContractTopics(pipeline: stack.pipeline)
            resultTopic = try stack.pipeline.topic(.entitlements)
            guard verifyOnly else { return }
            let verify = try stack.pipeline.stage(.verify)
            guard let input = verify.inputs.first, let output = verify.outputs.first else {
                throw ValidationError("the pipeline's verify stage needs an input and an output topic")
            }
            (verifyTopic, resultTopic) = (input, output)
        }

        func record(_ purchase: PurchaseEvent) throws -> KafkaRecord {
            guard verifyOnly else { return try contract.record(purchase) }
            switch IntakeRules().purchase(purchase, receivedAt: Timestamp(Date())) {
            case .forward(let request, let key, _):
                return KafkaRecord(topic: verifyTopic, key: Array(key.utf8), value: try EventEncoder.encode(request))
            case .reject(let rejection):
                throw ValidationError("intake would reject a bench purchase: \(rejection)")
            }
        }
    }

    /// One purchase through every stage before measuring, so the consumer groups have their
    /// partitions (the mock delays a group's first assignment by ~3 s) and caches are warm.
    private func warmUp(_ stack: LocalStack, target: Target, observer: TopicObserver) async throws {
        let purchase = try await SimulatorClient(baseURL: stack.endpoints.simulator)
            .purchase(productId: "warm_up", type: "Consumable", bundleId: stack.endpoints.bundleId)
        let producer = try KafkaProducer(
            configuration: KafkaProducerConfiguration(bootstrapServers: stack.endpoints.kafka),
            logger: CLILogging.logger("iap.bench"))
        _ = try await producer.send([
            try target.record(
                PurchaseEvent(
                    eventId: "warm-up", bundleId: stack.endpoints.bundleId, userId: "warm-up",
                    payload: .signedTransaction(purchase.signedTransaction)))
        ])
        await producer.close()
        let deadline = ContinuousClock.now + .seconds(60)
        while !observer.records.contains(where: {
            String(decoding: $0.value, as: UTF8.self).contains(purchase.transactionId)
        }) {
            guard ContinuousClock.now < deadline else {
                throw ValidationError("the warm-up purchase was not \(target.done) within 60 s")
            }
            try await Task.sleep(for: .milliseconds(100))
        }
    }

    private static func nowMilliseconds() -> Int64 { Int64(Date().timeIntervalSince1970 * 1000) }
}
