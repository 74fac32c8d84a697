public import ServiceLifecycle

extension ServiceGroup {
    /// Runs `body` (the group's whole life: `run()` plus the owner's clean-up) and shuts the
    /// group down gracefully once `shutdown` returns. Tests and embedded stacks use it instead
    /// of signals. When the group ends on its own first (a failed service), the trigger is no
    /// longer waited for, so the caller returns instead of hanging on a trigger nobody fires.
    public nonisolated func run(
        _ body: @escaping @Sendable () async throws -> Void, until shutdown: @escaping @Sendable () async -> Void
    ) async throws {
        try await withThrowingTaskGroup(of: Bool.self) { tasks in
            tasks.addTask {
                try await body()
                return true
            }
            tasks.addTask {
                await shutdown()
                await self.triggerGracefulShutdown()
                return false
            }
            // A thrown error leaves the task group, which cancels the trigger as well.
            while let groupEnded = try await tasks.next() {
                if groupEnded { tasks.cancelAll() }
            }
        }
    }
}
