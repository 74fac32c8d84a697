public import AppStoreModels

/// What the publisher of a purchase said about it. Hints steer matching and diagnostics; they
/// never override what Apple signed. Notifications carry none.
public struct PublisherHints: Codable, Hashable, Sendable {
    public var eventId: String?
    public var userId: String?
    public var orderId: String?
    /// Canonical (lowercase) UUID.
    public var appAccountToken: String?
    public var environment: AppStoreEnvironment?

    public init(
        eventId: String? = nil,
        userId: String? = nil,
        orderId: String? = nil,
        appAccountToken: String? = nil,
        environment: AppStoreEnvironment? = nil
    ) {
        self.eventId = eventId
        self.userId = userId
        self.orderId = orderId
        self.appAccountToken = appAccountToken
        self.environment = environment
    }
}
