public import AppStoreModels
import Foundation
import Yams

/// The catalog file (`IAP_CATALOG`, e.g. `pipelines/catalog.yaml`; docs/catalog.md):
///
/// ```yaml
/// apps:
///   - bundleId: com.example.game
///     products:
///       - productId: com.example.game.pro.monthly
///         type: autoRenewable
///         entitlements: [pro]
///       - productId: com.example.game.gems.100
///         type: consumable
///         credits: {gems: 100}
/// ```
///
/// Strict on purpose: an unknown field, a product listed twice or in two types, a consumable
/// that unlocks access or a subscription that credits coins is refused with the line it is on.
/// A catalog mistake is a customer without what they paid for, found in support tickets.
public enum CatalogFile {
    /// The `type` values, and the App Store product type each stands for.
    public static let types: KeyValuePairs<String, ProductType> = [
        "autoRenewable": .autoRenewableSubscription, "nonRenewing": .nonRenewingSubscription,
        "nonConsumable": .nonConsumable, "consumable": .consumable, "app": .app,
    ]

    /// Reads and checks the file at `path`.
    public static func load(path: String) throws(CatalogError) -> ProductCatalog {
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw CatalogError(code: .unreadable, message: "\(path): \(error.localizedDescription)")
        }
        return try parse(yaml: text, source: path)
    }

    /// Parses and checks YAML text; `source` names it in error messages.
    public static func parse(yaml: String, source: String = "catalog") throws(CatalogError) -> ProductCatalog {
        let file: Document
        do {
            file = try YAMLDecoder().decode(Document.self, from: yaml, userInfo: [Document.sourceKey: source])
        } catch {
            throw specificError(in: error) ?? CatalogError(code: .unreadable, message: "\(source): \(error)")
        }
        return try file.catalog(source: source)
    }

    // MARK: - The document

    struct Document: Decodable {
        static let sourceKey = CodingUserInfoKey(rawValue: "iap.catalog.source")!
        var apps: [App]

        init(from decoder: any Decoder) throws {
            let container = try decoder.strictContainer(fields: ["apps"], in: "the catalog")
            apps = try container.required([App].self, "apps", in: "the catalog", decoder)
        }

        func catalog(source: String) throws(CatalogError) -> ProductCatalog {
            var apps: [String: [String: CatalogProduct]] = [:]
            var seen: [String: (type: String, line: Int?, bundleId: String)] = [:]
            for app in self.apps {
                guard apps[app.bundleId] == nil else {
                    throw CatalogError(
                        code: .duplicate, message: "\(at(source, app.line))app '\(app.bundleId)' is listed twice")
                }
                var products: [String: CatalogProduct] = [:]
                for product in app.products {
                    if let earlier = seen[product.productId] {
                        let place = "\(at(source, product.line))product '\(product.productId)'"
                        let before = "\(earlier.bundleId)\(earlier.line.map { ", line \($0)" } ?? "")"
                        guard earlier.type == product.typeName else {
                            throw CatalogError(
                                code: .conflictingType,
                                message: "\(place) is \(product.typeName) here and \(earlier.type) in \(before); "
                                    + "a product id has one type")
                        }
                        throw CatalogError(
                            code: .duplicate,
                            message: "\(place) is listed twice (also in \(before)); product ids are unique "
                                + "across an account's apps")
                    }
                    seen[product.productId] = (product.typeName, product.line, app.bundleId)
                    products[product.productId] = product.product
                }
                apps[app.bundleId] = products
            }
            return ProductCatalog(checked: apps)
        }
    }

    struct App: Decodable {
        var bundleId: String
        var products: [Product]
        var line: Int?

        init(from decoder: any Decoder) throws {
            let what = "an app"
            let container = try decoder.strictContainer(fields: ["bundleId", "products"], in: what)
            bundleId = try container.identifier("bundleId", in: what, decoder)
            products = try container.required([Product].self, "products", in: "app '\(bundleId)'", decoder)
            line = decoder.mark?.line
        }
    }

    struct Product: Decodable {
        var productId: String
        var typeName: String
        var product: CatalogProduct
        var line: Int?

        init(from decoder: any Decoder) throws {
            let container = try decoder.strictContainer(
                fields: ["productId", "type", "entitlements", "credits"], in: "a product")
            let productId = try container.identifier("productId", in: "a product", decoder)
            self.productId = productId
            line = decoder.mark?.line
            let what = "product '\(productId)'"
            let typeName = try container.required(String.self, "type", in: what, decoder)
            self.typeName = typeName
            guard let type = CatalogFile.types.first(where: { $0.key == typeName })?.value else {
                throw decoder.refusal(
                    .invalidValue,
                    "\(what) has type '\(typeName)'; types: \(CatalogFile.types.map(\.key).joined(separator: ", "))")
            }
            let entitlements = try container.decodeIfPresent([String].self, forKey: AnyKey("entitlements"))
            let credits = try container.decodeIfPresent([String: Int].self, forKey: AnyKey("credits"))
            if type == .consumable {
                guard entitlements == nil else {
                    throw decoder.refusal(
                        .invalidValue,
                        "\(what) is consumable and lists entitlements: a consumable is used up, it credits "
                            + "(credits: {gems: 100}) and unlocks nothing")
                }
                guard let credits, !credits.isEmpty else {
                    throw decoder.refusal(.missingField, "\(what) is consumable and credits nothing: add credits")
                }
                for (name, amount) in credits.sorted(by: { $0.key < $1.key }) {
                    guard Self.isIdentifier(name), amount > 0 else {
                        throw decoder.refusal(
                            .invalidValue, "\(what) credits \(amount) '\(name)': a named, positive whole amount")
                    }
                }
            } else {
                guard credits == nil else {
                    throw decoder.refusal(
                        .invalidValue, "\(what) is \(typeName) and lists credits: only a consumable credits")
                }
                guard let entitlements, !entitlements.isEmpty else {
                    throw decoder.refusal(
                        .missingField, "\(what) unlocks no entitlement: add entitlements: [<access level>]")
                }
                for entitlement in entitlements where !Self.isIdentifier(entitlement) {
                    throw decoder.refusal(
                        .invalidValue, "\(what) unlocks '\(entitlement)': an entitlement is a name without spaces")
                }
                guard Set(entitlements).count == entitlements.count else {
                    throw decoder.refusal(.duplicate, "\(what) lists an entitlement twice")
                }
            }
            product = CatalogProduct(
                productId: productId, type: type, entitlements: entitlements ?? [], credits: credits ?? [:])
        }

        static func isIdentifier(_ text: String) -> Bool {
            !text.isEmpty && !text.contains(where: { $0.isWhitespace || $0.isNewline })
        }
    }

    static func at(_ source: String, _ line: Int?) -> String {
        line.map { "\(source):\($0): " } ?? "\(source): "
    }

    /// Our own error thrown while decoding; Yams wraps it in a `DecodingError`.
    static func specificError(in error: any Error) -> CatalogError? {
        if let error = error as? CatalogError { return error }
        guard let decoding = error as? DecodingError else { return nil }
        let context: DecodingError.Context? =
            switch decoding {
            case .dataCorrupted(let context), .keyNotFound(_, let context), .typeMismatch(_, let context),
                .valueNotFound(_, let context):
                context
            @unknown default: nil
            }
        return context?.underlyingError.flatMap(specificError(in:))
    }
}

