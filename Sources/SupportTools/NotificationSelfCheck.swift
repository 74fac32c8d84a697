public import AppStore
import AppStoreModels
import Basics
import Contracts
public import Kafka
public import Logging

/// `iap notifications test`: asks Apple for a TEST notification and follows it through the
/// gateway and the pipeline, hop by hop, each with the time since the request.
///
/// Hops, in order (a hop that does not happen before the deadline fails the check and the
/// later ones are not reached):
/// - `requested`: Apple accepted Request a Test Notification (its token);
/// - `sent`: Get Test Notification Status lists a `SUCCESS` send attempt (the gateway answered
///   200, which it does only once the record is in Kafka);
/// - `recorded`: the record keyed by the notification's UUID is on the notifications topic;
/// - `intake`: intake's group committed past that record;
/// - `verify`: intake's request for it is on the verify topic and verify's group committed past
///   it. TEST carries no transaction, so verify forwards nothing: match and grant never see it.
public struct NotificationSelfCheck: Sendable {
    /// Where the notification travels: topics and consumer groups from the pipeline file.
    public struct Route: Sendable {
        public var notificationsTopic: String
        public var intakeGroup: String
        public var verifyTopic: String
        public var verifyGroup: String

        public init(notificationsTopic: String, intakeGroup: String, verifyTopic: String, verifyGroup: String) {
            self.notificationsTopic = notificationsTopic
            self.intakeGroup = intakeGroup
            self.verifyTopic = verifyTopic
            self.verifyGroup = verifyGroup
        }
    }

    public var client: AppStoreServerAPIClient
    public var checker: SignedDataChecker
    public var cluster: KafkaCluster
    public var route: Route
    /// How long the hops may take, from the request on.
    public var timeout: Duration
    /// Between Get Test Notification Status calls (Apple allows one per second).
    public var statusInterval: Duration = .seconds(1)
    public var logger: Logger

    public init(
        client: AppStoreServerAPIClient, checker: SignedDataChecker, cluster: KafkaCluster, route: Route,
        timeout: Duration, logger: Logger
    ) {
        self.client = client
        self.checker = checker
        self.cluster = cluster
        self.route = route
        self.timeout = timeout
        self.logger = logger
    }

    /// Runs the check; throws only when Kafka cannot be read before anything is requested.
    public func run() async throws -> NotificationSelfCheckReport {
        let admin = try cluster.admin(clientId: "iap-selfcheck", logger: logger)
        let notificationsTail = try await tail(route.notificationsTopic, admin: admin)
        let tails: (notifications: TopicTail, verify: TopicTail)
        do {
            tails = (notificationsTail, try await tail(route.verifyTopic, admin: admin))
        } catch {
            await notificationsTail.close()
            throw error
        }
        let deadline = ContinuousClock.now + timeout
        var report = NotificationSelfCheckReport()
        await follow(&report, tails: tails, admin: admin, deadline: deadline)
        await tails.notifications.close()
        await tails.verify.close()
        report.close()
        return report
    }

    private func follow(
        _ report: inout NotificationSelfCheckReport, tails: (notifications: TopicTail, verify: TopicTail),
        admin: KafkaAdmin, deadline: ContinuousClock.Instant
    ) async {
        let start = ContinuousClock.now
        let elapsed = { @Sendable in ContinuousClock.now - start }

        // requested
        let token: String
        do throws(AppStoreAPIError) {
            guard let answered = try await client.requestTestNotification().value.testNotificationToken else {
                return report.fail(.requested, elapsed(), "Apple answered without a testNotificationToken")
            }
            token = answered
        } catch {
            return report.fail(.requested, elapsed(), "Request a Test Notification: \(error)")
        }
        report.testNotificationToken = token
        report.pass(.requested, elapsed(), "token \(token)")

        // sent, watched while the record is followed downstream, so each hop's time is its own
        // (Apple allows one status call per second; the pipeline is faster than that).
        guard let notification = await notification(token: token, deadline: deadline) else {
            return report.fail(.sent, elapsed(), "Apple never made the test notification ready (4040008 throughout)")
        }
        report.notificationUUID = notification.uuid
        report.signedPayloadVerification = notification.verification
        async let watched = watchSendAttempts(
            token: token, first: notification.status, elapsed: elapsed, deadline: deadline)
        let downstream = await followDownstream(
            uuid: notification.uuid, tails: tails, admin: admin, elapsed: elapsed, deadline: deadline)
        let sent = await watched
        report.sendAttempts = sent.attempts
        report.record(sent.hop)
        guard sent.hop.status == .passed else { return }
        for hop in downstream { report.record(hop) }
    }

