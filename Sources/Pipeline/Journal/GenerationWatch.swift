import Logging
import ServiceLifecycle

/// Checks the stage's ``StateGeneration`` marker while the worker runs and stops the worker
/// (by failing its service group, which drains and commits first) once it changed: Redis lost
/// what the running worker relies on, and a restarted worker rebuilds it before taking work.
/// Stopping instead of rebuilding in place keeps one recovery path, the one every start takes.
struct GenerationWatch: Service {
    let generation: StateGeneration
    let expected: String
    let interval: Duration
    let logger: Logger

    func run() async throws {
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: interval) }
            let found: String?
            do {
                found = try await generation.current()
            } catch {
                continue  // Redis unreachable: readiness says so; look again when it answers
            }
            if found != expected {
                let lost = StateLost(key: generation.key, expected: expected, found: found)
                logger.error("\(lost)")
                throw lost
            }
        }
    }
}
