import Foundation
import Testing

/// `iap config check` reads the product catalog the way it reads the pipeline file: the shipped
/// one passes and is summarized, a bad one stops the check with the line at fault (docs/catalog.md).
@Suite(.timeLimit(.minutes(2)))
struct CatalogCheckTests {
    static let binaries = ProcessInfo.processInfo.environment["IAP_BIN_DIR"] ?? DeploymentFiles.path(".build/debug")

    static func check(catalog: String) async throws -> (Int32, String) {
        try await Tools.run(
            binaries + "/iap", ["config", "check", "--stage", "match"],
            environment: [
                "PATH": "/usr/bin:/bin", "IAP_PIPELINE": DeploymentFiles.path("pipelines/iap.yaml"),
                "IAP_PRODUCT_CATALOG": catalog,
            ], timeout: .seconds(60))
    }

    @Test func theShippedCatalogPasses() async throws {
        let (code, output) = try await Self.check(catalog: DeploymentFiles.path("pipelines/catalog.yaml"))
        #expect(code == 0, "\(output)")
        #expect(
            output.contains("product catalog: \(DeploymentFiles.path("pipelines/catalog.yaml")) (2 apps, 13 products)"))
    }

    @Test func aProductInTwoTypesIsRefusedWithItsLine() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("catalog-\(UUID()).yaml").path
        defer { try? FileManager.default.removeItem(atPath: file) }
        try """
        apps:
          - bundleId: com.example.game
            products:
              - {productId: gems_100, type: consumable, credits: {gems: 100}}
          - bundleId: com.example.other
            products:
              - {productId: gems_100, type: nonConsumable, entitlements: [gems]}
        """.write(toFile: file, atomically: true, encoding: .utf8)
        let (code, output) = try await Self.check(catalog: file)
        #expect(code == 1, "\(output)")
        #expect(
            output.contains(
                "refused: CatalogError.conflictingType: \(file):7: product 'gems_100' is nonConsumable here and consumable in com.example.game, line 4"
            ), "\(output)")
    }
}
