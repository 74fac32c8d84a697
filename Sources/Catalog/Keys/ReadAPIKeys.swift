public import Settings

/// The keys of `iap-api`, the read API (issue 21), besides the host's, Redis's and the product
/// catalog's. Read by `ReadAPISettings` (ReadAPI), which forwards these.
public enum ReadAPIKeys {
    public static let listenHost = Setting<String>.text(
        "IAP_API_HOST", "Address of the read API's listener", default: "0.0.0.0")
    public static let listenPort = Setting<Int>.port("IAP_API_PORT", "Port of the read API's listener", default: 8081)
    public static let keysFile = Setting<String>.text(
        "IAP_API_KEYS_FILE",
        "The API keys file: one `<name> sha256:<hex> <bundleId>[,<bundleId>…]|* [read|sign|read,sign]` per line, keys stored hashed (docs/api.md)"
    )
    public static let offerKeysFile = Setting<String>.text(
        "IAP_OFFER_KEYS_FILE",
        "The offer keys file: one `<bundleId> <keyId> <issuerId|-> <.p8 file>` per line, a relative key file next to it (docs/offers.md); none: no offer signatures"
    )

    public static let renderCacheEntries = Setting<Int>.integer(
        "IAP_API_RENDER_CACHE_ENTRIES",
        "Customer answers kept rendered, each served again while the stored record is byte for byte the same (0: off)",
        default: 10_000, in: 0...10_000_000)

    public static let section = SettingsSection(
        "Read API", readBy: "iap-api",
        [
            listenHost.descriptor, listenPort.descriptor, keysFile.descriptor, offerKeysFile.descriptor,
            renderCacheEntries.descriptor,
        ])
}
