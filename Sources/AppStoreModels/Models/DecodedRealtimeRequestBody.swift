/// A Retention Messaging API real-time request as Apple signs it (the `signedPayload` Apple posts
/// when it is about to show a customer a retention message), as Apple's libraries name it.
public struct DecodedRealtimeRequestBody: Codable, Hashable, Sendable, SignedPayload {
    public var originalTransactionId: String?
    public var appAppleId: Int64?
    public var productId: String?
    /// The customer's locale, e.g. `en-US`: the message's language.
    public var userLocale: String?
    /// A UUID; the response names it.
    public var requestIdentifier: String?
    public var signedDate: Timestamp?
    public var environment: AppStoreEnvironment?

    public init() {}

    public var signingDate: Timestamp? { self.signedDate }
}
