import AsyncHTTPClient
import Basics
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import ServiceLifecycle

/// A notification waiting to be POSTed to the configured URL.
struct NotificationDelivery: Sendable {
    var notificationUUID: String
    var signedPayload: String
    var environment: String
    /// Lost on the way whatever the faults say: every attempt fails (`renew` with `deliver: false`).
    var lost = false
    /// Records each attempt for Get Notification History.
    var recordAttempt: @Sendable (SendAttempt) async -> Void
}

/// Posts notifications to the notify URL as Apple does: `{"signedPayload": "..."}`, success on
/// HTTP 200–206, otherwise retried 1, 12, 24, 48 and 72 hours after the previous attempt
/// (Apple's V2 schedule) multiplied by `retryTimeScale`.
///
/// A `Service` so pending retries end with the simulator: graceful shutdown stops taking new
/// notifications and cancels the retry timers.
final class NotificationSender: Service {
    /// Apple's delays between attempts, in hours.
    static let retryDelaysInHours: [Double] = [1, 12, 24, 48, 72]

    private let url: String?
    private let retryTimeScale: Double
    private let retryInSandbox: Bool
    private let timeout: Duration
    private let faults: FaultState
    private let logger: Logger
    private let stream: AsyncStream<NotificationDelivery>
    private let continuation: AsyncStream<NotificationDelivery>.Continuation

    init(configuration: AppStoreSimulatorConfiguration, faults: FaultState, logger: Logger) {
        self.url = configuration.notifyURL
        self.retryTimeScale = configuration.retryTimeScale
        self.retryInSandbox = configuration.retryInSandbox
        self.timeout = configuration.notificationTimeout
        self.faults = faults
        self.logger = logger
        (stream, continuation) = AsyncStream.makeStream(of: NotificationDelivery.self)
    }

    /// Queues a notification; a no-op without a notify URL (history still has it).
    func enqueue(_ delivery: NotificationDelivery) {
        guard url != nil else { return }
        continuation.yield(delivery)
    }

    func run() async throws {
        await withDiscardingTaskGroup { group in
            for await delivery in stream.cancelOnGracefulShutdown() {
                group.addTask { await self.deliver(delivery) }
            }
            group.cancelAll()
        }
        continuation.finish()
    }

    private func deliver(_ delivery: NotificationDelivery) async {
        guard let url else { return }
        let retries = retryInSandbox || delivery.environment == AppleValues.Environment.production
        let delays = retries ? Self.retryDelaysInHours : []
        let rate = faults.current.dropNotificationRate
        let dropped = delivery.lost || (rate > 0 && Double.random(in: 0..<1) < rate)
        for attempt in 0...delays.count {
            if attempt > 0 {
                let seconds = delays[attempt - 1] * 3600 * retryTimeScale
                do {
                    try await Task.sleep(for: .milliseconds(Int64(seconds * 1000)))
                } catch {
                    return
                }
            }
            let result = dropped ? "NO_RESPONSE" : await post(delivery, to: url)
            await delivery.recordAttempt(
                SendAttempt(attemptDate: Store.milliseconds(Date()), sendAttemptResult: result))
            if result == "SUCCESS" { return }
            logger.debug(
                "notification delivery failed",
                metadata: [
                    "notificationUUID": "\(delivery.notificationUUID)", "attempt": "\(attempt + 1)",
                    "result": "\(result)",
                ])
        }
    }

    /// One POST; returns Apple's `sendAttemptResult` name for the outcome.
    private func post(_ delivery: NotificationDelivery, to url: String) async -> String {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.headers.add(name: "User-Agent", value: "App Store Server Notifications Simulator")
        guard let body = try? JSONEncoder.apple.encode(["signedPayload": delivery.signedPayload]) else {
            return "OTHER"
        }
        request.body = .bytes(ByteBuffer(bytes: body))
        do {
            let response = try await HTTPClient.shared.execute(
                request, timeout: .nanoseconds(Int64(timeout.seconds * 1e9)))
            _ = try? await response.body.collect(upTo: 64 * 1024)
            return (200...206).contains(response.status.code) ? "SUCCESS" : "UNSUCCESSFUL_HTTP_RESPONSE_CODE"
        } catch let error as HTTPClientError where error == .deadlineExceeded || error == .readTimeout {
            return "TIMED_OUT"
        } catch {
            return "NO_RESPONSE"
        }
    }
}
