/// Grant's state per purchase (originalTransactionId).
///
/// `iap.matched` is keyed by originalTransactionId, so one lane reads and writes a purchase's
/// state at a time: a plain get/set is enough, no compare-and-set.
public protocol EntitlementStateStore: Sendable {
    func state(originalTransactionId: String) async throws -> EntitlementState?
    func save(_ state: EntitlementState) async throws
}

/// In-process ``EntitlementStateStore``.
public actor InMemoryEntitlementStateStore: EntitlementStateStore {
    private var states: [String: EntitlementState] = [:]

    public init() {}

    public func state(originalTransactionId: String) -> EntitlementState? {
        self.states[originalTransactionId]
    }

    public func save(_ state: EntitlementState) {
        self.states[state.originalTransactionId] = state
    }
}