    /// Polls Get Test Notification Status until it holds the signed payload; its UUID keys the
    /// gateway's record.
    private func notification(token: String, deadline: ContinuousClock.Instant) async -> (
        uuid: String, verification: Verification, status: CheckTestNotificationResponse
    )? {
        while true {
            if let status = try? await client.getTestNotificationStatus(token: token).value,
                let payload = status.signedPayload
            {
                let checked = await checker.notification(payload)
                if let uuid = checked.notification?.notificationUUID { return (uuid, checked.verification, status) }
            }
            guard ContinuousClock.now + statusInterval < deadline else { return nil }
            try? await Task.sleep(for: statusInterval)
        }
    }

    /// The `sent` hop: polls until Apple lists a `SUCCESS` attempt, starting from `first`.
    private func watchSendAttempts(
        token: String, first: CheckTestNotificationResponse, elapsed: @Sendable () -> Duration,
        deadline: ContinuousClock.Instant
    ) async -> (hop: NotificationSelfCheckReport.Hop, attempts: [String]) {
        var status: CheckTestNotificationResponse? = first
        var attempts: [String] = []
        var last = "Apple made no send attempt (is a notification URL configured?)"
        while true {
            if let status {
                let results = status.sendAttempts ?? []
                attempts = results.compactMap { $0.sendAttemptResult?.rawValue }
                if results.contains(where: { $0.sendAttemptResult == .success }) {
                    return (.passed(.sent, elapsed(), "attempts: \(attempts.joined(separator: ", "))"), attempts)
                }
                if !results.isEmpty {
                    last =
                        "no successful attempt: \(attempts.joined(separator: ", ")) (is iap-gateway at the notification URL?)"
                }
            }
            guard ContinuousClock.now + statusInterval < deadline else {
                return (.failed(.sent, elapsed(), last), attempts)
            }
            try? await Task.sleep(for: statusInterval)
            do throws(AppStoreAPIError) {
                status = try await client.getTestNotificationStatus(token: token).value
            } catch {
                status = nil
                last = "Get Test Notification Status: \(error)"
            }
        }
    }

    /// `recorded`, `intake` and `verify`, in order, up to the first that does not happen.
    private func followDownstream(
        uuid: String, tails: (notifications: TopicTail, verify: TopicTail), admin: KafkaAdmin,
        elapsed: () -> Duration, deadline: ContinuousClock.Instant
    ) async -> [NotificationSelfCheckReport.Hop] {
        var hops: [NotificationSelfCheckReport.Hop] = []
        guard
            let record = await tails.notifications.first(
                until: deadline, where: { $0.key.map { String(decoding: $0, as: UTF8.self) } == uuid })
        else {
            return [
                .failed(
                    .recorded, elapsed(),
                    "no record keyed \(uuid) on \(route.notificationsTopic): Apple was answered 200 without it reaching Kafka"
                )
            ]
        }
        hops.append(
            .passed(.recorded, elapsed(), "\(route.notificationsTopic)[\(record.partition)] offset \(record.offset)"))

        guard await committedPast(record, group: route.intakeGroup, admin: admin, deadline: deadline) else {
            return hops + [
                .failed(
                    .intake, elapsed(),
                    "group \(route.intakeGroup) did not commit past \(route.notificationsTopic)[\(record.partition)] offset \(record.offset): is iap-intake running?"
                )
            ]
        }
        hops.append(.passed(.intake, elapsed(), "group \(route.intakeGroup) committed past it"))

        guard
            let request = await tails.verify.first(
                until: deadline,
                where: { record in
                    (try? EventDecoder.decode(VerifyRequest.self, from: record.value))?.notificationUUID == uuid
                })
        else {
            return hops + [
                .failed(.verify, elapsed(), "intake forwarded no request for \(uuid) to \(route.verifyTopic)")
            ]
        }
        guard await committedPast(request, group: route.verifyGroup, admin: admin, deadline: deadline) else {
            return hops + [
                .failed(
                    .verify, elapsed(),
                    "group \(route.verifyGroup) did not commit past \(route.verifyTopic)[\(request.partition)] offset \(request.offset): is iap-verify running?"
                )
            ]
        }
        return hops + [
            .passed(
                .verify, elapsed(),
                "group \(route.verifyGroup) committed past \(route.verifyTopic)[\(request.partition)] offset \(request.offset); "
                    + "TEST carries no transaction, so verify forwards nothing (match and grant never see it)")
        ]
    }

