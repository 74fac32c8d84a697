public import Pipeline
import Purchases

/// What each stage needs from its pipeline-file entry beyond what every stage has: topics by
/// role, the windows it reads, and the durations that must outlast one another. Checked when a
/// worker starts and by `iap config check`, so a typo is refused instead of leaving a default
/// silently in force.
public struct StageLayout: Sendable {
    /// Output roles the stage writes to.
    public var outputs: [String]
    /// Input roles the stage tells apart (a stage that reads all inputs alike names none).
    public var inputs: [String] = []
    /// Window names the stage reads, with their defaults.
    public var windows: [String: Duration] = [:]

    public static func of(_ stage: StageName) -> StageLayout {
        switch stage {
        case .intake: StageLayout(outputs: ["verify"])
        case .verify: StageLayout(outputs: ["verified"])
        case .match:
            StageLayout(
                outputs: ["matched", "unmatched"], inputs: ["verified", "orders"],
                windows: ["unmatched": MatchConfiguration().waitWindow, "orderGrace": MatchConfiguration().orderGrace]
            )
        case .grant: StageLayout(outputs: ["entitlements"])
        case .webhook: StageLayout(outputs: [])
        }
    }

    /// How long the runtime keeps a record's "done" marker (``WorkerConfiguration``).
    static let idempotencyRetention = WorkerConfiguration.defaultIdempotencyRetention
    /// How long match keeps a parked transaction.
    static let waitingRetention = RedisWaitingTransactionStore.defaultRetention

    /// Refuses a missing role, an unknown window and durations that do not outlast each other.
    public func check(_ spec: StageSpec, in file: PipelineFile) throws(PipelineFileError) {
        for role in outputs { _ = try spec.output(role) }
        for role in inputs { _ = try spec.input(role) }
        for name in spec.windows.keys.sorted() where windows[name] == nil {
            let known = windows.isEmpty ? "none" : windows.keys.sorted().joined(separator: ", ")
            throw PipelineFileError(code: .unknownWindow, message: "stage '\(spec.name)' has no window '\(name)' (its windows: \(known))")
        }
        let window = { (name: String) in spec.windows[name]?.duration ?? windows[name] ?? .zero }
        if windows["unmatched"] != nil {
            try outlasts(Self.waitingRetention, "match's parked-transaction retention (8d)", window("unmatched"), "windows.unmatched", spec)
            try outlasts(window("unmatched"), "windows.unmatched", window("orderGrace"), "windows.orderGrace", spec)
        }
        // A record may come again until its input topic drops it (a group whose offsets expired
        // replays from the oldest retained record) or until its last retry or wait ends; its
        // "done" marker, written after its first success, must still be there, or a side effect
        // could happen twice.
        let retained = spec.inputs.compactMap { input in file.topics.first { $0.name == input }?.retention?.duration }.max() ?? .zero
        let lastDelivery = max(retained, spec.retry.horizon + window("unmatched"))
        try outlasts(
            Self.idempotencyRetention, "the idempotency retention (9d)", lastDelivery,
            "the inputs' retention and the retry horizon plus the unmatched window", spec
        )
    }

    private func outlasts(_ long: Duration, _ longName: String, _ short: Duration, _ shortName: String, _ spec: StageSpec) throws(PipelineFileError) {
        guard long >= short else {
            throw PipelineFileError(
                code: .contradiction, message: "stage '\(spec.name)': \(longName) must outlast \(shortName) (\(long) < \(short))"
            )
        }
    }
}
