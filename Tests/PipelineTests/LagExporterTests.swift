import AsyncHTTPClient
import Foundation
import Hosting
import Kafka
import LocalServices
import Logging
import NIOCore
import NIOHTTP1
import Pipeline
import Synchronization
import TestSupport
import Testing
import Topology

/// The lag exporter (`iap lag --serve`, decision D26), scraped over HTTP as Prometheus would.
@Suite(.timeLimit(.minutes(2))) struct LagExporterTests {
    /// One sample of a scrape: name, labels, value.
    struct Sample: Hashable {
        var name: String
        var labels: [String: String]
        var value: Double
    }

    /// Parses Prometheus' text format (enough of it for these series: no escapes in labels).
    static func parse(_ text: String) -> [Sample] {
        text.split(separator: "\n").compactMap { line -> Sample? in
            guard !line.hasPrefix("#"), let space = line.lastIndex(of: " "),
                let value = Double(line[line.index(after: space)...])
            else { return nil }
            let series = line[..<space]
            guard let brace = series.firstIndex(of: "{") else {
                return Sample(name: String(series), labels: [:], value: value)
            }
            var labels: [String: String] = [:]
            for pair in series[series.index(after: brace)..<series.index(before: series.endIndex)].split(separator: ",")
            {
                let parts = pair.split(separator: "=", maxSplits: 1)
                guard parts.count == 2 else { continue }
                labels[String(parts[0])] = String(parts[1].dropFirst().dropLast())
            }
            return Sample(name: String(series[..<brace]), labels: labels, value: value)
        }
    }

    /// One scrape, or `nil` when no answer came in time, so that `eventually` asks again: with
    /// the whole unit set starting at once on two cores, a local answer can take seconds (a CI
    /// run lost two of these tests to a 5 s deadline at the same instant). A server that never
    /// answers still fails the test, at `eventually`'s deadline.
    static func scrape(_ url: String) async -> (status: UInt, body: String)? {
        guard let response = try? await HTTPClient.shared.execute(HTTPClientRequest(url: url), timeout: .seconds(10)),
            let body = try? await response.body.collect(upTo: 1 << 20)
        else { return nil }
        return (response.status.code, String(buffer: body))
    }

    /// The first answer to a scrape of `url`.
    static func answer(_ url: String) async throws -> (status: UInt, body: String) {
        try await eventually("an answer from \(url)") { await scrape(url) }
    }

    /// The exporter's samples of `name` for `group`.
    static func samples(_ samples: [Sample], _ name: String, group: String) -> [Sample] {
        samples.filter { $0.name == name && $0.labels["consumergroup"] == group }
    }

    func settings(_ cluster: KafkaMockCluster, interval: Duration = .milliseconds(200)) throws -> LagExporterSettings {
        var settings = try LagExporterSettings(environment: [:])
        settings.kafka.bootstrapServers = cluster.bootstrapServers
        settings.opsHost = "127.0.0.1"
        settings.opsPort = 0
        settings.interval = interval
        return settings
    }

    typealias Stop = (stream: AsyncStream<Void>, continuation: AsyncStream<Void>.Continuation)

    /// Starts the exporter until `stop` finishes; returns its ops base URL and the running task.
    func start(_ settings: LagExporterSettings, targets: [LagTarget], until stop: Stop) async throws
        -> (base: String, running: Task<Void, any Error>)
    {
        let port = Mutex<Int?>(nil)
        let process = LagExporterProcess(settings: settings, targets: targets, logger: TestKafka.logger) { bound in
            port.withLock { $0 = bound }
        }
        // The closure holds the continuation too, so the stream ends only when the test finishes it.
        let running = Task { try await process.run { for await _ in stop.stream { return } } }
        let base = try await eventually("ops port") { port.withLock { $0 }.map { "http://127.0.0.1:\($0)" } }
        return (base, running)
    }

    /// The issue's scenario: every replica of a stage stopped, records published, and the
    /// exported lag rises by exactly what was published, with no member in the group; a group
    /// that never committed has series too.
    @Test func lagRisesByWhatWasPublishedWhileNoReplicaRuns() async throws {
        let cluster = try await TestKafka.cluster(topics: ["in": 3, "other": 2])
        let producer = try TestKafka.producer(cluster)
        let targets = [LagTarget(group: "stage-a", topics: ["in"]), LagTarget(group: "never-ran", topics: ["other"])]
        let stop = AsyncStream<Void>.makeStream()
        let exporter = try await start(try settings(cluster), targets: targets, until: stop)

        // The stage's one replica reads and commits everything, then stops (leaves the group).
        try await TestKafka.publish(producer, topic: "in", count: 12)
        let replica = try ConsumerProbe(cluster, group: "stage-a", topics: ["in"])
        try await replica.waitForMessages(12)
        try replica.storeAll()
        try await replica.consumer.commit()
        await replica.close()

        let caughtUp = try await eventually("stage-a exported at lag 0 on its 3 partitions") { () -> [Sample]? in
            guard let scrape = await Self.scrape(exporter.base + "/metrics") else { return nil }
            let lags = Self.samples(Self.parse(scrape.body), "kafka_consumergroup_lag", group: "stage-a")
            return lags.count == 3 && lags.allSatisfy { $0.value == 0 } ? lags : nil
        }
        #expect(Set(caughtUp.compactMap { $0.labels["partition"] }) == ["0", "1", "2"])
        #expect(caughtUp.allSatisfy { $0.labels["topic"] == "in" })

        let published = 7
        try await TestKafka.publish(producer, topic: "in", count: published, prefix: "late")
        try await TestKafka.publish(producer, topic: "other", count: 5)
        let scraped = try await eventually("stage-a's exported lag rises by \(published)") { () -> [Sample]? in
            guard let scrape = await Self.scrape(exporter.base + "/metrics") else { return nil }
            let samples = Self.parse(scrape.body)
            let lag = Self.samples(samples, "kafka_consumergroup_lag", group: "stage-a").reduce(0) { $0 + $1.value }
            return lag == Double(published) ? samples : nil
        }
        let lagSum = Self.samples(scraped, "kafka_consumergroup_lag_sum", group: "stage-a")
        #expect(lagSum.map(\.value) == [Double(published)] && lagSum.first?.labels["topic"] == "in")
        let offsets = Self.samples(scraped, "kafka_consumergroup_current_offset", group: "stage-a")
        #expect(offsets.reduce(0) { $0 + $1.value } == 12, "the commits before the stop")
        #expect(scraped.contains { $0.name == "kafka_topic_partitions" && $0.labels["topic"] == "in" && $0.value == 3 })
        let logEnd = scraped.filter { $0.name == "kafka_topic_partition_current_offset" && $0.labels["topic"] == "in" }
        #expect(logEnd.reduce(0) { $0 + $1.value } == Double(12 + published))

        // Never committed: series on every partition; lag is what it would read (earliest).
        let neverRan = try await eventually("never-ran's lag on both partitions of other") { () -> [Sample]? in
            guard let scrape = await Self.scrape(exporter.base + "/metrics") else { return nil }
            let samples = Self.parse(scrape.body)
            let lags = Self.samples(samples, "kafka_consumergroup_lag", group: "never-ran")
            return lags.count == 2 && lags.reduce(0, { $0 + $1.value }) == 5 ? samples : nil
        }
        let noCommit = Self.samples(neverRan, "kafka_consumergroup_current_offset", group: "never-ran")
        #expect(noCommit.count == 2 && noCommit.allSatisfy { $0.value == -1 })
        #expect(neverRan.contains { $0.name == "iap_lag_exporter_up" && $0.value == 1 })
        #expect(try await Self.answer(exporter.base + "/readyz").status == 200)

        stop.continuation.finish()
        try await exporter.running.value
        await producer.close()
    }

    /// `/readyz` reflects the last Kafka queries: a cluster that does not answer is not ready.
    @Test func notReadyWhileKafkaDoesNotAnswer() async throws {
        var settings = try LagExporterSettings(environment: [:])
        settings.kafka.bootstrapServers = "127.0.0.1:1"
        settings.opsHost = "127.0.0.1"
        settings.opsPort = 0
        settings.interval = .milliseconds(200)
        settings.queryTimeout = .milliseconds(500)
        let stop = AsyncStream<Void>.makeStream()
        let exporter = try await start(settings, targets: [LagTarget(group: "g", topics: ["t"])], until: stop)
        let body = try await eventually("readyz says the query failed") { () -> String? in
            guard let (status, body) = await Self.scrape(exporter.base + "/readyz") else { return nil }
            return status == 503 && body.contains("Kafka query failed") ? body : nil
        }
        #expect(body.contains("not ready"))
        let metrics = Self.parse(try await Self.answer(exporter.base + "/metrics").body)
        #expect(metrics.contains { $0.name == "iap_lag_exporter_up" && $0.value == 0 })
        stop.continuation.finish()
        try await exporter.running.value
    }

    /// A graceful shutdown wakes the refresh loop: with an hour between refreshes, the
    /// process still stops (the suite's time limit would catch a loop sleeping through it).
    @Test func stopsPromptlyBetweenRefreshes() async throws {
        let cluster = try await TestKafka.cluster(topics: ["in": 1])
        let stop = AsyncStream<Void>.makeStream()
        let exporter = try await start(
            try settings(cluster, interval: .seconds(3600)), targets: [LagTarget(group: "g", topics: ["in"])],
            until: stop)
        _ = try await eventually("first refresh") {
            await Self.scrape(exporter.base + "/readyz")?.status == 200 ? true : nil
        }
        stop.continuation.finish()
        try await exporter.running.value
    }

    @Test func everyGroupOfThePipelineFileIsWatched() throws {
        let stages = [
            StageSpec(name: "a", consumerGroup: "g-a", inputs: ["t1", "t2"], outputs: []),
            StageSpec(name: "b", consumerGroup: "g-b", inputs: ["t3"], outputs: []),
            StageSpec(name: "c", consumerGroup: "g-a", inputs: ["t2", "t4"], outputs: []),
        ]
        var pipeline = try PipelineFile(topics: [], stages: [])
        pipeline.stages = stages
        #expect(
            LagTarget.targets(of: pipeline) == [
                LagTarget(group: "g-a", topics: ["t1", "t2", "t4"]), LagTarget(group: "g-b", topics: ["t3"]),
            ])
        #expect(LagTarget(spec: "g=t1,t2") == LagTarget(group: "g", topics: ["t1", "t2"]))
        #expect(LagTarget(spec: "g") == nil && LagTarget(spec: "=t") == nil)
    }
}
