public import Logging
import Synchronization

/// Collects log messages in memory, so tests can assert what was logged and how often.
public final class LogCapture: Sendable {
    private let messages = Mutex<[(message: String, metadata: Logger.Metadata)]>([])
    private let annotate: @Sendable () -> Logger.Metadata

    /// - Parameter annotate: metadata added to each message as it is logged, on the logging
    ///   thread (where a line was logged from, say).
    public init(annotate: @escaping @Sendable () -> Logger.Metadata = { [:] }) {
        self.annotate = annotate
    }

    /// The messages containing `text`, with their metadata.
    public func entries(containing text: String) -> [(message: String, metadata: Logger.Metadata)] {
        messages.withLock { $0.filter { $0.message.contains(text) } }
    }

    /// A logger writing into this capture (every level from `level` up).
    public func logger(label: String = "test", level: Logger.Level = .trace) -> Logger {
        var logger = Logger(label: label) { _ in Handler(capture: self) }
        logger.logLevel = level
        return logger
    }

    /// The messages logged so far, oldest first.
    public var lines: [String] { messages.withLock { $0.map(\.message) } }

    /// The messages logged so far with their metadata (`message key=value ...`), for failure
    /// messages that must say why, not only what.
    public var detailedLines: [String] {
        messages.withLock { entries in
            entries.map { entry in
                ([entry.message] + entry.metadata.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" })
                    .joined(separator: " ")
            }
        }
    }

    fileprivate func append(_ message: String, metadata: Logger.Metadata) {
        messages.withLock { $0.append((message, metadata)) }
    }

    private struct Handler: LogHandler {
        let capture: LogCapture
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            let metadata = metadata.merging(event.metadata ?? [:]) { $1 }.merging(capture.annotate()) { $1 }
            capture.append(event.message.description, metadata: metadata)
        }
    }
}
