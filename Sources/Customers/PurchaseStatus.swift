public import AppStoreModels
public import Contracts

/// What became of one published purchase event (D51): folded from the audit entries that name
/// its `eventId`, in any order and with repeats, at read time.
///
/// The event is terminal once every transaction Apple returned for it reached an end (granted,
/// rejected, unmatched, no effect), or once the event itself was refused or found to change
/// nothing. A dead-lettered event is not terminal: an operator replays it (docs/operations.md).
public struct PurchaseStatus: Codable, Hashable, Sendable {
    /// Where a purchase event or one of its transactions stands.
    public enum State: String, Codable, Hashable, Sendable {
        case pending, granted, rejected, unmatched, noEffect, deadLettered
    }

    /// One transaction of the event and where it ended.
    public struct TransactionOutcome: Codable, Hashable, Sendable {
        public var transactionId: String
        public var status: State
        /// Who it was granted or matched to.
        public var userId: String?
        public var effects: [EntitlementAction]?
        public var reason: String?
        public var detail: String?
        public var warnings: [MatchWarning]?
    }

    public var eventId: String
    public var bundleId: String
    public var status: State
    public var terminal: Bool
    public var reason: String?
    public var detail: String?
    /// The user the purchase was granted to (the first transaction granted).
    public var userId: String?
    public var transactions: [TransactionOutcome]
    /// The latest decision's time.
    public var updatedAt: Timestamp

    /// The status `entries` (every entry naming the event) add up to; nil when there are none.
    public init?(eventId: String, bundleId: String, entries: [AuditEntry]) {
        let entries = AuditEntries.withoutRedeliveries(AuditEntries.ordered(entries))
        guard let last = entries.last else { return nil }
        self.eventId = eventId
        self.bundleId = bundleId
        self.updatedAt = last.at
        self.transactions = []
        self.status = .pending
        self.terminal = false

        let eventLevel = entries.filter { $0.transactionId == nil || $0.transactions != nil }
        if let refused = eventLevel.last(where: { $0.decision == .rejected }) {
            self.settle(.rejected, terminal: true, by: refused)
            return
        }
        guard eventLevel.contains(where: { $0.decision == .verified }) else {
            if let nothing = eventLevel.last(where: { $0.decision == .noEffect }) {
                self.settle(.noEffect, terminal: true, by: nothing)
            } else if let dead = eventLevel.last(where: { $0.decision == .deadLettered }) {
                self.settle(.deadLettered, terminal: false, by: dead)
            }
            return
        }
        let expected = AuditEntries.unique(eventLevel.flatMap { $0.transactions ?? [] })
        self.transactions = expected.map { id in
            Self.outcome(of: id, entries.filter { $0.transactionId == id && $0.transactions == nil })
        }
        guard !self.transactions.isEmpty else {
            self.status = .noEffect
            self.terminal = true
            self.reason = "no_transactions"
            self.detail = "Apple returned no in-app purchase for this event"
            return
        }
        self.terminal = self.transactions.allSatisfy { Self.isTerminal($0.status) }
        let best = self.transactions.max { Self.rank($0.status) < Self.rank($1.status) }
        if self.terminal, let best {
            self.status = best.status
            self.reason = best.reason
            self.detail = best.detail
        }
        self.userId = self.transactions.first { $0.status == .granted }?.userId
    }

    private mutating func settle(_ state: State, terminal: Bool, by entry: AuditEntry) {
        self.status = state
        self.terminal = terminal
        self.reason = entry.reason
        self.detail = entry.detail
    }

    /// Where one transaction ended: its highest-ranked decision (a grant after an earlier
    /// `unmatched` outranks it), with the match's warnings and words when the end gives none.
    static func outcome(of transactionId: String, _ entries: [AuditEntry]) -> TransactionOutcome {
        let matched = entries.last { $0.decision == .matched }
        var outcome = TransactionOutcome(
            transactionId: transactionId, status: .pending, userId: matched?.userId, warnings: matched?.warnings)
        var bestRank = Int.min
        for entry in entries {
            guard let state = Self.state(of: entry.decision), Self.rank(state) > bestRank else { continue }
            bestRank = Self.rank(state)
            outcome.status = state
            outcome.userId = entry.userId ?? outcome.userId
            outcome.effects = entry.effects
            outcome.reason = entry.reason
            outcome.detail = entry.detail ?? matched?.detail
        }
        return outcome
    }

    private static func state(of decision: AuditDecision) -> State? {
        switch decision {
        case .changed: .granted
        case .rejected: .rejected
        case .noEffect: .noEffect
        case .unmatched: .unmatched
        case .deadLettered: .deadLettered
        default: nil
        }
    }

    /// A grant outranks everything; a refusal or "no effect" outranks `unmatched`, which a later
    /// order may still turn into a grant; a dead letter only outranks nothing.
    private static func rank(_ state: State) -> Int {
        switch state {
        case .granted: 5
        case .rejected: 4
        case .noEffect: 3
        case .unmatched: 2
        case .deadLettered: 1
        case .pending: 0
        }
    }

    private static func isTerminal(_ state: State) -> Bool { rank(state) >= 2 }
}

/// How the read models order and deduplicate audit entries.
enum AuditEntries {
    /// One entry per ``AuditEntry/auditId``, by time and, within a millisecond, by stage order.
    static func ordered(_ entries: [AuditEntry]) -> [AuditEntry] {
        var seen: Set<String> = []
        return entries.filter { seen.insert($0.auditId).inserted }.sorted {
            ($0.at, stageOrder($0.stage), $0.auditId) < ($1.at, stageOrder($1.stage), $1.auditId)
        }
    }

    /// Without the "no effect" of a stage that also decided otherwise about the same record: the
    /// runtime's duplicate of a redelivery (a crash after the outputs, before the offset), which
    /// must not end an event whose first delivery is still on its way. A duplicate of another
    /// event (the same receipt published again) has no other decision of that stage and stays.
    static func withoutRedeliveries(_ entries: [AuditEntry]) -> [AuditEntry] {
        func record(_ entry: AuditEntry) -> String { "\(entry.stage)|\(entry.transactionId ?? "")" }
        let decided = Set(entries.filter { $0.decision != .noEffect }.map(record))
        return entries.filter { $0.decision != .noEffect || !decided.contains(record($0)) }
    }

    static func unique(_ ids: [String]) -> [String] {
        var seen: Set<String> = []
        return ids.filter { seen.insert($0).inserted }
    }

    private static func stageOrder(_ stage: String) -> Int {
        ["intake", "verify", "match", "grant"].firstIndex(of: stage) ?? 4
    }
}
