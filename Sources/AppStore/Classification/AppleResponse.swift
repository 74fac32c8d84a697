public import AppStoreModels
public import Foundation

/// Everything that can come back from a call to Apple, in one shape for the classifier.
public enum AppleResponse: Sendable {
    /// An App Store Server API HTTP response; `retryAfter` is the raw `Retry-After` header.
    case serverAPI(status: Int, body: [UInt8], retryAfter: String?)
    /// A legacy verifyReceipt HTTP response.
    case verifyReceipt(status: Int, body: [UInt8])
    /// No HTTP response at all.
    case transportFailure(TransportFailure)
    /// A local JWS verification refusal.
    case verification(VerificationError)
}

/// Why no HTTP response arrived.
public enum TransportFailure: Sendable, Hashable {
    case timeout
    case connection(String)
}

/// The call the response belongs to.
public struct ClassificationContext: Sendable {
    /// The environment the call was sent to.
    public var environment: AppStoreEnvironment
    /// Whether the pipeline may fall back to sandbox (App Review tests production builds
    /// against sandbox).
    public var sandboxAllowed: Bool
    /// The call already went to the other environment once; a second miss is final.
    public var switchedEnvironment: Bool
    public var now: Date

    public init(
        environment: AppStoreEnvironment = .production,
        sandboxAllowed: Bool = true,
        switchedEnvironment: Bool = false,
        now: Date = Date()
    ) {
        self.environment = environment
        self.sandboxAllowed = sandboxAllowed
        self.switchedEnvironment = switchedEnvironment
        self.now = now
    }
}
