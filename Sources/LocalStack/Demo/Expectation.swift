/// One end state a demo scenario expects.
public enum Expectation: Sendable, Hashable, CustomStringConvertible {
    /// Exactly one change `action` for the transaction (by distinct eventId), for this user.
    case entitlement(
        transactionId: String, action: String, userId: String, matchedBy: String? = nil, environment: String? = nil)
    /// The publisher's event was refused with this reason code.
    case rejected(eventId: String, reason: String)
    /// The transaction went to `iap.unmatched`.
    case unmatched(transactionId: String)
    /// Nothing was ever granted to this user (checked once everything else settled).
    case nothingFor(userId: String)

    public var description: String {
        switch self {
        case .entitlement(let id, let action, let user, let matchedBy, let environment):
            "\(action) of \(id) for \(user)" + (matchedBy.map { " by \($0)" } ?? "")
                + (environment.map { " in \($0)" } ?? "")
        case .rejected(let eventId, let reason): "event \(eventId) rejected as \(reason)"
        case .unmatched(let id): "\(id) unmatched"
        case .nothingFor(let user): "nothing granted to \(user)"
        }
    }

    /// Whether `outcomes` shows this end state; `nil` while it can still change.
    func check(_ outcomes: Outcomes, settled: Bool) -> Check {
        switch self {
        case .entitlement(let id, let action, let user, let matchedBy, let environment):
            let matching = outcomes.distinctEntitlements.filter { $0.transactionId == id && $0.action == action }
            guard let first = matching.first else { return .pending }
            if matching.count > 1 { return .failed("\(matching.count) distinct \(action) events for \(id)") }
            if first.userId != user { return .failed("\(action) of \(id) went to \(first.userId), not \(user)") }
            if let matchedBy, first.matchedBy != matchedBy {
                return .failed("\(id) matched by \(first.matchedBy ?? "nil"), not \(matchedBy)")
            }
            if let environment, first.environment != environment {
                return .failed("\(id) in \(first.environment ?? "nil"), not \(environment)")
            }
            return .met
        case .rejected(let eventId, let reason):
            let matching = outcomes.rejected.filter { $0.eventId == eventId }
            guard let first = matching.first else { return .pending }
            return first.reason == reason
                ? .met : .failed("event \(eventId) rejected as \(first.reason), not \(reason)")
        case .unmatched(let id):
            return outcomes.unmatched.contains { $0.transactionId == id } ? .met : .pending
        case .nothingFor(let user):
            if let granted = outcomes.entitlements.first(where: { $0.userId == user }) {
                return .failed("\(granted.action) of \(granted.transactionId) was granted to \(user)")
            }
            return settled ? .met : .pending
        }
    }

    enum Check: Equatable {
        case met
        case pending
        case failed(String)
    }
}