/// Any field name, so a container can list the fields it was given.
struct AnyKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(_ name: String) { stringValue = name }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

extension Decoder {
    /// A catalog error at this node's line of the file.
    func refusal(_ code: CatalogError.Code, _ message: String) -> CatalogError {
        let source = userInfo[CatalogFile.Document.sourceKey] as? String ?? "catalog"
        return CatalogError(code: code, message: CatalogFile.at(source, mark?.line) + message)
    }

    /// The mapping at this node, refusing fields outside `fields`.
    func strictContainer(fields: [String], in what: String) throws -> KeyedDecodingContainer<AnyKey> {
        let container: KeyedDecodingContainer<AnyKey>
        do {
            container = try self.container(keyedBy: AnyKey.self)
        } catch {
            throw refusal(.unreadable, "\(what) is a mapping of \(fields.joined(separator: ", "))")
        }
        for key in container.allKeys where !fields.contains(key.stringValue) {
            throw refusal(
                .unknownField,
                "\(what) has no field '\(key.stringValue)' (fields: \(fields.joined(separator: ", ")))")
        }
        return container
    }
}

extension KeyedDecodingContainer where Key == AnyKey {
    func required<T: Decodable>(_ type: T.Type, _ field: String, in what: String, _ decoder: any Decoder) throws -> T {
        guard contains(AnyKey(field)) else { throw decoder.refusal(.missingField, "\(what) has no '\(field)'") }
        return try decode(type, forKey: AnyKey(field))
    }

    /// A required, non-empty name without spaces.
    func identifier(_ field: String, in what: String, _ decoder: any Decoder) throws -> String {
        let value = try required(String.self, field, in: what, decoder)
        guard CatalogFile.Product.isIdentifier(value) else {
            throw decoder.refusal(.invalidValue, "\(what) has \(field) '\(value)': a name without spaces")
        }
        return value
    }
}
