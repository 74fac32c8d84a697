import LocalStack
import SupportTools
import Testing

extension SupportToolsTests {
    /// `iap notifications test` on a running stack, and on one whose gateway is missing.
    @Suite struct NotificationSelfChecks {
        @Test func aRunningStackPassesEveryHop() async throws {
            try await SupportStack.with { _, settings in
                let report = try await Self.check(settings, timeout: .seconds(60)).run()
                #expect(report.passed, "\(report.hops)")
                #expect(report.failedHop == nil)
                #expect(report.hops.map(\.name) == NotificationSelfCheckReport.HopName.allCases)
                #expect(report.hops.allSatisfy { $0.status == .passed && $0.elapsedMs != nil })
                #expect(report.sendAttempts.contains("SUCCESS"))
                #expect(report.signedPayloadVerification?.status == .verified)
                let json = try SupportStack.json(report)
                #expect(json["passed"] as? Bool == true)
                #expect((json["hops"] as? [[String: Any]])?.first?["name"] as? String == "requested")
            }
        }

        @Test func withoutAGatewayTheSentHopFails() async throws {
            try await SupportStack.with(workers: [], gateway: false) { _, settings in
                // Nothing will arrive: the check runs to its deadline whatever it is.
                let report = try await Self.check(settings, timeout: .seconds(5)).run()
                #expect(!report.passed)
                #expect(report.failedHop == .sent)
                #expect(report.hops.first?.status == .passed, "Apple accepted the request")
                #expect(report.hops.dropFirst().first?.status == .failed)
                #expect(report.hops.dropFirst(2).allSatisfy { $0.status == .notReached })
                let json = try SupportStack.json(report)
                #expect(json["failedHop"] as? String == "sent")
            }
        }

        @Test func aGatewayThatDoesNotAnswerFailsTheSentHopWithApplesAttempts() async throws {
            let shortDeliveries: (inout LocalStackConfiguration) -> Void = { $0.appleNotificationTimeout = .seconds(2) }
            try await SupportStack.with(workers: [], configure: shortDeliveries) { stack, settings in
                await stack.kill("iap-gateway")
                // The simulator's delivery attempt ends at its notification timeout (the HTTP
                // client keeps trying to connect until then), so wait well past it.
                let report = try await Self.check(settings, timeout: .seconds(8)).run()
                #expect(report.failedHop == .sent)
                #expect(!report.sendAttempts.isEmpty, "Apple tried the notification URL")
                #expect(!report.sendAttempts.contains("SUCCESS"))
                #expect(report.hops.dropFirst().first?.detail?.contains("no successful attempt") == true)
            }
        }

        static func check(_ settings: SupportSettings, timeout: Duration) throws -> NotificationSelfCheck {
            let lookups = try settings.appleLookups(logger: SupportStack.logger)
            return NotificationSelfCheck(
                client: lookups.client, checker: lookups.checker, cluster: settings.kafka,
                route: try settings.notificationRoute(), timeout: timeout,
                logger: SupportStack.logger)
        }
    }
}
