import Foundation

/// Writes events as compact JSON with stable key order.
public enum EventEncoder {
    public static func encode(_ event: some PipelineEvent) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return Array(try encoder.encode(event))
    }
}
