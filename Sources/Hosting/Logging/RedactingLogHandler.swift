import Logging

/// Wraps another handler (the text format's `StreamLogHandler`) so secret-looking metadata
/// is redacted there too; ``JSONLogHandler`` redacts by itself.
struct RedactingLogHandler<Wrapped: LogHandler>: LogHandler {
    var wrapped: Wrapped

    init(wrapping wrapped: Wrapped) { self.wrapped = wrapped }

    var logLevel: Logger.Level {
        get { wrapped.logLevel }
        set { wrapped.logLevel = newValue }
    }

    var metadata: Logger.Metadata {
        get { wrapped.metadata }
        set { wrapped.metadata = LogRedaction.redact(newValue) }
    }

    var metadataProvider: Logger.MetadataProvider? {
        get { wrapped.metadataProvider }
        set { wrapped.metadataProvider = newValue.map(LogRedaction.redacting) }
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { wrapped[metadataKey: key] }
        // Only the entry being set: redacting the whole dictionary on every write cost a third
        // of a stage's CPU when workers still set metadata per record.
        set { wrapped[metadataKey: key] = newValue.map { LogRedaction.redact(key, $0) } }
    }

    func log(event: LogEvent) {
        var redacted = event
        redacted.metadata = event.metadata.map(LogRedaction.redact)
        wrapped.log(event: redacted)
    }
}
