/// Which transactions had their consumption answered, for the length of Apple's window.
///
/// Grant's record guard already runs each notification once, but a retry after Apple's 202
/// (grant failed later in the record) and Apple's repeats of a request under a new
/// notificationUUID would both answer again: the ledger, written right after the 202, is what
/// makes the answer once per request.
public protocol ConsumptionLedger: Sendable {
    /// The notificationUUID whose answer for `transactionId` is still on record, if any.
    func answer(transactionId: String) async throws -> String?
    /// Notes the answer for `transactionId`, kept for `window`.
    func recordAnswer(transactionId: String, notificationUUID: String, window: Duration) async throws
}

/// In-process ``ConsumptionLedger`` (tests); entries do not expire.
public actor InMemoryConsumptionLedger: ConsumptionLedger {
    private var answers: [String: String] = [:]

    public init() {}

    public func answer(transactionId: String) -> String? { self.answers[transactionId] }

    public func recordAnswer(transactionId: String, notificationUUID: String, window: Duration) {
        self.answers[transactionId] = notificationUUID
    }
}
