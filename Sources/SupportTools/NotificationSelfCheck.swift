public import AppStore
import Basics
import Contracts
import Kafka
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
    public var bootstrapServers: String
    public var kafkaProperties: [String: String]
    public var route: Route
    public var timeout: Duration
    /// Between Get Test Notification Status calls (Apple allows one per second).
    public var statusInterval: Duration = .seconds(1)
    public var logger: Logger

    public init(
        client: AppStoreServerAPIClient, checker: SignedDataChecker, bootstrapServers: String,
        kafkaProperties: [String: String], route: Route, timeout: Duration, logger: Logger
    ) {
        self.client = client
        self.checker = checker
        self.bootstrapServers = bootstrapServers
        self.kafkaProperties = kafkaProperties
        self.route = route
        self.timeout = timeout
        self.logger = logger
    }

    /// Runs the check; throws only when Kafka cannot be read before anything is requested.
    public func run() async throws -> NotificationSelfCheckReport {
        let deadline = ContinuousClock.now + timeout
        let admin = try KafkaAdmin(
            bootstrapServers: bootstrapServers, clientId: "iap-selfcheck", properties: kafkaProperties, logger: logger)
        async let notificationsTail = tail(route.notificationsTopic, admin: admin, deadline: deadline)
        async let verifyTail = tail(route.verifyTopic, admin: admin, deadline: deadline)
        let tails = try await (notifications: notificationsTail, verify: verifyTail)
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
        let elapsed = { ContinuousClock.now - start }

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

        // sent
        guard let uuid = await awaitSuccessfulSend(token: token, report: &report, elapsed: elapsed, deadline: deadline)
        else { return }

        // recorded
        guard
            let record = await tails.notifications.first(
                until: deadline, where: { $0.key.map { String(decoding: $0, as: UTF8.self) } == uuid })
        else {
            return report.fail(
                .recorded, elapsed(),
                "no record keyed \(uuid) on \(route.notificationsTopic): Apple was answered 200 without it reaching Kafka"
            )
        }
        report.pass(
            .recorded, elapsed(), "\(route.notificationsTopic)[\(record.partition)] offset \(record.offset)")

        // intake
        guard await committedPast(record, group: route.intakeGroup, admin: admin, deadline: deadline) else {
            return report.fail(
                .intake, elapsed(),
                "group \(route.intakeGroup) did not commit past \(route.notificationsTopic)[\(record.partition)] offset \(record.offset): is iap-intake running?"
            )
        }
        report.pass(.intake, elapsed(), "group \(route.intakeGroup) committed past it")

        // verify
        guard
            let request = await tails.verify.first(
                until: deadline,
                where: { record in
                    (try? EventDecoder.decode(VerifyRequest.self, from: record.value))?.notificationUUID == uuid
                })
        else {
            return report.fail(.verify, elapsed(), "intake forwarded no request for \(uuid) to \(route.verifyTopic)")
        }
        guard await committedPast(request, group: route.verifyGroup, admin: admin, deadline: deadline) else {
            return report.fail(
                .verify, elapsed(),
                "group \(route.verifyGroup) did not commit past \(route.verifyTopic)[\(request.partition)] offset \(request.offset): is iap-verify running?"
            )
        }
        report.pass(
            .verify, elapsed(),
            "group \(route.verifyGroup) committed past \(route.verifyTopic)[\(request.partition)] offset \(request.offset); "
                + "TEST carries no transaction, so verify forwards nothing (match and grant never see it)")
    }

    /// Polls Get Test Notification Status until an attempt succeeded; returns the notification's
    /// UUID, or nil after failing the `sent` hop.
    private func awaitSuccessfulSend(
        token: String, report: inout NotificationSelfCheckReport, elapsed: () -> Duration,
        deadline: ContinuousClock.Instant
    ) async -> String? {
        var last = "Apple made no send attempt"
        while true {
            do throws(AppStoreAPIError) {
                let status = try await client.getTestNotificationStatus(token: token).value
                if report.notificationUUID == nil, let payload = status.signedPayload {
                    let checked = await checker.notification(payload)
                    report.notificationUUID = checked.notification?.notificationUUID
                    report.signedPayloadVerification = checked.verification
                }
                let attempts = status.sendAttempts ?? []
                report.sendAttempts = attempts.compactMap { $0.sendAttemptResult?.rawValue }
                if attempts.contains(where: { $0.sendAttemptResult == .success }), let uuid = report.notificationUUID {
                    report.pass(.sent, elapsed(), "attempts: \(report.sendAttempts.joined(separator: ", "))")
                    return uuid
                }
                if !attempts.isEmpty {
                    last =
                        "no successful attempt: \(report.sendAttempts.joined(separator: ", ")) (is iap-gateway at the notification URL?)"
                } else if status.signedPayload != nil {
                    last = "Apple made no send attempt (is a notification URL configured?)"
                }
            } catch {
                // 4040008: not ready yet; anything else is worth naming if it is the last word.
                if error.apiErrorCode != 4_040_008 { last = "Get Test Notification Status: \(error)" }
            }
            guard ContinuousClock.now + statusInterval < deadline else {
                report.fail(.sent, elapsed(), last)
                return nil
            }
            try? await Task.sleep(for: statusInterval)
        }
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

    private func tail(_ topic: String, admin: KafkaAdmin, deadline: ContinuousClock.Instant) async throws -> TopicTail {
        guard let count = try await admin.partitionCounts(of: [topic])[topic], count > 0 else {
            throw SupportError(.hopMissed, "topic \(topic) does not exist")
        }
        let highs = try await admin.highWatermarks((0..<count).map { TopicPartition(topic, $0) })
        return try await TopicTail.start(
            bootstrapServers: bootstrapServers, properties: kafkaProperties, topic: topic, from: highs,
            deadline: deadline, logger: logger)
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
        hops.append(Hop(name: name, status: .passed, elapsedMs: elapsed.milliseconds(rounding: .down), detail: detail))
    }

    mutating func fail(_ name: HopName, _ elapsed: Duration, _ detail: String) {
        failedHop = name
        hops.append(Hop(name: name, status: .failed, elapsedMs: elapsed.milliseconds(rounding: .down), detail: detail))
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
