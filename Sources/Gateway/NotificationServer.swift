import AppStoreModels
import Basics
import Contracts
import CoreMetrics
import Foundation
import Hosting
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import Kafka
import Logging
import NIOCore
import NIOSSL
import ServiceLifecycle
import Traces
import Tracing

/// The public listener: `POST /apple/notifications` and nothing else (operations endpoints are
/// on the separate ops port, so `/metrics` never faces the internet).
///
/// For each request: read at most `maxBodyBytes`, take `signedPayload` from the JSON body,
/// pick the key (notificationUUID, decoded unverified), write `iap.notification.v1` and answer
/// 200 only once Kafka acknowledged it, the record carrying the request's `traceparent` (or a new
/// trace's, decision D42); 503 when it did not within the write timeout (Apple
/// retries), 400 with `{"reason": "malformed_event", "detail": ...}` for a body that is not a
/// notification (nothing is written).
struct NotificationServer: Service {
    static let path = "/apple/notifications"

    let settings: GatewaySettings
    let topic: String
    let writer: NotificationWriter
    let metrics: GatewayMetrics
    let readiness: ReadinessFlag
    /// Called with the failure when the producer can no longer write at all.
    let onFatal: @Sendable (String) -> Void
    let logger: Logger
    let onListening: @Sendable (Int) async -> Void
    /// Opens each request's span; the default propagates W3C trace context and exports nothing.
    var tracer: any Tracer = PropagatingTracer()

    func run() async throws {
        let application = try makeApplication()
        let readiness = readiness
        // Stop advertising readiness the moment shutdown starts; Hummingbird then stops
        // accepting connections and lets running requests (and their Kafka writes) finish.
        try await withGracefulShutdownHandler {
            try await application.run()
        } onGracefulShutdown: {
            readiness.set(.notReady(reason: "shutting down"))
        }
    }

    func makeApplication() throws -> some ApplicationProtocol {
        let logger = logger
        let onListening = onListening
        let scheme = settings.tlsCertificatePath == nil ? "http" : "https"
        return Application(
            router: makeRouter(),
            server: try serverBuilder(),
            configuration: ApplicationConfiguration(
                address: .hostname(settings.host, port: settings.port), serverName: "iap-gateway"),
            onServerRunning: { channel in
                let bound = channel.localAddress?.port ?? 0
                logger.info(
                    "notification listener up",
                    metadata: ["port": "\(bound)", "scheme": "\(scheme)", "path": "\(Self.path)"])
                await onListening(bound)
            },
            logger: logger
        )
    }

    private func serverBuilder() throws -> HTTPServerBuilder {
        guard let certificatePath = settings.tlsCertificatePath, let keyPath = settings.tlsKeyPath else {
            return .http1()
        }
        let chain = try NIOSSLCertificate.fromPEMFile(certificatePath)
        let key = try NIOSSLPrivateKey(file: keyPath, format: .pem)
        let tls = TLSConfiguration.makeServerConfiguration(
            certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(key))
        return try .tls(.http1(), tlsConfiguration: tls)
    }

    func makeRouter() -> Router<BasicRequestContext> {
        let router = Router()
        router.middlewares.add(StatusCountingMiddleware(metrics: metrics))
        let handler = self
        router.post(RouterPath(stringLiteral: Self.path)) { request, _ in
            await handler.receive(request)
        }
        return router
    }

    private func receive(_ request: Request) async -> Response {
        let span = request.traceSpan(tracer)
        defer { span.end() }
        let limit = settings.maxBodyBytes
        if let declared = request.headers[.contentLength].flatMap(Int.init), declared > limit {
            return refuse(MalformedNotification("body of \(declared) bytes exceeds \(limit)"))
        }
        let body: ByteBuffer
        do {
            body = try await request.body.collect(upTo: limit)
        } catch is NIOTooManyBytesError {
            return refuse(MalformedNotification("body exceeds \(limit) bytes"))
        } catch {
            // The client went away mid-body; nothing was written.
            return refuse(MalformedNotification("body could not be read: \(error)"))
        }
        let signedPayload: String
        do {
            signedPayload = try NotificationBody.signedPayload(from: Array(buffer: body))
        } catch {
            return refuse(error)
        }

        let key = NotificationEvent.key(forSignedPayload: signedPayload)
        if key == nil {
            metrics.unkeyed.increment()
            logger.warning(
                "notification payload does not decode; writing it without a key",
                metadata: ["bytes": "\(signedPayload.utf8.count)"])
        }
        let event = NotificationEvent(receivedAt: Timestamp(Date()), signedPayload: signedPayload)
        // Two strings and a timestamp always encode; a failure here would be a Foundation bug.
        let record = KafkaRecord(
            topic: topic, key: key.map { Array($0.utf8) }, value: (try? EventEncoder.encode(event)) ?? [],
            headers: tracer.injecting(span.context, into: []))
        let traceId = record.headers.last(named: TraceHeaders.traceparent)?.stringValue.flatMap(TraceHeaders.traceId)

        let started = ContinuousClock.now
        let result = await writer.write(record)
        let elapsed = ContinuousClock.now - started
        switch result {
        case .success(let report):
            metrics.writeAcknowledged.recordNanoseconds(elapsed.nanoseconds)
            logger.debug(
                "notification written",
                metadata: [
                    "notification_uuid": "\(key ?? "-")", "partition": "\(report.partition)",
                    "offset": "\(report.offset)", "trace_id": "\(traceId ?? "-")",
                ]
            )
            return Response(status: .ok)
        case .failure(let failure):
            metrics.writeFailed.recordNanoseconds(elapsed.nanoseconds)
            if span.isRecording { span.setStatus(SpanStatus(code: .error, message: "kafka_unavailable")) }
            logger.error(
                "notification not written; answering 503 so Apple retries",
                metadata: [
                    "notification_uuid": "\(key ?? "-")", "error": "\(failure)", "trace_id": "\(traceId ?? "-")",
                ])
            if failure.isFatal { onFatal("\(failure)") }
            return Self.json(
                .serviceUnavailable, reason: "kafka_unavailable", detail: "the notification was not stored; retry later"
            )
        }
    }

    private func refuse(_ error: MalformedNotification) -> Response {
        logger.info("notification refused", metadata: ["detail": "\(error.detail)"])
        return Self.json(.badRequest, reason: MalformedNotification.reason, detail: error.detail)
    }

    static func json(_ status: HTTPResponse.Status, reason: String, detail: String) -> Response {
        let object = ["reason": reason, "detail": detail]
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
        return Response(
            status: status,
            headers: [.contentType: "application/json"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: data))
        )
    }
}

/// Counts every answer by status, including the router's own 404s and thrown errors.
private struct StatusCountingMiddleware<Context: RequestContext>: RouterMiddleware {
    let metrics: GatewayMetrics

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        do {
            let response = try await next(request, context)
            metrics.countRequest(status: response.status.code)
            return response
        } catch let error as any HTTPResponseError {
            metrics.countRequest(status: error.status.code)
            throw error
        } catch {
            metrics.countRequest(status: 500)
            throw error
        }
    }
}
