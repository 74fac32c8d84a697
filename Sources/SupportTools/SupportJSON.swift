import AppStoreModels
import Foundation

/// The `--json` form of every support report: sorted keys, dates as ISO-8601 UTC strings with
/// milliseconds (as the pipeline's events), Apple's decoded fields under Apple's names.
public enum SupportJSON {
    public static func encode(_ value: some Encodable, pretty: Bool = true) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = pretty ? [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes] : [.sortedKeys]
        encoder.userInfo[Timestamp.jsonFormKey] = Timestamp.JSONForm.iso8601
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }
}
