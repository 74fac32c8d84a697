/// The topics the programs around the stages reach: backends publish to `purchases`, `orders`
/// and `notifications`, and read the pipeline's results from `entitlements`, `unmatched` and
/// `rejected`, and the audit trail from `audit`. Code names them by role and ``PipelineFile/topic(_:)`` finds them in the pipeline
/// file, through the stage that reads or writes them, so a topic is renamed in the file alone.
public enum TopicRole: String, Sendable, CaseIterable {
    case purchases, orders, notifications, entitlements, unmatched, rejected, audit

    /// The name `pipelines/iap.yaml` gives the topic: the one place code spells a topic name,
    /// for what has no pipeline file at hand (a stage that names no reject topic, the values
    /// tests make). A test holds these to the shipped file.
    public var defaultName: String {
        switch self {
        case .purchases: "iap.purchases"
        case .orders: "iap.orders"
        case .notifications: "iap.notifications"
        case .entitlements: "iap.entitlements"
        case .unmatched: "iap.unmatched"
        case .rejected: "iap.rejected"
        case .audit: "iap.audit"
        }
    }
}

extension PipelineFile {
    /// The stage `name`.
    public func stage(_ name: StageName) throws(PipelineFileError) -> StageSpec {
        try stage(named: name.rawValue)
    }

    /// The topic playing `role`: intake's `purchases` and `notifications` inputs, match's
    /// `orders` input and `unmatched` output, grant's `entitlements` output, and the topic
    /// intake rejects to (every stage of the shipped file rejects to the same one), and the audit
    /// trail the customer state stage reads (every stage of the shipped file appends to it).
    public func topic(_ role: TopicRole) throws(PipelineFileError) -> String {
        switch role {
        case .purchases: try stage(.intake).input("purchases")
        case .notifications: try stage(.intake).input("notifications")
        case .orders: try stage(.match).input("orders")
        case .unmatched: try stage(.match).output("unmatched")
        case .entitlements: try stage(.grant).output("entitlements")
        case .rejected: try stage(.intake).rejects
        case .audit: try stage(.state).input("audit")
        }
    }
}

extension StageSpec {
    /// Where the stage's refused events go: its `rejectTopic`, else the shipped file's.
    public var rejects: String { rejectTopic ?? TopicRole.rejected.defaultName }
}
