import Foundation
import Kafka

/// The demo's mixed batch and the end state each event must reach.
struct DemoBatch {
    let records: [KafkaRecord]
    /// eventIds that must be enriched exactly once (valid, flaky and duplicated ones).
    let expectedEnriched: Set<String>
    let flaky: Set<String>
    let expectedRejects: [String: Int]

    init(count: Int) {
        var records: [KafkaRecord] = []
        var enriched: Set<String> = []
        var flaky: Set<String> = []
        var rejects: [String: Int] = [:]
        for index in 0..<count {
            let user = "u-\(index % 97)"
            let eventId = "evt-\(index)"
            switch index % 50 {
            case 7:  // not JSON at all
                records.append(KafkaRecord(topic: "demo.events", key: user, value: "purchase \(index) <html>"))
                rejects["malformed_event", default: 0] += 1
            case 13:  // a schema this stage does not read
                records.append(KafkaRecord(topic: "demo.events", key: user, value: #"{"schema":"demo.event.v9","eventId":"\#(eventId)"}"#))
                rejects["unsupported_schema", default: 0] += 1
            case 21:  // JSON with a required field missing
                records.append(KafkaRecord(topic: "demo.events", key: user, value: #"{"schema":"demo.event.v1","eventId":"\#(eventId)","amount":1}"#))
                rejects["malformed_event", default: 0] += 1
            default:
                let isFlaky = index % 50 == 3 || index % 50 == 33
                let event = #"{"schema":"demo.event.v1","eventId":"\#(eventId)","userId":"\#(user)","amount":\#(Double(index % 40) + 0.99),"flaky":\#(isFlaky)}"#
                records.append(KafkaRecord(topic: "demo.events", key: user, value: event))
                if index % 25 == 11 { records.append(KafkaRecord(topic: "demo.events", key: user, value: event)) }  // published twice
                enriched.insert(eventId)
                if isFlaky { flaky.insert(eventId) }
            }
        }
        self.records = records
        self.expectedEnriched = enriched
        self.flaky = flaky
        self.expectedRejects = rejects
    }

    func describe() -> String {
        let rejects = expectedRejects.values.reduce(0, +)
        return "\(expectedEnriched.count) valid (\(flaky.count) flaky, \(records.count - expectedEnriched.count - rejects) duplicated), \(rejects) invalid"
    }

    func summarize(_ observed: [KafkaMessage], lag: [ConsumerLag]) -> DemoSummary {
        var summary = DemoSummary()
        summary.published = records.count
        summary.expectedEnriched = expectedEnriched.count
        summary.expectedRejects = expectedRejects
        var seen: [String: Int] = [:]
        for message in observed {
            guard let object = try? JSONSerialization.jsonObject(with: Data(message.value)) as? [String: Any] else { continue }
            if message.topic == DemoStage.outputTopic, let eventId = object["eventId"] as? String {
                seen[eventId, default: 0] += 1
                if (object["attempts"] as? Int ?? 1) > 1 { summary.retried += 1 }
            } else if let reason = object["reason"] as? String {
                summary.rejects[reason, default: 0] += 1
            }
        }
        summary.enriched = seen.count
        summary.duplicatesEmitted = seen.values.reduce(0) { $0 + max(0, $1 - 1) }
        summary.missing = expectedEnriched.subtracting(seen.keys).count
        summary.retriedAsExpected = flaky.count
        // Before the group's first commit everything up to the high watermark is pending.
        summary.lag = lag.reduce(0) { $0 + ($1.committedOffset == nil ? $1.highWatermark : $1.lag) }
        return summary
    }
}

struct DemoSummary: Encodable {
    var published = 0
    var expectedEnriched = 0
    var enriched = 0
    var duplicatesEmitted = 0
    var missing = 0
    var retried = 0
    var retriedAsExpected = 0
    var rejects: [String: Int] = [:]
    var expectedRejects: [String: Int] = [:]
    var lag: Int64 = 0

    var correct: Bool { missing == 0 && duplicatesEmitted == 0 && rejects == expectedRejects && retried == retriedAsExpected }
    var settled: Bool { correct && lag == 0 }

    var progressLine: String {
        "enriched \(enriched)/\(expectedEnriched)  retried \(retried)/\(retriedAsExpected)  rejected \(rejects.values.reduce(0, +))/\(expectedRejects.values.reduce(0, +))  lag \(lag)"
    }

    func report(json: Bool) -> String {
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            var copy = self
            copy.lag = lag
            struct Output: Encodable { var summary: DemoSummary; var ok: Bool }
            return (try? encoder.encode(Output(summary: copy, ok: correct))).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
        }
        let reasons = rejects.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        return """
            published:   \(published) records
            enriched:    \(enriched) of \(expectedEnriched) events, \(duplicatesEmitted) emitted twice, \(missing) missing
            retried:     \(retried) events succeeded on a later attempt (expected \(retriedAsExpected))
            rejected:    \(reasons)
            result:      \(correct ? "OK — every event reached its expected end state" : "FAILED")
            """
    }
}
