public import Topology

/// A consumer group the lag exporter watches, and the topics whose every partition it reports.
public struct LagTarget: Sendable, Hashable {
    public var group: String
    public var topics: [String]

    public init(group: String, topics: [String]) {
        self.group = group
        self.topics = topics
    }

    /// Every consumer group the pipeline file names, with the topics its stage consumes (inputs
    /// and retry topic; a group named by two stages gets the union), in the file's order.
    public static func targets(of pipeline: PipelineFile) -> [LagTarget] {
        var targets: [LagTarget] = []
        for stage in pipeline.stages {
            if let index = targets.firstIndex(where: { $0.group == stage.consumerGroup }) {
                targets[index].topics += stage.consumedTopics.filter { !targets[index].topics.contains($0) }
            } else {
                targets.append(LagTarget(group: stage.consumerGroup, topics: stage.consumedTopics))
            }
        }
        return targets
    }

    /// Parses `GROUP=TOPIC[,TOPIC…]` (the `iap lag --group` form); nil when malformed.
    public init?(spec: String) {
        let parts = spec.split(separator: "=", maxSplits: 1)
        guard parts.count == 2, !parts[0].isEmpty else { return nil }
        let topics = parts[1].split(separator: ",").map(String.init)
        guard !topics.isEmpty else { return nil }
        self.init(group: String(parts[0]), topics: topics)
    }
}
