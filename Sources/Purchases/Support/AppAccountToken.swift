import Foundation

/// `appAccountToken` values are UUIDs that Apple, apps and backends spell in either case;
/// lookups compare one canonical spelling.
enum AppAccountToken {
    /// The lowercase 8-4-4-4-12 form, or nil when `raw` is not a UUID.
    static func canonical(_ raw: String) -> String? {
        UUID(uuidString: raw.trimmingCharacters(in: .whitespaces)).map { $0.uuidString.lowercased() }
    }
}
