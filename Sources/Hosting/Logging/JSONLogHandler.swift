import Foundation
public import Logging

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A swift-log handler writing one JSON object per line, for log shippers
/// (`IAP_LOG_FORMAT=json`).
///
/// Each line has `timestamp` (ISO 8601 UTC, milliseconds), `level`, `label`, `message`, then
/// the metadata flattened into top-level keys (`{"kafka": {"topic": t}}` becomes
/// `"kafka.topic": t`; a key that collides with the four fixed ones is prefixed with
/// `metadata.`). Sensitive keys are redacted (``LogRedaction``).
public struct JSONLogHandler: LogHandler {
    public var logLevel: Logger.Level = .info
    public var metadata: Logger.Metadata = [:]
    public var metadataProvider: Logger.MetadataProvider?
    public let label: String
    private let output: @Sendable (String) -> Void

    /// - Parameter output: receives each finished line, newline included; stderr by default.
    public init(
        label: String,
        metadataProvider: Logger.MetadataProvider? = LoggingSystem.metadataProvider,
        output: @escaping @Sendable (String) -> Void = JSONLogHandler.writeToStandardError
    ) {
        self.label = label
        self.metadataProvider = metadataProvider
        self.output = output
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var merged = metadata
        if let provided = metadataProvider?.get() { merged.merge(provided) { _, new in new } }
        if let own = event.metadata { merged.merge(own) { _, new in new } }
        if let error = event.error { merged["error"] = .string("\(error)") }
        output(
            Self.line(
                timestamp: Date(), level: event.level, label: label, message: event.message.description,
                metadata: merged))
    }

    /// Formats one log line; separate from ``log(event:)`` so the format can be tested.
    static func line(timestamp: Date, level: Logger.Level, label: String, message: String, metadata: Logger.Metadata)
        -> String
    {
        var fields: [(String, String)] = [
            ("timestamp", JSONText.quoted(Date.ISO8601FormatStyle(includingFractionalSeconds: true).format(timestamp))),
            ("level", JSONText.quoted(level.rawValue)),
            ("label", JSONText.quoted(label)),
            ("message", JSONText.quoted(message)),
        ]
        let fixed = Set(fields.map(\.0))
        var flattened: [(String, String)] = []
        flatten(LogRedaction.redact(metadata), prefix: "", into: &flattened)
        for (key, value) in flattened.sorted(by: { $0.0 < $1.0 }) {
            fields.append((fixed.contains(key) ? "metadata." + key : key, value))
        }
        return "{" + fields.map { JSONText.quoted($0.0) + ":" + $0.1 }.joined(separator: ",") + "}\n"
    }

    private static func flatten(_ metadata: Logger.Metadata, prefix: String, into fields: inout [(String, String)]) {
        for (key, value) in metadata {
            let path = prefix + key
            if case .dictionary(let nested) = value {
                flatten(nested, prefix: path + ".", into: &fields)
            } else {
                fields.append((path, json(value)))
            }
        }
    }

    private static func json(_ value: Logger.MetadataValue) -> String {
        switch value {
        case .string(let string): JSONText.quoted(string)
        case .stringConvertible(let convertible): JSONText.quoted(convertible.description)
        case .array(let values): "[" + values.map(json).joined(separator: ",") + "]"
        case .dictionary(let dictionary):
            "{"
                + dictionary.sorted { $0.key < $1.key }.map { JSONText.quoted($0.key) + ":" + json($0.value) }.joined(
                    separator: ",") + "}"
        }
    }

    /// Writes the line with one `write(2)`, so lines from concurrent tasks do not interleave.
    public static let writeToStandardError: @Sendable (String) -> Void = { line in
        var bytes = Array(line.utf8)
        bytes.withUnsafeMutableBytes { buffer in
            _ = write(STDERR_FILENO, buffer.baseAddress, buffer.count)
        }
    }
}
