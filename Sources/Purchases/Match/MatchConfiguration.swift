/// How match ties transactions to users.
public struct MatchConfiguration: Sendable, Hashable {
    /// How long a transaction without order or user waits before going to `iap.unmatched`.
    public var waitWindow: Duration
    /// When the app derives `appAccountToken` from its user id instead of (or besides) creating
    /// orders: lets a signed token name its user without an order. nil: tokens name orders only.
    public var tokenScheme: AppAccountTokenScheme?
    /// How long a transaction whose signed token or orderId hint names an order that has not
    /// arrived yet waits for it before falling back to the purchase's owner or the publisher's
    /// userId (decision D11). Backends often publish the order and the purchase concurrently;
    /// waiting briefly keeps the order's user and orderId on the entitlement. Zero never waits.
    public var orderGrace: Duration

    public init(
        waitWindow: Duration = .seconds(24 * 3600), tokenScheme: AppAccountTokenScheme? = nil,
        orderGrace: Duration = .seconds(30)
    ) {
        self.waitWindow = waitWindow
        self.tokenScheme = tokenScheme
        self.orderGrace = orderGrace
    }
}
