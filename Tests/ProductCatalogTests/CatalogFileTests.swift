import AppStoreModels
import ProductCatalog
import Testing

@Suite struct CatalogFileTests {
    static let game = """
        apps:
          - bundleId: com.example.game
            products:
              - productId: com.example.game.pro.monthly
                type: autoRenewable
                entitlements: [pro]
              - productId: com.example.game.pro.yearly
                type: autoRenewable
                entitlements: [pro]
              - productId: com.example.game.pro.lifetime
                type: nonConsumable
                entitlements: [pro, badge]
              - productId: com.example.game.gems.100
                type: consumable
                credits: {gems: 100}
          - bundleId: com.example.other
            products:
              - productId: com.example.other.season
                type: nonRenewing
                entitlements: [season]
        """

    @Test func severalProductsUnlockOneEntitlementAndConsumablesCredit() throws {
        let catalog = try CatalogFile.parse(yaml: Self.game)
        let game = "com.example.game"
        for product in ["com.example.game.pro.monthly", "com.example.game.pro.yearly"] {
            #expect(catalog.grants(product, type: nil, bundleId: game).entitlements == ["pro"])
        }
        #expect(
            catalog.grants("com.example.game.pro.lifetime", type: nil, bundleId: game).entitlements == ["pro", "badge"])
        let gems = catalog.grants("com.example.game.gems.100", type: .consumable, bundleId: game)
        #expect(gems == ProductGrants(type: .consumable, entitlements: [], credits: ["gems": 100], listed: true))
        #expect(
            catalog.product("com.example.other.season", bundleId: "com.example.other")?.type == .nonRenewingSubscription
        )
        #expect(catalog.product("com.example.other.season", bundleId: game) == nil, "products belong to their app")
    }

    @Test func aProductTheCatalogDoesNotListIsItsOwnEntitlement() throws {
        let catalog = try CatalogFile.parse(yaml: Self.game)
        let unknown = catalog.grants(
            "com.example.game.new", type: .autoRenewableSubscription, bundleId: "com.example.game")
        #expect(
            unknown
                == ProductGrants(
                    type: .autoRenewableSubscription, entitlements: ["com.example.game.new"], credits: [:],
                    listed: false))
        let coins = ProductCatalog.empty.grants("coins.10", type: .consumable, bundleId: "com.example.game")
        #expect(coins == ProductGrants(type: .consumable, entitlements: [], credits: ["coins.10": 1], listed: false))
    }

    /// Each mistake is refused with its kind and a message that names the line and the product.
    @Test(arguments: [
        (
            "apps:\n  - bundleId: a.b\n    products:\n      - productId: p1\n        type: consumable\n        credit: {gems: 1}\n",
            CatalogError.Code.unknownField, "catalog.yaml:4: a product has no field 'credit'"
        ),
        (
            "apps:\n  - bundleId: a.b\n    products:\n      - productId: p1\n        type: nonConsumable\n        entitlements: [pro]\n      - productId: p1\n        type: nonConsumable\n        entitlements: [pro]\n",
            .duplicate, "catalog.yaml:7: product 'p1' is listed twice (also in a.b, line 4)"
        ),
        (
            "apps:\n  - bundleId: a.b\n    products:\n      - productId: p1\n        type: nonConsumable\n        entitlements: [pro]\n  - bundleId: c.d\n    products:\n      - productId: p1\n        type: consumable\n        credits: {gems: 5}\n",
            .conflictingType, "catalog.yaml:9: product 'p1' is consumable here and nonConsumable in a.b, line 4"
        ),
        (
            "apps:\n  - bundleId: a.b\n    products:\n      - productId: p1\n        type: consumable\n        entitlements: [pro]\n",
            .invalidValue, "product 'p1' is consumable and lists entitlements"
        ),
        (
            "apps:\n  - bundleId: a.b\n    products:\n      - productId: p1\n        type: consumable\n        credits: {gems: 0}\n",
            .invalidValue, "product 'p1' credits 0 'gems'"
        ),
        (
            "apps:\n  - bundleId: a.b\n    products:\n      - productId: p1\n        type: autoRenewable\n",
            .missingField, "product 'p1' unlocks no entitlement"
        ),
        (
            "apps:\n  - bundleId: a.b\n    products:\n      - productId: p1\n        type: subscription\n        entitlements: [pro]\n",
            .invalidValue, "product 'p1' has type 'subscription'; types: autoRenewable"
        ),
        (
            "apps:\n  - bundleId: a.b\n    products: []\n  - bundleId: a.b\n    products: []\n",
            .duplicate, "catalog.yaml:4: app 'a.b' is listed twice"
        ),
        ("apps: [1, 2]\n", .unreadable, "an app is a mapping of bundleId, products"),
        ("{apps: [\n", .unreadable, "catalog.yaml"),
    ])
    func refusesWithALineThatNamesTheProblem(yaml: String, code: CatalogError.Code, message: String) {
        #expect {
            _ = try CatalogFile.parse(yaml: yaml, source: "catalog.yaml")
        } throws: { error in
            guard let error = error as? CatalogError else { return false }
            #expect(error.code == code)
            #expect(error.message.contains(message), "\(error.message)")
            return error.code == code && error.message.contains(message)
        }
    }

    @Test func theShippedCatalogIsValid() throws {
        let catalog = try CatalogFile.load(path: "pipelines/catalog.yaml")
        #expect(!catalog.apps.isEmpty)
    }
}
