public import AppStoreModels

/// What each product an app sells gives its buyer: the entitlements (access levels) a purchase
/// unlocks and, for a consumable, what one purchase credits.
///
/// Apple knows products; apps sell access. A "pro" access sold as monthly, yearly and lifetime
/// products is one entitlement with three products, and a pack of 100 gems is a credit of 100,
/// not a product a customer "has". Without a catalog (``empty``) every product is its own
/// entitlement, which is what `iap.entitlements` says on its own (docs/catalog.md).
public struct ProductCatalog: Sendable, Hashable {
    /// bundleId → productId → product.
    public let apps: [String: [String: CatalogProduct]]

    /// No catalog: every product is its own entitlement, every consumable credits itself.
    public static let empty = ProductCatalog(checked: [:])

    /// A catalog from products already checked by ``CatalogFile``.
    init(checked apps: [String: [String: CatalogProduct]]) {
        self.apps = apps
    }

    /// The product as the catalog lists it; nil when it does not (an unknown product).
    public func product(_ productId: String, bundleId: String) -> CatalogProduct? {
        apps[bundleId]?[productId]
    }

    /// What a purchase of `productId` gives: the catalog's entry, or, for a product the catalog
    /// does not list, the product itself as its own entitlement (a consumable credits one of
    /// itself per unit) so that nothing a customer paid for is dropped. `type` is the purchase's
    /// own; the catalog's wins for a product it lists.
    public func grants(_ productId: String, type: ProductType?, bundleId: String) -> ProductGrants {
        if let product = product(productId, bundleId: bundleId) {
            return ProductGrants(
                type: product.type, entitlements: product.entitlements, credits: product.credits, listed: true)
        }
        if type == .consumable {
            return ProductGrants(type: type, entitlements: [], credits: [productId: 1], listed: false)
        }
        return ProductGrants(type: type, entitlements: [productId], credits: [:], listed: false)
    }

    /// Whether the catalog lists any product of `bundleId`: an app it does not know gets every
    /// product as its own entitlement without a warning per product.
    public func knows(bundleId: String) -> Bool { apps[bundleId] != nil }
}

/// One product of the catalog.
public struct CatalogProduct: Sendable, Hashable {
    public let productId: String
    public let type: ProductType
    /// The access levels a purchase unlocks, while it is active; empty for a consumable.
    public let entitlements: [String]
    /// What one unit of a consumable purchase credits (currency → amount); empty otherwise.
    public let credits: [String: Int]

    public init(productId: String, type: ProductType, entitlements: [String], credits: [String: Int]) {
        self.productId = productId
        self.type = type
        self.entitlements = entitlements
        self.credits = credits
    }
}

/// What a purchase of one product gives, per ``ProductCatalog/grants(_:type:bundleId:)``.
public struct ProductGrants: Sendable, Hashable {
    /// The catalog's type of a listed product, the purchase's own for one it does not list.
    public let type: ProductType?
    public let entitlements: [String]
    /// Per unit purchased (a transaction's `quantity` multiplies it).
    public let credits: [String: Int]
    /// False for a product the catalog does not list (granted under its own id).
    public let listed: Bool

    public init(type: ProductType?, entitlements: [String], credits: [String: Int], listed: Bool) {
        self.type = type
        self.entitlements = entitlements
        self.credits = credits
        self.listed = listed
    }
}