    private func committedPast(
        _ record: KafkaMessage, group: String, admin: KafkaAdmin, deadline: ContinuousClock.Instant
    ) async -> Bool {
        let partition = record.topicPartition
        while true {
            if let committed = try? await admin.committedOffsets(group: group, partitions: [partition])[partition],
                committed > record.offset
            {
                return true
            }
            guard ContinuousClock.now < deadline else { return false }
            try? await Task.sleep(for: .milliseconds(200))
        }
    }

    /// A tail of `topic` from its current end.
    private func tail(_ topic: String, admin: KafkaAdmin) async throws -> TopicTail {
        guard let count = try await admin.partitionCounts(of: [topic])[topic], count > 0 else {
            throw SupportError(.topicMissing, "topic \(topic) does not exist")
        }
        let highs = try await admin.highWatermarks((0..<count).map { TopicPartition(topic, $0) })
        return try TopicTail.start(cluster: cluster, topic: topic, from: highs, logger: logger)
    }
}

/// What `iap notifications test` found, hop by hop (`--json` prints it).
public struct NotificationSelfCheckReport: Encodable, Sendable {
    public enum HopName: String, Encodable, Sendable, CaseIterable {
        case requested, sent, recorded, intake, verify
    }

    public struct Hop: Encodable, Sendable {
        public enum Status: String, Encodable, Sendable {
            case passed, failed, notReached
        }

        public var name: HopName
        public var status: Status
        /// Since the test notification was requested; absent when not reached.
        public var elapsedMs: Int64?
        public var detail: String?

        static func passed(_ name: HopName, _ elapsed: Duration, _ detail: String) -> Hop {
            Hop(name: name, status: .passed, elapsedMs: elapsed.milliseconds(rounding: .down), detail: detail)
        }

        static func failed(_ name: HopName, _ elapsed: Duration, _ detail: String) -> Hop {
            Hop(name: name, status: .failed, elapsedMs: elapsed.milliseconds(rounding: .down), detail: detail)
        }
    }

    /// Every hop passed.
    public var passed = false
    /// The first hop that did not happen in time.
    public var failedHop: HopName?
    public var testNotificationToken: String?
    public var notificationUUID: String?
    /// The check of the TEST notification's signed payload with verify's trust.
    public var signedPayloadVerification: Verification?
    /// Apple's `sendAttemptResult`s, in order.
    public var sendAttempts: [String] = []
    public var hops: [Hop] = []

    mutating func pass(_ name: HopName, _ elapsed: Duration, _ detail: String) {
        record(.passed(name, elapsed, detail))
    }

    mutating func fail(_ name: HopName, _ elapsed: Duration, _ detail: String) {
        record(.failed(name, elapsed, detail))
    }

    mutating func record(_ hop: Hop) {
        if hop.status == .failed, failedHop == nil { failedHop = hop.name }
        hops.append(hop)
    }

    /// Marks the hops after a failure as not reached.
    mutating func close() {
        let seen = Set(hops.map(\.name))
        for name in HopName.allCases where !seen.contains(name) {
            hops.append(Hop(name: name, status: .notReached, elapsedMs: nil, detail: nil))
        }
        passed = failedHop == nil && hops.allSatisfy { $0.status == .passed }
    }
}
