internal import CRdKafka
package import Logging

/// Owns one `rd_kafka_t` and the callback context librdkafka points back to.
///
/// `@unchecked Sendable`: librdkafka documents `rd_kafka_t` as thread-safe for every call this
/// module makes on it; the Swift-side state reachable from here (`context`) is itself Sendable.
/// `deinit` hands the handle and `context` to a teardown off the releasing thread, which
/// releases `context` only after destroying the handle: librdkafka may call back into it until
/// destroy returns.
/// `package`, not `public`: the mock cluster (`LocalServices`) owns one as its C handle; nothing
/// outside this package sees librdkafka.
package final class RDKafkaClient: @unchecked Sendable {
    package let handle: OpaquePointer
    let context: RDKafkaCallbackContext

    private init(handle: OpaquePointer, context: RDKafkaCallbackContext) {
        self.handle = handle
        self.context = context
    }

    package enum Kind { case producer, consumer }

    /// Creates the handle; `configure` may register callbacks on the conf before it is consumed.
    package static func make(
        kind: Kind,
        properties: [String: String],
        context: RDKafkaCallbackContext,
        configure: (OpaquePointer) -> Void = { _ in }
    ) throws(KafkaError) -> RDKafkaClient {
        let conf = try RDKafkaConfig.make(properties)
        rd_kafka_conf_set_opaque(conf, Unmanaged.passUnretained(context).toOpaque())
        rd_kafka_conf_set_log_cb(conf) { rk, level, facility, buf in
            guard let rk, let opaque = rd_kafka_opaque(rk) else { return }
            let context = Unmanaged<RDKafkaCallbackContext>.fromOpaque(opaque).takeUnretainedValue()
            context.log(
                level: level, facility: facility.map { String(cString: $0) } ?? "",
                message: buf.map { String(cString: $0) } ?? "")
        }
        configure(conf)
        var errstr = [CChar](repeating: 0, count: 512)
        let type = kind == .producer ? RD_KAFKA_PRODUCER : RD_KAFKA_CONSUMER
        guard let handle = rd_kafka_new(type, conf, &errstr, errstr.count) else {
            rd_kafka_conf_destroy(conf)
            let reason = String(decoding: errstr.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw KafkaError(code: .clientCreation, message: reason)
        }
        return RDKafkaClient(handle: handle, context: context)
    }

    deinit {
        guard context.isSafeToDestroy else {
            // librdkafka < 2.3.0 aborts in rd_kafka_destroy when a cooperative-sticky member
            // joined a group but never received its first assignment (assignor state NULL,
            // librdkafka #4312, fixed by PR #4381). The consumer already closed (committed,
            // left the group); keeping the handle and its callback context alive until the
            // process exits is the only safe choice on 2.0.2.
            context.logger.info("not destroying a consumer handle that never got an assignment (librdkafka #4312)")
            _ = Unmanaged.passRetained(context)
            return
        }
        // Off the releasing thread: destroying joins librdkafka's threads (see
        // `BlockingExecutor.detach`). `context` lives until it returns: callbacks may run until then.
        let handle = Handle(pointer: self.handle)
        let context = self.context
        BlockingExecutor.detach {
            rd_kafka_destroy(handle.pointer)
            withExtendedLifetime(context) {}
        }
    }

    /// `@unchecked Sendable`: handed to the teardown once, after the last reference is gone.
    private struct Handle: @unchecked Sendable {
        let pointer: OpaquePointer
    }

    /// The broker-assigned or configured client name, useful in logs.
    var name: String { String(cString: rd_kafka_name(handle)) }
}

/// State that librdkafka's C callbacks reach through the conf opaque.
///
/// Subclassed by the consumer to receive rebalances; the base class routes librdkafka's log
/// lines into swift-log so they carry the worker's metadata instead of raw stderr lines.
package class RDKafkaCallbackContext: @unchecked Sendable {
    // Invariant for @unchecked: `logger` is immutable after init and swift-log loggers are Sendable.
    let logger: Logger

    /// Internal, with ``logging(to:)`` for other modules: a `package` designated initializer
    /// overridden in this module (``ConsumerContext``) drew a spurious "function call causes an
    /// infinite recursion" warning (swiftlang/swift#92023, a vtable thunk never called).
    init(logger: Logger) { self.logger = logger }

    /// A context that only routes librdkafka's log lines, for clients with no other callbacks.
    package static func logging(to logger: Logger) -> RDKafkaCallbackContext { RDKafkaCallbackContext(logger: logger) }

    /// Whether `rd_kafka_destroy` may run; consumers override this (see `RDKafkaClient.deinit`).
    var isSafeToDestroy: Bool { true }

    func log(level: Int32, facility: String, message: String) {
        // syslog levels: 0-3 error, 4 warning, 5-6 notice/info, 7 debug.
        let swiftLevel: Logger.Level
        switch level {
        case ...3: swiftLevel = .error
        case 4: swiftLevel = .warning
        case 5, 6: swiftLevel = .info
        default: swiftLevel = .debug
        }
        logger.log(level: swiftLevel, "\(message)", metadata: ["librdkafka.facility": "\(facility)"])
    }
}
