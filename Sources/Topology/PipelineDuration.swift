/// A duration written the way operators write them: `500ms`, `30s`, `5m`, `24h`, `7d`
/// (a decimal number and one unit), decoded into a `Duration`.
public struct PipelineDuration: Sendable, Hashable, Decodable, CustomStringConvertible {
    /// About 31 million years: durations become 64-bit milliseconds (Kafka's `retention.ms`,
    /// Redis TTLs), and `Duration` itself traps far beyond `Int64` seconds.
    private static let maximumSeconds: Double = 1e15

    public let duration: Duration
    /// The text it was parsed from, as operators wrote it (for messages and `iap` output).
    public let description: String

    public init(_ text: String) throws(PipelineFileError) {
        let units: [(suffix: String, seconds: Double)] = [
            ("ms", 0.001), ("s", 1), ("m", 60), ("h", 3600), ("d", 86400),
        ]
        guard
            let unit = units.first(where: { text.hasSuffix($0.suffix) && Double(text.dropLast($0.suffix.count)) != nil }
            ),
            let value = Double(text.dropLast(unit.suffix.count)), value >= 0, value.isFinite
        else {
            throw PipelineFileError(
                code: .invalidDuration, message: "'\(text)' is not a duration like 500ms, 30s, 5m, 24h or 7d")
        }
        guard value * unit.seconds <= Self.maximumSeconds else {
            throw PipelineFileError(
                code: .invalidDuration, message: "'\(text)' is longer than \(Self.maximumSeconds) seconds")
        }
        self.duration = .seconds(value * unit.seconds)
        self.description = text
    }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        do {
            try self.init(text)
        } catch {
            let path = decoder.codingPath.map(\.stringValue).joined(separator: ".")
            throw PipelineFileError(code: .invalidDuration, message: "\(path): \(error.message)")
        }
    }
}
