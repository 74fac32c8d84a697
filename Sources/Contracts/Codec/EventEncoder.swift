import AppStoreModels
import Foundation

/// Writes events as compact JSON with stable key order, timestamps as ISO-8601 strings.
public enum EventEncoder {
    /// One configured encoder for every event: `JSONEncoder` is thread-safe once configured,
    /// and workers encode on every record.
    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.userInfo[Timestamp.jsonFormKey] = Timestamp.JSONForm.iso8601
        return encoder
    }()

    public static func encode(_ event: some PipelineEvent) throws -> [UInt8] {
        try self.encode(value: event)
    }

    /// The same format for stored values that are not events (the state in Redis).
    public static func encode(value: some Encodable) throws -> [UInt8] {
        if let fast = value as? any FastJSONWritable {
            var writer = JSONWriter()
            fast.write(to: &writer)
            return writer.bytes
        }
        return try self.encodeWithCodable(value)
    }

    /// The same format through `Codable` only, never the hand-written writer: the reference
    /// the fast path is held to (D17), and the writer of every type without one.
    public static func encodeWithCodable(_ value: some Encodable) throws -> [UInt8] {
        Array(try encoder.encode(value))
    }
}
