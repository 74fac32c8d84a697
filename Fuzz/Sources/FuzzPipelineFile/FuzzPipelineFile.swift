import Topology

/// libFuzzer entry point: any text given as a pipeline file must either be refused with a
/// `PipelineFileError` or give a file that the CLI and the workers can use without trapping.
///
/// After a successful parse it runs what they run next (the topic list `iap topics create`
/// derives, each stage's topics, every retry delay the policy allows) and checks the numbers
/// they convert: partitions and replication factors become Kafka's `Int32`s, and durations
/// become 64-bit milliseconds (`retention.ms`, Redis TTLs). A number the validation let through
/// that would trap there is a finding, reported with `fatalError` so libFuzzer keeps the input.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPipelineFile(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let yaml = String(decoding: UnsafeRawBufferPointer(start: start, count: count), as: UTF8.self)
    guard let file = try? PipelineFile.parse(yaml: yaml, source: "fuzz input") else { return 0 }
    for topic in file.allTopics {
        guard Int32(exactly: topic.partitions) != nil, Int32(exactly: topic.replicationFactor) != nil else {
            fatalError("topic \(topic.name): partitions \(topic.partitions) or replication factor \(topic.replicationFactor) is not an Int32")
        }
        if let retention = topic.retention { checkMilliseconds(retention.duration, "topic \(topic.name) retention") }
    }
    for stage in file.stages {
        _ = try? file.topics(for: stage.name)
        checkMilliseconds(stage.retry.initialBackoff, "stage \(stage.name) initialBackoff")
        checkMilliseconds(stage.retry.maxBackoff, "stage \(stage.name) maxBackoff")
        for (name, window) in stage.windows { checkMilliseconds(window.duration, "stage \(stage.name) window \(name)") }
        // Bounded: a policy may allow Int.max attempts; the delay is capped long before that.
        for attempt in 1...min(stage.retry.maxAttempts, 64) {
            checkMilliseconds(stage.retry.delay(forAttempt: attempt), "stage \(stage.name) delay of attempt \(attempt)")
        }
    }
    return 0
}

private func checkMilliseconds(_ duration: Duration, _ what: String) {
    guard !duration.components.seconds.multipliedReportingOverflow(by: 1000).overflow else {
        fatalError("\(what): \(duration) does not fit 64-bit milliseconds")
    }
}
