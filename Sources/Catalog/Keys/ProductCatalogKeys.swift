public import Settings

/// Where the product catalog is (docs/catalog.md). Unset: no catalog, every product is its own
/// entitlement. Set: the file must be readable and valid, so a typo in the path is refused
/// instead of silently meaning "no catalog".
public enum ProductCatalogKeys {
    public static let file = Setting<String>.text(
        "IAP_PRODUCT_CATALOG",
        "The product catalog file (products → entitlements and credits, docs/catalog.md); unset: every product is its own entitlement"
    )

    public static let section = SettingsSection(
        "Product catalog", readBy: "iap-api, iap config check", [file.descriptor])
}
