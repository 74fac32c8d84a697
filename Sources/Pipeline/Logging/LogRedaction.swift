public import Logging

/// Keeps credentials out of logs: metadata whose key looks like a secret is replaced,
/// at any depth, before a handler formats it.
public enum LogRedaction {
    /// What a redacted value is logged as.
    public static let placeholder = "[REDACTED]"

    /// Key fragments (compared case-insensitively) that mark a value as secret.
    public static let sensitiveFragments = ["password", "passwd", "secret", "token", "authorization", "apikey", "api_key", "privatekey", "private_key", "cookie"]

    public static func isSensitive(_ key: String) -> Bool {
        let lowered = key.lowercased()
        return sensitiveFragments.contains { lowered.contains($0) }
    }

    /// `metadata` with every sensitive key's value (including nested ones) replaced.
    public static func redact(_ metadata: Logger.Metadata) -> Logger.Metadata {
        metadata.reduce(into: [:]) { result, entry in
            result[entry.key] = isSensitive(entry.key) ? .string(placeholder) : redact(entry.value)
        }
    }

    private static func redact(_ value: Logger.MetadataValue) -> Logger.MetadataValue {
        switch value {
        case .dictionary(let dictionary): .dictionary(redact(dictionary))
        case .array(let values): .array(values.map(redact))
        case .string, .stringConvertible: value
        }
    }

    /// A provider whose metadata is redacted, for handlers that merge provider metadata themselves.
    public static func redacting(_ provider: Logger.MetadataProvider) -> Logger.MetadataProvider {
        Logger.MetadataProvider { redact(provider.get()) }
    }
}
