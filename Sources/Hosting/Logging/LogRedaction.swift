public import Logging

/// Keeps credentials out of logs: metadata whose key looks like a secret is replaced,
/// at any depth, before a handler formats it.
public enum LogRedaction {
    /// What a redacted value is logged as.
    public static let placeholder = "[REDACTED]"

    /// Key fragments (compared case-insensitively) that mark a value as secret.
    public static let sensitiveFragments = [
        "password", "passwd", "secret", "token", "authorization", "apikey", "api_key", "privatekey", "private_key",
        "cookie",
    ]

    private static let fragmentBytes = sensitiveFragments.map { Array($0.utf8) }

    /// Compares bytes, ASCII case-folded, without allocating: this runs for every metadata key
    /// set on a redacting logger, and workers once set several per record.
    public static func isSensitive(_ key: String) -> Bool {
        var key = key
        return key.withUTF8 { bytes in
            fragmentBytes.contains { fragment in
                guard bytes.count >= fragment.count else { return false }
                return (0...(bytes.count - fragment.count)).contains { start in
                    fragment.indices.allSatisfy { offset in
                        let byte = bytes[start + offset]
                        let folded = (byte >= 0x41 && byte <= 0x5A) ? byte | 0x20 : byte
                        return folded == fragment[offset]
                    }
                }
            }
        }
    }

    /// `metadata` with every sensitive key's value (including nested ones) replaced.
    public static func redact(_ metadata: Logger.Metadata) -> Logger.Metadata {
        metadata.reduce(into: [:]) { result, entry in
            result[entry.key] = redact(entry.key, entry.value)
        }
    }

    /// One entry's value as it may be logged under `key`.
    public static func redact(_ key: String, _ value: Logger.MetadataValue) -> Logger.MetadataValue {
        isSensitive(key) ? .string(placeholder) : redact(value)
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
