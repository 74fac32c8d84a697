import Catalog
public import Hosting
public import Pipeline
public import Settings

/// Settings of `iap-api`: the host's (``HostSettings``), Redis's (``RedisSettings``), the
/// product catalog (`IAP_PRODUCT_CATALOG`) and ``ReadAPIKeys``. A bad value fails start-up with a
/// message naming the key.
public struct ReadAPISettings: Sendable {
    public static let section = ReadAPIKeys.section

    public var host: String
    public var port: Int
    public var keysFile: String
    public var catalogPath: String?
    /// The offer keys file (``OfferKeyring``); none: no app can have offers signed.
    public var offerKeysFile: String?
    /// Customer answers kept rendered (``RenderCache``); 0 turns the cache off.
    public var renderCacheEntries: Int
    public var redis: RedisSettings
    public var process: HostSettings

    public init(reader: SettingsReader) throws(SettingsError) {
        process = try HostSettings(process: "iap-api", reader: reader)
        host = try reader.value(ReadAPIKeys.listenHost)
        port = try reader.value(ReadAPIKeys.listenPort)
        keysFile = try reader.required(ReadAPIKeys.keysFile, by: "iap-api")
        catalogPath = try reader.optional(ProductCatalogKeys.file)
        offerKeysFile = try reader.optional(ReadAPIKeys.offerKeysFile)
        renderCacheEntries = try reader.value(ReadAPIKeys.renderCacheEntries)
        redis = try RedisSettings(reader: reader)
    }

    /// The environment alone (tests and embedded stacks).
    public init(environment: [String: String]) throws(SettingsError) {
        try self.init(reader: SettingsReader(environment: environment))
    }
}
