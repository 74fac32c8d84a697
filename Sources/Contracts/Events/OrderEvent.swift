/// An order a backend creates before the customer pays (`iap.order.v1` on `iap.orders`,
/// key: appAccountToken). Match indexes it by `appAccountToken` and `orderId`.
public struct OrderEvent: PipelineEvent, Hashable {
    public static let schema = "iap.order.v1"

    public private(set) var schema: String = Self.schema
    public var orderId: String
    public var userId: String
    /// The token the app passes to StoreKit; Apple signs it into the transaction.
    public var appAccountToken: String?
    public var productId: String
    public var quantity: Int?
    public var bundleId: String

    public init(
        orderId: String,
        userId: String,
        productId: String,
        bundleId: String,
        appAccountToken: String? = nil,
        quantity: Int? = nil
    ) {
        self.orderId = orderId
        self.userId = userId
        self.productId = productId
        self.bundleId = bundleId
        self.appAccountToken = appAccountToken
        self.quantity = quantity
    }
}
