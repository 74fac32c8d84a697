import Foundation
import Pipeline
import Settings
import Testing
import Topology
import WorkerCommon
import Workers

@Suite(.timeLimit(.minutes(2))) struct StageLayoutTests {
    static let shipped = SettingsTableTests.repository.appendingPathComponent("pipelines/iap.yaml").path

    func file(match: String, topics: String = "") throws -> PipelineFile {
        try PipelineFile.parse(
            yaml: """
                topics:
                  - {name: v, partitions: 1, retention: 7d}
                  - {name: o, partitions: 1, cleanupPolicy: compact}
                  - {name: m, partitions: 1}
                  - {name: u, partitions: 1}
                  - {name: w, partitions: 1, cleanupPolicy: compact}
                \(topics)
                stages:
                  - \(match)
                """)
    }

    func refusal(_ file: PipelineFile) -> PipelineFileError.Code? {
        do {
            try StageLayout.of(.match).check(try file.stage(named: "match"), in: file)
            return nil
        } catch {
            return error.code
        }
    }

    @Test func theShippedFileSatisfiesEveryStage() throws {
        let file = try PipelineFile.load(path: Self.shipped)
        for stage in StageName.allCases {
            try StageLayout.of(stage).check(try file.stage(named: stage.rawValue), in: file)
        }
        #expect(try file.stage(named: "match").output("unmatched") == "iap.unmatched")
    }

    @Test func rolesAreRequiredByName() throws {
        let byPosition = try file(match: "{name: match, consumerGroup: g, inputs: [v, o], outputs: [m, u, w]}")
        #expect(refusal(byPosition) == .missingRole)
        let named = try file(
            match:
                "{name: match, consumerGroup: g, inputs: {verified: v, orders: o}, outputs: {matched: m, unmatched: u, ownership: w}}"
        )
        #expect(refusal(named) == nil)
        #expect(try named.stage(named: "match").inputs == ["v", "o"], "the file's order is kept")
    }

    /// Bindings must outlive the purchase (renewals and refunds come years later): a state topic
    /// with a time retention would forget them (decision D35).
    @Test func aStateTopicThatIsNotCompactedIsRefused() throws {
        let file = try file(
            match:
                "{name: match, consumerGroup: g, inputs: {verified: v, orders: o}, outputs: {matched: m, unmatched: u, ownership: u}}"
        )
        #expect(refusal(file) == .contradiction)
    }

    /// Match reads and writes a purchase's binding one record at a time per key; a retry through
    /// a topic of its own could run beside the key's next record on another replica (D67).
    @Test func aStageThatKeepsStatePerKeyMayNotHaveARetryTopic() throws {
        let file = try file(
            match:
                "{name: match, consumerGroup: g, inputs: {verified: v, orders: o}, outputs: {matched: m, unmatched: u, ownership: w}, retryTopic: g.retry}"
        )
        #expect(refusal(file) == .invalidRetryTopic)
        #expect(StageLayout.of(.grant).keyedState && StageLayout.of(.state).keyedState)
        #expect(!StageLayout.of(.confirm).keyedState)
    }

    /// The customer state's input is the backends' topic, where a re-published retry reaches
    /// every reader, and match's orders are compacted, where a late copy replaces a newer order:
    /// those retry in place (D68, D69). Match's verified transactions and the other stages,
    /// whose retries wait for Apple, schedule theirs.
    @Test func ordersAndTheCustomerStateRetryInPlaceTheRestIsScheduled() {
        let inPlace = StageName.allCases.filter { !StageLayout.of($0).retriesInPlace.isEmpty }
        #expect(inPlace == [.match, .state])
        #expect(StageLayout.of(.match).retriesInPlace == ["orders"])
        #expect(StageLayout.of(.state).retriesInPlace == ["entitlements"])
    }

    @Test func aMistypedWindowIsRefused() throws {
        let file = try file(
            match: """
                {name: match, consumerGroup: g, inputs: {verified: v, orders: o}, outputs: {matched: m, unmatched: u, ownership: w}, windows: {unmached: 1h}}
                """)
        #expect(refusal(file) == .unknownWindow)
    }

    @Test(arguments: [
        "windows: {unmatched: 9d}",  // outlives the parked transaction
        "windows: {unmatched: 10s, orderGrace: 1m}",  // the grace is longer than the wait
    ])
    func durationsThatDoNotOutlastEachOtherAreRefused(_ extra: String) throws {
        let file = try file(
            match:
                "{name: match, consumerGroup: g, inputs: {verified: v, orders: o}, outputs: {matched: m, unmatched: u, ownership: w}, \(extra)}"
        )
        #expect(refusal(file) == .contradiction)
    }

    /// A record can come again as long as its topic keeps it or its retries and waits last;
    /// its "done" marker must outlive that.
    @Test func theIdempotencyRetentionOutlivesEveryRedelivery() throws {
        let file = try PipelineFile.load(path: Self.shipped)
        let day: Duration = .seconds(24 * 3600)
        #expect(StageLayout.idempotencyRetention(of: try file.stage(named: "intake"), in: file) == day * 9)
        let longKept = try self.file(
            match: "{name: match, consumerGroup: g, inputs: {verified: long, orders: o}}",
            topics: "  - {name: long, partitions: 1, retention: 30d}")
        #expect(
            StageLayout.idempotencyRetention(of: try longKept.stage(named: "match"), in: longKept) == day * 31,
            "the input keeps 30 days")
        let slow = try self.file(
            match:
                "{name: match, consumerGroup: g, inputs: {verified: v, orders: o}, retry: {initialBackoff: 1h, maxBackoff: 1d, maxAttempts: 20}}"
        )
        let spec = try slow.stage(named: "match")
        #expect(StageLayout.idempotencyRetention(of: spec, in: slow) >= spec.retry.horizon + day)
    }

    @Test func aStageRefusesToStartWithoutTheKeysItNeeds() {
        #expect { try StageSettings(stage: .verify, environment: ["IAP_APPLE_KEY_ID": "k"]) } throws: { error in
            (error as? SettingsError)?.code == .missing && (error as? SettingsError)?.key == "IAP_BUNDLE_ID"
        }
        #expect(throws: Never.self) { try StageSettings(stage: .intake, environment: [:]) }
        #expect { try StageSettings(stage: .match, environment: ["IAP_TOKEN_SCHEME": "md5"]) } throws: { error in
            (error as? SettingsError)?.key == "IAP_TOKEN_SCHEME"
        }
    }
}
