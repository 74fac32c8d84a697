import Hosting
import Logging
import ServiceLifecycle
import Synchronization
import Testing

@Suite(.timeLimit(.minutes(2))) struct ProcessHostTests {
    /// Ends on its own at once, as a failed or finished service does.
    struct EndsAtOnce: Service {
        func run() async throws {}
    }

    /// Runs until the group shuts down.
    struct RunsUntilShutdown: Service {
        func run() async throws {
            try await gracefulShutdown()
        }
    }

    @Test func aGroupThatEndsOnItsOwnDoesNotWaitForTheTrigger() async throws {
        let cleaned = Mutex(false)
        try await ProcessHost.run(
            [
                .init(service: EndsAtOnce(), successTerminationBehavior: .gracefullyShutdownGroup),
                .init(service: RunsUntilShutdown()),
            ],
            until: .trigger { try? await Task.sleep(for: .seconds(3600)) }, gracePeriod: .seconds(5),
            logger: Logger(label: "test")
        ) {
            cleaned.withLock { $0 = true }
        }
        #expect(cleaned.withLock { $0 })
    }

    @Test func theTriggerStopsTheGroupAndCleanUpRuns() async throws {
        let cleaned = Mutex(false)
        try await ProcessHost.run(
            [.init(service: RunsUntilShutdown())], until: .trigger { try? await Task.sleep(for: .milliseconds(50)) },
            gracePeriod: .seconds(5),
            logger: Logger(label: "test")
        ) {
            cleaned.withLock { $0 = true }
        }
        #expect(cleaned.withLock { $0 })
    }
}
