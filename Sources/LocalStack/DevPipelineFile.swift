import Pipeline
import Topology

/// Writes the dev variant of a pipeline file: same topics and stages, with the embedded
/// broker's partition count and laptop-sized backoffs and windows.
enum DevPipelineFile {
    static func render(_ file: PipelineFile, configuration: LocalStackConfiguration) -> String {
        var lines = ["# Derived by iap-dev dev up from \(configuration.pipelinePath); do not edit.", "topics:"]
        for topic in file.topics {
            lines.append("  - name: \(topic.name)")
            lines.append("    partitions: \(configuration.partitions)")
            lines.append("    replicationFactor: 1")
            lines.append("    cleanupPolicy: \(topic.cleanupPolicy.rawValue)")
        }
        lines.append("stages:")
        for stage in file.stages {
            lines.append("  - name: \(stage.name)")
            lines.append("    consumerGroup: \(stage.consumerGroup)")
            lines.append("    inputs: \(topics(stage.inputs, roles: stage.inputRoles))")
            lines.append("    outputs: \(topics(stage.outputs, roles: stage.outputRoles))")
            if let reject = stage.rejectTopic { lines.append("    rejectTopic: \(reject)") }
            if let audit = stage.auditTopic { lines.append("    auditTopic: \(audit)") }
            if let retryTopic = stage.retryTopic { lines.append("    retryTopic: \(retryTopic)") }
            lines.append("    maxInFlight: \(stage.maxInFlight)")
            lines.append("    retry:")
            lines.append("      initialBackoff: \(milliseconds(configuration.retryInitialBackoff))")
            lines.append("      maxBackoff: \(milliseconds(configuration.retryMaxBackoff))")
            lines.append("      multiplier: \(stage.retry.multiplier)")
            lines.append("      jitter: \(stage.retry.jitter)")
            lines.append("      maxAttempts: \(stage.retry.maxAttempts)")
            if !stage.windows.isEmpty {
                lines.append("    windows:")
                for name in stage.windows.keys.sorted() {
                    let window =
                        switch name {
                        case "unmatched": configuration.unmatchedWindow
                        case "orderGrace": configuration.orderGrace
                        default: stage.windows[name]!.duration
                        }
                    lines.append("      \(name): \(milliseconds(window))")
                }
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The roles when the file named them, else the list.
    private static func topics(_ topics: [String], roles: [String: String]) -> String {
        roles.isEmpty
            ? "[\(topics.joined(separator: ", "))]"
            : "{\(roles.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", "))}"
    }

    private static func milliseconds(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        return "\(seconds * 1000 + attoseconds / 1_000_000_000_000_000)ms"
    }
}
