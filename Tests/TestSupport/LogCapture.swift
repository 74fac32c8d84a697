public import Logging
import Synchronization

/// Collects log messages in memory, so tests can assert what was logged and how often.
public final class LogCapture: Sendable {
    private let messages = Mutex<[String]>([])

    public init() {}

    /// A logger writing into this capture (every level from `level` up).
    public func logger(label: String = "test", level: Logger.Level = .trace) -> Logger {
        var logger = Logger(label: label) { _ in Handler(capture: self) }
        logger.logLevel = level
        return logger
    }

    /// The messages logged so far, oldest first.
    public var lines: [String] { messages.withLock { $0 } }

    fileprivate func append(_ message: String) {
        messages.withLock { $0.append(message) }
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
            capture.append(event.message.description)
        }
    }
}
