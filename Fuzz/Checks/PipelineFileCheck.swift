import Topology

/// Any text given as a pipeline file must either be refused with a `PipelineFileError` or give a
/// file that the CLI and the workers can use without trapping.
///
/// After a successful parse it runs what they run next (the topic list `iap topics create`
/// derives, each stage's topics, every retry delay the policy allows) and checks the numbers
/// they convert: partitions and replication factors become Kafka's `Int32`s, and durations
/// become 64-bit milliseconds (`retention.ms`, Redis TTLs). A number the validation let through
/// that would trap there is a finding. True when the file parsed.
@discardableResult
public func checkPipelineFile(_ bytes: [UInt8]) throws(FuzzFinding) -> Bool {
    let yaml = String(decoding: bytes, as: UTF8.self)
    guard let file = try? PipelineFile.parse(yaml: yaml, source: "fuzz input") else { return false }
    for topic in file.allTopics {
        guard Int32(exactly: topic.partitions) != nil, Int32(exactly: topic.replicationFactor) != nil else {
            throw FuzzFinding(
                "topic \(topic.name): partitions \(topic.partitions) or replication factor "
                    + "\(topic.replicationFactor) is not an Int32")
        }
        if let retention = topic.retention {
            try checkMilliseconds(retention.duration, "topic \(topic.name) retention")
        }
    }
    for stage in file.stages {
        _ = try? file.topics(for: stage.name)
        try checkMilliseconds(stage.retry.initialBackoff, "stage \(stage.name) initialBackoff")
        try checkMilliseconds(stage.retry.maxBackoff, "stage \(stage.name) maxBackoff")
        for (name, window) in stage.windows {
            try checkMilliseconds(window.duration, "stage \(stage.name) window \(name)")
        }
        // Bounded: a policy may allow Int.max attempts; the delay is capped long before that.
        for attempt in 1...min(stage.retry.maxAttempts, 64) {
            try checkMilliseconds(
                stage.retry.delay(forAttempt: attempt), "stage \(stage.name) delay of attempt \(attempt)")
        }
    }
    return true
}

private func checkMilliseconds(_ duration: Duration, _ what: String) throws(FuzzFinding) {
    guard !duration.components.seconds.multipliedReportingOverflow(by: 1000).overflow else {
        throw FuzzFinding("\(what): \(duration) does not fit 64-bit milliseconds")
    }
}
