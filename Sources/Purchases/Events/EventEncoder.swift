import Foundation

/// Writes events as compact JSON with stable key order.
public enum EventEncoder {
    /// One configured encoder for every event: `JSONEncoder` is thread-safe once configured,
    /// and workers encode on every record.
    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    public static func encode(_ event: some PipelineEvent) throws -> [UInt8] {
        Array(try encoder.encode(event))
    }
}
