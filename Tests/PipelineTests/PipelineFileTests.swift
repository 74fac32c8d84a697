import Foundation
import Pipeline
import Testing
import Topology

@Suite(.timeLimit(.minutes(2))) struct PipelineFileTests {
    /// The repository's own `pipelines/iap.yaml`, found relative to this file.
    static let samplePath = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("pipelines/iap.yaml").path

    @Test func loadsTheSampleTopology() throws {
        let file = try PipelineFile.load(path: Self.samplePath)
        #expect(file.stages.map(\.name) == ["intake", "verify", "match", "grant", "state", "confirm"])
        #expect(
            Set(file.topics.map(\.name)) == [
                "iap.purchases", "iap.orders", "iap.notifications", "iap.verify", "iap.verified",
                "iap.matched", "iap.entitlements", "iap.unmatched", "iap.rejected", "iap.ownership",
                "iap.entitlement-states", "iap.customers", "iap.audit", "iap.subscription-events",
            ])
        let orders = try #require(file.topics.first { $0.name == "iap.orders" })
        #expect(orders.cleanupPolicy == .compact)
        let intake = try file.stage(named: "intake")
        #expect(intake.inputs == ["iap.purchases", "iap.notifications"])
        #expect(intake.outputs == ["iap.verify"])
        #expect(intake.retry.initialBackoff == .milliseconds(500))
        let match = try file.stage(named: "match")
        #expect(match.inputs == ["iap.verified", "iap.orders"])
        #expect(match.outputs == ["iap.matched", "iap.unmatched", "iap.ownership"])
        #expect(file.topics.first { $0.name == "iap.ownership" }?.cleanupPolicy == .compact)
        #expect(file.topics.first { $0.name == "iap.entitlement-states" }?.cleanupPolicy == .compact)
        #expect(file.topics.first { $0.name == "iap.customers" }?.cleanupPolicy == .compact)
        #expect(try file.stage(named: "state").outputs == ["iap.customers"])
        #expect(match.windows["unmatched"]?.duration == .seconds(86400))
        #expect(try file.stage(named: "verify").retry.maxBackoff == .seconds(900))
    }

    @Test func deadLetterTopicsAreDerivedFromInputs() throws {
        let file = try PipelineFile.load(path: Self.samplePath)
        #expect(PipelineFile.dlqTopic(for: "iap.verify") == "iap.verify.dlq")
        #expect(PipelineFile.source(ofDeadLetterTopic: "iap.verify.dlq") == "iap.verify")
        #expect(PipelineFile.source(ofDeadLetterTopic: "iap.verify") == nil)
        let derived = file.allTopics.filter { $0.name.hasSuffix(".dlq") }
        #expect(
            Set(derived.map(\.name)) == [
                "iap.purchases.dlq", "iap.notifications.dlq", "iap.verify.dlq", "iap.verified.dlq",
                "iap.orders.dlq", "iap.matched.dlq", "iap.entitlements.dlq", "iap.audit.dlq",
                "iap-confirm.retry.dlq",
            ])
        let purchasesDLQ = try #require(derived.first { $0.name == "iap.purchases.dlq" })
        #expect(purchasesDLQ.partitions == 12)
        #expect(purchasesDLQ.cleanupPolicy == .delete)
    }

    @Test func topicsForAStageCoverEverythingItTouches() throws {
        let file = try PipelineFile.load(path: Self.samplePath)
        #expect(
            try file.topics(for: "intake").map(\.name) == [
                "iap.purchases", "iap.notifications", "iap.verify", "iap.rejected", "iap.audit",
                "iap.purchases.dlq", "iap.notifications.dlq",
                "iap-intake.delayed",
            ])
        #expect(
            try file.topics(for: "grant").map(\.name) == [
                "iap.matched", "iap.entitlements", "iap.entitlement-states", "iap.subscription-events", "iap.rejected",
                "iap.audit", "iap.matched.dlq", "iap-grant.delayed",
            ])
    }

    /// Confirm's retries come back through a topic of its own (D67), derived from its input: as
    /// wide, kept as long, with a dead-letter topic of its own; the group reads it beside the input.
    @Test func aStagesRetryTopicIsDerivedFromItsInput() throws {
        let file = try PipelineFile.load(path: Self.samplePath)
        let confirm = try file.stage(named: "confirm")
        #expect(confirm.retryTopic == "iap-confirm.retry")
        #expect(confirm.consumedTopics == ["iap.entitlements", "iap-confirm.retry"])
        let retryTopic = try #require(file.allTopics.first { $0.name == "iap-confirm.retry" })
        #expect(retryTopic.partitions == 12)
        #expect(retryTopic.cleanupPolicy == .delete)
        #expect(retryTopic.retention?.duration == .seconds(30 * 24 * 3600))
        #expect(
            try file.topics(for: "confirm").map(\.name) == [
                "iap.entitlements", "iap.rejected", "iap-confirm.retry", "iap.entitlements.dlq",
                "iap-confirm.retry.dlq", "iap-confirm.delayed",
            ])
        #expect(try file.stage(named: "grant").retryTopic == nil)
        // Declared, it keeps the file's settings.
        let declared = try PipelineFile.parse(
            yaml: "topics: [{name: a, partitions: 4}, {name: r, partitions: 2}]\n"
                + "stages: [{name: s, consumerGroup: g, inputs: [a], retryTopic: r}]")
        #expect(declared.allTopics.filter { $0.name == "r" }.map(\.partitions) == [2])
        #expect(declared.allTopics.contains { $0.name == "r.dlq" && $0.partitions == 2 })
    }

    /// Every stage journals its retries and waits in a compacted topic as wide as its widest input.
    @Test func everyStageHasACompactedDeliveryJournal() throws {
        let file = try PipelineFile.load(path: Self.samplePath)
        for stage in file.stages {
            let journal = try #require(file.allTopics.first { $0.name == stage.journalTopic }, "\(stage.name)")
            #expect(journal.cleanupPolicy == .compact)
            let inputs = file.topics.filter { stage.inputs.contains($0.name) }
            #expect(journal.partitions == inputs.map(\.partitions).max())
        }
        #expect(file.allTopics.first { $0.name == "iap-match.delayed" }?.partitions == 12)
    }

    @Test func appliesDefaults() throws {
        let file = try PipelineFile.parse(
            yaml: """
                topics:
                  - {name: in, partitions: 3}
                stages:
                  - {name: s, consumerGroup: g, inputs: [in]}
                """)
        let stage = try file.stage(named: "s")
        #expect(stage.maxInFlight == 256)
        #expect(stage.retry == RetryPolicy())
        #expect(stage.outputs.isEmpty)
        #expect(file.topics[0].replicationFactor == 1)
        #expect(file.topics[0].cleanupPolicy == .delete)
    }

    @Test func unknownStageIsNamed() throws {
        let file = try PipelineFile.load(path: Self.samplePath)
        #expect {
            try file.stage(named: "refund")
        } throws: { error in
            (error as? PipelineFileError)?.code == .unknownStage && "\(error)".contains("refund")
        }
    }

    @Test(arguments: [
        (
            "stages: [{name: s, consumerGroup: g, inputs: [nope]}]\ntopics: []", PipelineFileError.Code.undeclaredTopic,
            "nope"
        ),
        (
            "topics: [{name: a, partitions: 1}]\nstages: [{name: s, consumerGroup: g, inputs: [a], rejectTopic: r}]",
            .undeclaredTopic, "'r'"
        ),
        ("topics: [{name: a, partitions: 1, retention: 7 days}]\nstages: []", .invalidDuration, "7 days"),
        (
            "topics: [{name: a, partitions: 1}]\nstages: [{name: s, consumerGroup: g, inputs: [a], retry: {initialBackoff: 5x}}]",
            .invalidDuration, "initialBackoff"
        ),
        (
            "topics: [{name: a, partitions: 1}]\nstages: [{name: s, consumerGroup: g, inputs: [a], windows: {w: '-1s'}}]",
            .invalidDuration, "-1s"
        ),
        ("topics: [{name: a, partitions: 1}, {name: a, partitions: 2}]\nstages: []", .duplicateName, "'a'"),
        ("topics: [{name: a, partitions: 0}]\nstages: []", .invalidValue, "partition"),
        // Validated, then trapped in `Int32(partitions)` in `iap topics create` and `iap-dev dev`.
        ("topics: [{name: a, partitions: 2147483648}]\nstages: []", .invalidValue, "partition"),
        ("topics: [{name: a, partitions: 1, replicationFactor: 2147483648}]\nstages: []", .invalidValue, "replicas"),
        (
            "topics: [{name: a, partitions: 1}]\nstages: [{name: s, consumerGroup: g, inputs: [a], retry: {jitter: 1.5}}]",
            .invalidValue, "jitter"
        ),
        (
            "topics: [{name: a, partitions: 1}]\nstages: [{name: s, consumerGroup: g, inputs: [a], retry: {initialBackoff: 10s, maxBackoff: 1s}}]",
            .invalidValue, "maxBackoff"
        ),
        (
            "topics: [{name: a, partitions: 1}]\nstages: [{name: s, consumerGroup: g, inputs: []}]", .invalidValue,
            "no input"
        ),
        ("topics: [{name: a}]\nstages: []", .unreadable, "partitions"),
        // A retry topic is its stage's own: not an input, output or journal, not another's.
        (
            "topics: [{name: a, partitions: 1}, {name: b, partitions: 1}]\nstages: [{name: s, consumerGroup: g, inputs: [a], outputs: [b]}, {name: t, consumerGroup: h, inputs: [a], retryTopic: b}]",
            .invalidRetryTopic, "'s'"
        ),
        (
            "topics: [{name: a, partitions: 1}]\nstages: [{name: s, consumerGroup: g, inputs: [a], retryTopic: a}]",
            .invalidRetryTopic, "'a'"
        ),
        (
            "topics: [{name: a, partitions: 1}]\nstages: [{name: s, consumerGroup: g, inputs: [a], retryTopic: g.delayed}]",
            .invalidRetryTopic, "g.delayed"
        ),
        (
            "topics: [{name: a, partitions: 1}]\nstages: [{name: s, consumerGroup: g, inputs: [a], retryTopic: r}, {name: t, consumerGroup: h, inputs: [a], retryTopic: r}]",
            .invalidRetryTopic, "both name 'r'"
        ),
    ])
    func refusesInvalidFiles(yaml: String, code: PipelineFileError.Code, detail: String) {
        #expect {
            try PipelineFile.parse(yaml: yaml)
        } throws: { error in
            guard let error = error as? PipelineFileError else { return false }
            return error.code == code && error.message.contains(detail)
        }
    }

    @Test func missingFileIsUnreadable() {
        #expect(throws: PipelineFileError(code: .unreadable, message: "")) {
            try PipelineFile.load(path: "/nonexistent/iap.yaml")
        }
    }

    @Test(arguments: [
        ("500ms", Duration.milliseconds(500)), ("30s", .seconds(30)), ("1.5s", .milliseconds(1500)),
        ("5m", .seconds(300)), ("24h", .seconds(86400)), ("7d", .seconds(604_800)),
    ])
    func parsesDurations(text: String, expected: Duration) throws {
        #expect(try PipelineDuration(text).duration == expected)
    }

    @Test(arguments: ["", "ms", "10", "10 s", "1w", "-5s", "s5"])
    func rejectsBadDurations(text: String) {
        #expect(throws: PipelineFileError(code: .invalidDuration, message: "")) {
            try PipelineDuration(text)
        }
    }

    /// Found by Fuzz/FuzzPipelineFile (minimised): a duration too long for `Duration` trapped
    /// while the file was decoded, instead of refusing the file.
    @Test func refusesDurationsTooLongForMilliseconds() throws {
        let yaml = """
            topics:
              - name:
                partitions: 1
            stages:
              - name:
                consumerGroup:
                inputs: []
                retry:
                 maxBackoff: 3000000000000000000m
            """
        #expect(throws: PipelineFileError(code: .invalidDuration, message: "")) {
            try PipelineFile.parse(yaml: yaml)
        }
        // The limit is 10^15 seconds: 11,574,074,074 days are just below it.
        #expect(throws: PipelineFileError(code: .invalidDuration, message: "")) {
            try PipelineDuration("11574074075d")
        }
        _ = try PipelineDuration("11574074074d")
    }
}
