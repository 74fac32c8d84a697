/// How match ties transactions to users.
public struct MatchConfiguration: Sendable, Hashable {
    /// How long a transaction without order or user waits before going to `iap.unmatched`.
    public var waitWindow: Duration
    /// When the app derives `appAccountToken` from its user id instead of (or besides) creating
    /// orders: lets a signed token name its user without an order. nil: tokens name orders only.
    public var tokenScheme: AppAccountTokenScheme?

    public init(waitWindow: Duration = .seconds(24 * 3600), tokenScheme: AppAccountTokenScheme? = nil) {
        self.waitWindow = waitWindow
        self.tokenScheme = tokenScheme
    }
}
