import AppStore
public import AppStoreModels
import Contracts
import Foundation
import Kafka
import Logging
import Purchases
import WorkerCommon

/// Pages Get Notification History for one app and environment from its checkpoint, and
/// publishes every notification found to the notifications topic as `source: reconcile`
/// (decision D32). Apple's deliveries that did arrive are no-ops downstream (intake's dedupe
/// key and verify's notificationUUID guard), so the effect of each notification is once.
///
/// The checkpoint is written after each page was acknowledged by Kafka: a run killed between
/// the two publishes that page again (no-ops), never skips one.
struct NotificationHistoryPager: Sendable {
    /// Apple keeps 180 days of history; a window starting earlier is refused.
    static let historyLimit: Duration = .seconds(180 * 86_400)
    /// Kept off the limit so a request built now is still inside it when Apple reads it.
    static let historyMargin: Duration = .seconds(60)

    let scope: ReconcileScope
    let client: AppStoreServerAPIClient
    let apple: ReconcileApple
    let state: any ReconcileStateStore
    let publisher: any ReconcilePublisher
    let topic: String
    /// How far back a scope without a checkpoint starts.
    let lookback: Duration
    let onlyFailures: Bool
    let now: @Sendable () -> Timestamp
    let logger: Logger

    func run(
        holding lease: ReconcileLease, into report: inout ReconcileReport.Scope,
        progress: @Sendable (ReconcileProgress) -> Void
    ) async throws {
        let started = now()
        let earliest = started.advanced(by: .zero - Self.historyLimit + Self.historyMargin)
        var checkpoint = try await state.checkpoint(scope.name)
        if let existing = checkpoint, existing.onlyFailures != onlyFailures {
            // A window paged in the other mode cannot be resumed with its token.
            checkpoint?.window = nil
        }
        var current =
            checkpoint
            ?? ReconcileCheckpoint(
                nextStart: started.advanced(by: .zero - lookback), onlyFailures: onlyFailures, updatedAt: started)
        current.onlyFailures = onlyFailures
        var window = current.window ?? .init(start: current.nextStart, end: started)
        if window.start < earliest {
            // Apple's 180 days ran past the start: what was before them is gone from history.
            logger.warning(
                "checkpoint older than Apple's notification history; starting at its limit",
                metadata: ["scope": "\(scope)", "checkpoint": "\(window.start)"])
            window = .init(start: earliest, end: max(window.end, earliest))
        }
        while window.start < window.end {
            let request = NotificationHistoryRequest(
                startDate: window.start, endDate: window.end, onlyFailures: onlyFailures ? true : nil)
            let token = window.paginationToken
            let page = try await apple.call(.notificationHistory, environment: scope.environment, app: scope.bundleId) {
                () async throws(AppStoreAPIError) in
                try await client.getNotificationHistory(request, paginationToken: token).value
            }
            let payloads = (page.notificationHistory ?? []).compactMap(\.signedPayload)
            let receivedAt = now()
            try await publisher.publish(
                try payloads.map { payload in
                    let event = NotificationEvent(receivedAt: receivedAt, signedPayload: payload, source: .reconcile)
                    return KafkaRecord(
                        topic: topic, key: NotificationEvent.key(forSignedPayload: payload).map { Array($0.utf8) },
                        value: try EventEncoder.encode(event))
                })
            report.pages += 1
            report.notificationsPublished += payloads.count
            progress(.page(scope: scope.name, notifications: payloads.count))
            window.pagesRead += 1
            if page.hasMore == true, let next = page.paginationToken {
                window.paginationToken = next
                current.window = window
            } else {
                current.nextStart = window.end
                current.window = nil
                window.start = window.end
            }
            current.updatedAt = now()
            guard try await state.save(current, holding: lease) else {
                throw Reconciler.LeaseLost(scope: scope.name)
            }
        }
        report.checkpoint = current.nextStart.iso8601
    }
}

/// One app in one environment: what notification history, its checkpoint and its lease are per.
public struct ReconcileScope: Hashable, Sendable, CustomStringConvertible {
    public var bundleId: String
    public var environment: AppStoreEnvironment

    public init(bundleId: String, environment: AppStoreEnvironment) {
        self.bundleId = bundleId
        self.environment = environment
    }

    /// `<bundleId>:<environment>`, the checkpoint's and lease's key.
    public var name: String { "\(bundleId):\(environment.rawValue)" }
    public var description: String { name }
}
