import Kafka
import Logging

/// Logs about one record, tagged with where it came from, its business id and its trace id (so
/// logs correlate across stages without a span exporter, decision D42).
///
/// Logged values are cut to an ``Excerpt``: errors and details quote the record's own
/// content, and a line must not grow with the input.
///
/// The tags are added only when a line is actually logged, instead of being set as logger
/// metadata per record: swift-log's `StreamLogHandler` re-formats its whole metadata on every
/// metadata write, which cost a few per cent of each stage's CPU for records that almost never
/// log anything.
struct RecordLog: Sendable {
    let logger: Logger
    let record: KafkaMessage
    let trace: RecordTrace
    var businessId: String?

    func debug(_ message: @autoclosure () -> Logger.Message, metadata: @autoclosure () -> Logger.Metadata = [:]) {
        logger.debug(message(), metadata: tagged(metadata()))
    }

    func info(_ message: @autoclosure () -> Logger.Message, metadata: @autoclosure () -> Logger.Metadata = [:]) {
        logger.info(message(), metadata: tagged(metadata()))
    }

    func warning(_ message: @autoclosure () -> Logger.Message, metadata: @autoclosure () -> Logger.Metadata = [:]) {
        logger.warning(message(), metadata: tagged(metadata()))
    }

    private func tagged(_ metadata: Logger.Metadata) -> Logger.Metadata {
        var tagged = metadata.mapValues { value in
            guard case .string(let text) = value else { return value }
            return .string(Excerpt.of(text))
        }
        tagged["topic"] = .string(record.topic)
        tagged["partition"] = .stringConvertible(record.partition)
        tagged["offset"] = .stringConvertible(record.offset)
        if let businessId { tagged["business_id"] = .string(businessId) }
        if let traceId = trace.traceId { tagged["trace_id"] = .string(traceId) }
        return tagged
    }
}
