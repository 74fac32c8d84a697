import DequeModule
import Synchronization

/// Hands out ``RedisConnection``s one caller at a time; callers beyond the pool size wait in
/// FIFO order. It never connects or sends (that happens on the client's thread pool); the
/// only I/O here is closing a connection returned after shutdown, which cannot block.
final class ConnectionPool: Sendable {
    private struct Waiter {
        var id: UInt64
        var continuation: CheckedContinuation<RedisConnection, any Error>
    }

    private struct State {
        var idle: [RedisConnection]
        var waiters: Deque<Waiter> = []
        var nextWaiterID: UInt64 = 0
        var isShutdown = false
    }

    private let state: Mutex<State>

    init(configuration: RedisConfiguration) {
        let connections = (0..<configuration.poolSize).map { _ in RedisConnection(configuration: configuration) }
        state = Mutex(State(idle: connections))
    }

    /// An idle connection, or the next one released. Throws ``RedisError/Code/shutdown`` after
    /// ``shutdown()`` and `CancellationError` when the waiting task is cancelled.
    func lease() async throws -> RedisConnection {
        let id = state.withLock { state in
            state.nextWaiterID += 1
            return state.nextWaiterID
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<RedisConnection, any Error>) in
                enum Outcome { case leased(RedisConnection), failed(any Error), queued }
                let outcome: Outcome = state.withLock { state in
                    if state.isShutdown { return .failed(RedisError(code: .shutdown, message: "the Redis client was shut down")) }
                    if Task.isCancelled { return .failed(CancellationError()) }
                    if let connection = state.idle.popLast() { return .leased(connection) }
                    state.waiters.append(Waiter(id: id, continuation: continuation))
                    return .queued
                }
                switch outcome {
                case .leased(let connection): continuation.resume(returning: connection)
                case .failed(let error): continuation.resume(throwing: error)
                case .queued: break
                }
            }
        } onCancel: {
            let waiter = state.withLock { state in
                state.waiters.firstIndex { $0.id == id }.map { state.waiters.remove(at: $0) }
            }
            waiter?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Returns a leased connection, handing it straight to the oldest waiter if any.
    /// After shutdown the connection is closed instead (closing a socket does not block).
    func release(_ connection: RedisConnection) {
        enum Action { case handOver(Waiter), close, keep }
        let action: Action = state.withLock { state in
            if state.isShutdown { return .close }
            if let waiter = state.waiters.popFirst() { return .handOver(waiter) }
            state.idle.append(connection)
            return .keep
        }
        switch action {
        case .handOver(let waiter): waiter.continuation.resume(returning: connection)
        case .close: connection.close()
        case .keep: break
        }
    }

    /// Fails every waiter and returns the idle connections for the caller to close.
    func shutdown() -> [RedisConnection] {
        let (idle, waiters) = state.withLock { state in
            state.isShutdown = true
            defer { state.idle = []; state.waiters = [] }
            return (state.idle, state.waiters)
        }
        for waiter in waiters {
            waiter.continuation.resume(throwing: RedisError(code: .shutdown, message: "the Redis client was shut down"))
        }
        return idle
    }
}
