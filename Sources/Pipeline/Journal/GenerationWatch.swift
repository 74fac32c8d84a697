import Logging
import ServiceLifecycle

/// Checks the stage's ``StateGeneration`` marker while the worker runs and stops the worker
/// (by failing its service group, which drains and commits first) once it changed: Redis lost
/// what the running worker relies on, and a restarted worker rebuilds it before taking work.
/// Stopping instead of rebuilding in place keeps one recovery path, the one every start takes.
///
/// It looks every `interval`, and at once when a state store's read found the marker gone
/// (``GenerationFence``): the stores see a loss on their next read of missing state, the watch
/// only on its next tick.
struct GenerationWatch: Service {
    let fence: GenerationFence
    let interval: Duration
    let logger: Logger

    func run() async throws {
        let lost = await withTaskGroup(of: StateLost?.self) { group in
            group.addTask { await poll() }
            group.addTask { await fence.firstLoss() }
            defer { group.cancelAll() }
            return await group.next() ?? nil
        }
        if let lost {
            logger.error("\(lost)")
            throw lost
        }
    }

    /// The loss the marker shows, or nil once the worker shuts down.
    private func poll() async -> StateLost? {
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: interval) }
            let found: String?
            do {
                found = try await fence.generation.current()
            } catch {
                continue  // Redis unreachable: readiness says so; look again when it answers
            }
            do { try fence.check(found: found) } catch { return error }
        }
        return nil
    }
}
